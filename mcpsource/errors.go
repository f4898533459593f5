package mcpsource

import (
	"errors"
	"fmt"
)

var (
	// ErrConfig reports a server's settings that cannot work: no command
	// or URL, or both, a URL that is not http or https.
	ErrConfig = errors.New("mcpsource: bad server settings")
	// ErrNoTool reports a server without the tool a Source needs: no
	// search tool declared or detected, or a declared tool it does not
	// list, or a declared argument the tool does not take.
	ErrNoTool = errors.New("mcpsource: no such tool")
	// ErrToolFailed reports a tool result marked isError.
	ErrToolFailed = errors.New("the tool reported an error")
	// ErrTimeout reports a call the server did not answer within
	// Options.Timeout.
	ErrTimeout = errors.New("mcpsource: timed out")
	// ErrClosed reports a call on a closed Source.
	ErrClosed = errors.New("mcpsource: closed")
)

// ToolError is a failed tool call, naming the server and the tool: the
// tool's own error message (isError, ErrToolFailed), the protocol's, a
// timeout (ErrTimeout) or the caller's cancellation (its cause).
type ToolError struct {
	Server, Tool string
	// Message is the tool's error text, cleaned and bounded ("" unless
	// the tool reported isError).
	Message string
	Err     error
}

func (e *ToolError) Error() string {
	if e.Message != "" {
		return fmt.Sprintf("mcp server %s: tool %s: %v: %s", e.Server, e.Tool, e.Err, e.Message)
	}
	return fmt.Sprintf("mcp server %s: tool %s: %v", e.Server, e.Tool, e.Err)
}

func (e *ToolError) Unwrap() error { return e.Err }
