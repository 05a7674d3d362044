package gateway

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// The gateway's own JSON-RPC error codes, in the range JSON-RPC leaves to
// implementations. Errors a server answered are passed through as they
// came, with the server's code.
const (
	// CodeUnavailable: the server could not be reached (no session ready
	// within ReadyWait, the connection failed or was lost, the request
	// failed below JSON-RPC): message "Failed to connect to server"; or it
	// did not answer within the request timeout: message "Server did not
	// answer in time".
	CodeUnavailable = -32000
	// CodeServerNotFound: the routing protocol named a server the gateway
	// does not have. Message "Server 'NAME' not found".
	CodeServerNotFound = -32001
	// CodeDenied: a policy refused the request; data is a Denial.
	CodeDenied = -32003
	// CodeRateLimited: a policy's rate limit refused the request; data
	// names the policy.
	CodeRateLimited = -32004
	// CodeToolTimeLimit: a tool call ran longer than a policy's
	// maxToolTime and was cancelled; data names the policy.
	CodeToolTimeLimit = -32005
)

// errNoAnswer is returned for a request the client cancelled: nothing is
// sent back for it.
var errNoAnswer = &messages.WireError{Code: messages.CodeInternalError, Message: "no answer: cancelled by the client"}

// errorData is the data of the gateway's own errors.
type errorData struct {
	Server string `json:"server,omitempty"`
	Reason string `json:"reason,omitempty"`
	*Denial
}

func wireError(code int64, msg string, data *errorData) *messages.WireError {
	e := &messages.WireError{Code: code, Message: msg}
	if data != nil {
		e.Data, _ = messages.Marshal(data)
	}
	return e
}

func serverNotFound(name string) *messages.WireError {
	return wireError(CodeServerNotFound, fmt.Sprintf("Server '%s' not found", name), nil)
}

func unavailable(server string, reason error) *messages.WireError {
	d := &errorData{Server: server}
	if reason != nil {
		d.Reason = reason.Error()
	}
	return wireError(CodeUnavailable, "Failed to connect to server", d)
}

func denied(server string, d *Denial) *messages.WireError {
	return wireError(CodeDenied, d.Error(), &errorData{Server: server, Denial: d})
}

func rateLimited(server, label string) *messages.WireError {
	return wireError(CodeRateLimited, "rate limit of "+label+" policy exceeded", &errorData{Server: server, Reason: "rateLimit of " + label})
}

func toolTimeLimit(server string, a *access) *messages.WireError {
	label := a.toolTimeLabel()
	return wireError(CodeToolTimeLimit, fmt.Sprintf("tool call cancelled after %s: maxToolTime of %s policy", a.maxToolTime, label),
		&errorData{Server: server, Reason: "maxToolTime of " + label})
}

func invalidParams(msg string) *messages.WireError {
	return &messages.WireError{Code: messages.CodeInvalidParams, Message: msg}
}

func resourceNotFound(uri string) *messages.WireError {
	return &messages.WireError{Code: messages.CodeResourceNotFound, Message: "no server offers resource " + uri}
}

func methodNotFound(method string) *messages.WireError {
	return &messages.WireError{Code: messages.CodeMethodNotFound, Message: "method not found: " + method}
}

// unavailableError is a request that found no ready session.
type unavailableError struct{ cause error }

func (e *unavailableError) Error() string { return "no session ready: " + e.cause.Error() }
func (e *unavailableError) Unwrap() error { return e.cause }

// upstreamError turns what a call to a server returned into the error the
// gateway client gets, and classifies it: the server's own JSON-RPC error
// goes through unchanged, except the one the transport made up for a
// request that failed below JSON-RPC, which like every connection failure
// becomes CodeUnavailable.
func upstreamError(server string, err error) (*messages.WireError, outcome) {
	var (
		werr *messages.WireError
		ue   *unavailableError
	)
	switch {
	case errors.As(err, &ue):
		return unavailable(server, ue.cause), outcomeUnavailable
	case errors.Is(err, mcpengine.ErrRequestFailed):
		return unavailable(server, err), outcomeUnavailable
	case errors.Is(err, mcpengine.ErrTimeout):
		return wireError(CodeUnavailable, "Server did not answer in time", &errorData{Server: server, Reason: err.Error()}), outcomeTimeout
	case errors.As(err, &werr):
		return werr, outcomeError
	case errors.Is(err, mcpengine.ErrCapabilityNotSupported):
		return &messages.WireError{Code: messages.CodeMethodNotFound, Message: err.Error()}, outcomeError
	case errors.Is(err, context.Canceled):
		return errNoAnswer, outcomeCancelled
	}
	return unavailable(server, err), outcomeUnavailable
}
