package retry

import "errors"

var (
	// ErrAttemptTimeout ends one attempt that ran past Model.AttemptTimeout;
	// it is retried.
	ErrAttemptTimeout = errors.New("model call timed out")
)
