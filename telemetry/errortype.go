package telemetry

import (
	"context"
	"errors"
	"strconv"

	"github.com/mcpengine/mcpengine/messages"
)

// ErrorTyper is implemented by the engine's errors to name their class for
// error.type ("timeout", "connection_lost", …) without this package
// importing them.
type ErrorTyper interface {
	ErrorType() string
}

// classify returns error.type and, for JSON-RPC errors,
// rpc.response.status_code (the error code as a string, as the MCP
// conventions ask).
func classify(err error) (errType, status string) {
	var we *messages.WireError
	if errors.As(err, &we) {
		code := strconv.Itoa(int(we.Code))
		return code, code
	}
	var typed ErrorTyper
	if errors.As(err, &typed) {
		return typed.ErrorType(), ""
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout", ""
	case errors.Is(err, context.Canceled):
		return "cancelled", ""
	}
	return "_OTHER", ""
}

// errorType is error.type for err ("" for nil).
func errorType(err error) string {
	if err == nil {
		return ""
	}
	t, _ := classify(err)
	return t
}
