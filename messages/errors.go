package messages

import (
	"fmt"
)

// WireError is a JSON-RPC error object: the one error type for every error
// code a peer can send. errors.Is matches it by code against the sentinels
// below, so callers test errors.Is(err, messages.ErrMethodNotFound) whatever
// the message text; codes the engine does not know are kept as they came.
type WireError struct {
	Code    int64      `json:"code"`
	Message string     `json:"message"`
	Data    RawMessage `json:"data,omitempty"`
	// Raw is the error object exactly as it was received (nil for errors
	// built here). AppendError writes it verbatim, so a relay such as the
	// gateway passes a server's error through byte for byte; a WireError
	// changed after decoding must have Raw cleared.
	Raw RawMessage `json:"-"`
}

func (e *WireError) Error() string {
	if len(e.Data) > 0 {
		return fmt.Sprintf("jsonrpc error %d: %s (data: %s)", e.Code, e.Message, truncate(e.Data, 200))
	}
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// Is matches any *WireError with the same code.
func (e *WireError) Is(target error) bool {
	t, ok := target.(*WireError)
	return ok && t.Code == e.Code
}

// Standard JSON-RPC 2.0 codes and the codes MCP defines.
const (
	CodeParseError     = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternalError  = -32603
	// CodeResourceNotFound is MCP's code for resources/read of an unknown URI.
	CodeResourceNotFound = -32002
	// CodeURLElicitationRequired (2025-11-25) asks the client to complete a
	// URL-mode elicitation before retrying.
	CodeURLElicitationRequired = -32042
)

// Sentinels for errors.Is; compare by code only.
var (
	ErrParse                  = &WireError{Code: CodeParseError, Message: "parse error"}
	ErrInvalidRequest         = &WireError{Code: CodeInvalidRequest, Message: "invalid request"}
	ErrMethodNotFound         = &WireError{Code: CodeMethodNotFound, Message: "method not found"}
	ErrInvalidParams          = &WireError{Code: CodeInvalidParams, Message: "invalid params"}
	ErrInternal               = &WireError{Code: CodeInternalError, Message: "internal error"}
	ErrResourceNotFound       = &WireError{Code: CodeResourceNotFound, Message: "resource not found"}
	ErrURLElicitationRequired = &WireError{Code: CodeURLElicitationRequired, Message: "URL elicitation required"}
)

// InvalidMessageError describes a received frame that is not valid JSON-RPC
// 2.0 as MCP uses it. Such frames are discarded and counted; the session
// goes on.
type InvalidMessageError struct {
	Reason string
	Frame  string // the start of the offending frame, for logs
	// ID is the id of a broken response (no method) when it could still be
	// read: a session fails its request with that id at once rather than
	// leave the caller waiting for a timeout. Zero (not IsValid) otherwise.
	ID ID
}

func (e *InvalidMessageError) Error() string {
	return fmt.Sprintf("invalid JSON-RPC message: %s: %s", e.Reason, e.Frame)
}

func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}
