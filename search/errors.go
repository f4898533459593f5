package search

import "errors"

// ErrNotFound reports a document id the backend does not know.
var ErrNotFound = errors.New("search: document not found")
