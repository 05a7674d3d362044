package loadgen

import (
	"context"
	"errors"

	"github.com/mcpengine/mcpengine"
)

// Class is the outcome of one call.
type Class int

// The outcome classes. Everything but OK is a failure: a tool result with
// isError true is ToolError and a result that breaks the tool's
// outputSchema is SchemaError, never OK, because a load test that counts
// them as successes measures how fast a server can say no.
const (
	OK          Class = iota
	RPCError          // the server answered with a JSON-RPC error (counted by code too)
	ToolError         // tools/call result with isError: true
	SchemaError       // tools/call result that does not match the tool's outputSchema
	Timeout           // no answer in time
	Transport         // connection lost, session closed or not ready
	Other             // rejected locally (in-flight cap, queue full), undecodable result, bad template
	CheckFailed       // a flow step's answer failed one of its checks or extractions
	numClasses
)

var classNames = [numClasses]string{"ok", "rpc", "tool", "schema", "timeout", "transport", "other", "check"}

func (c Class) String() string {
	if c >= 0 && c < numClasses {
		return classNames[c]
	}
	return "unknown"
}

// Classify sorts a call's error into a class (OK for nil). Results are
// classified further by the caller (isError, outputSchema).
func Classify(err error) Class {
	var rpc *mcpengine.RPCError
	switch {
	case err == nil:
		return OK
	case errors.As(err, &rpc):
		return RPCError
	case errors.Is(err, mcpengine.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return Timeout
	case errors.Is(err, mcpengine.ErrTooManyInFlight), errors.Is(err, mcpengine.ErrQueueFull),
		errors.Is(err, mcpengine.ErrCapabilityNotSupported):
		return Other
	case errors.Is(err, mcpengine.ErrConnectionLost), errors.Is(err, mcpengine.ErrSessionClosed),
		errors.Is(err, mcpengine.ErrNotReady):
		return Transport
	}
	var d interface{ Timeout() bool }
	if errors.As(err, &d) && d.Timeout() {
		return Timeout
	}
	return Other
}

// rpcCode is the JSON-RPC error code of err (0 if it is not one).
func rpcCode(err error) int64 {
	var rpc *mcpengine.RPCError
	if errors.As(err, &rpc) {
		return rpc.Code
	}
	return 0
}

// ErrorCounts counts failed calls by class.
type ErrorCounts struct {
	Transport int64 `json:"transport"` // connection lost / session closed
	Timeout   int64 `json:"timeout"`   // no answer in time
	RPC       int64 `json:"rpc"`       // JSON-RPC error answers (by code in rpc_codes)
	Tool      int64 `json:"tool"`      // isError results
	Schema    int64 `json:"schema"`    // results not matching outputSchema
	Other     int64 `json:"other"`     // local rejections, bad results
	Check     int64 `json:"check"`     // flow steps whose checks or extractions failed
}

// Total is the number of failed calls.
func (e ErrorCounts) Total() int64 {
	return e.RPC + e.Tool + e.Schema + e.Timeout + e.Transport + e.Other + e.Check
}

// Plus is e and o counted together (runs or members merged).
func (e ErrorCounts) Plus(o ErrorCounts) ErrorCounts {
	e.Transport += o.Transport
	e.Timeout += o.Timeout
	e.RPC += o.RPC
	e.Tool += o.Tool
	e.Schema += o.Schema
	e.Other += o.Other
	e.Check += o.Check
	return e
}

// Of returns the count of one failure class.
func (e ErrorCounts) Of(c Class) int64 {
	switch c {
	case RPCError:
		return e.RPC
	case ToolError:
		return e.Tool
	case SchemaError:
		return e.Schema
	case Timeout:
		return e.Timeout
	case Transport:
		return e.Transport
	case Other:
		return e.Other
	case CheckFailed:
		return e.Check
	}
	return 0
}

func errorCounts(c *[numClasses]int64) ErrorCounts {
	return ErrorCounts{
		RPC: c[RPCError], Tool: c[ToolError], Schema: c[SchemaError],
		Timeout: c[Timeout], Transport: c[Transport], Other: c[Other], Check: c[CheckFailed],
	}
}
