package cluster

import (
	"errors"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/cluster/clusterpb"
)

var (
	// ErrClosed is returned by Close after the first, and by calls made
	// through a member that closed.
	ErrClosed = errors.New("cluster: member closed")
	// ErrUnknownServer: a session names a server the owner's table
	// (Config.Servers) does not hold. Not sent.
	ErrUnknownServer = errors.New("cluster: no such server in the member's table")
)

// errLeaving is a grain's answer while its member leaves the cluster;
// it crosses as kindMoved.
var errLeaving = errors.New("cluster: the member is leaving the cluster")

// RemoteError is an engine error the session's owner returned, carried
// across by class: errors.Is matches the engine sentinel of its class
// (mcpengine.ErrSessionClosed, ErrUnreachable, …) and mcpengine.SafeToRetry
// answers what it answered on the owner. JSON-RPC errors, lost
// connections and timeouts arrive as the engine's own types instead
// (*mcpengine.RPCError, *mcpengine.ConnectionLostError,
// *mcpengine.TimeoutError).
type RemoteError struct {
	// Kind is the engine's error.type on the owner ("session_closed", …).
	Kind    string
	Message string
	safe    bool
}

func (e *RemoteError) Error() string { return e.Message }

// Unwrap gives the engine sentinel of the error's class, if any.
func (e *RemoteError) Unwrap() error { return sentinels[e.Kind] }

// SafeToRetry is mcpengine.SafeToRetry of the error on the owner.
func (e *RemoteError) SafeToRetry() bool { return e.safe }

// ErrorType is the error's class, as telemetry reports it.
func (e *RemoteError) ErrorType() string { return e.Kind }

// sentinels are the engine's sentinel errors by their ErrorType.
var sentinels = func() map[string]error {
	m := map[string]error{}
	for _, s := range []error{
		mcpengine.ErrConnectionLost, mcpengine.ErrSessionClosed, mcpengine.ErrTimeout,
		mcpengine.ErrTooManyInFlight, mcpengine.ErrQueueFull, mcpengine.ErrNotReady,
		mcpengine.ErrCapabilityNotSupported, mcpengine.ErrVersionMismatch, mcpengine.ErrProtocol,
		mcpengine.ErrUnreachable, mcpengine.ErrDuplicateName, mcpengine.ErrUnknownSession,
		mcpengine.ErrEngineClosed,
	} {
		m[errorType(s)] = s
	}
	m[kindUnknownServer] = ErrUnknownServer
	return m
}()

const (
	kindRPC           = "rpc"
	kindUnknownServer = "unknown_server"
	// kindMoved answers a request the grain never started because it
	// stopped first: the caller looks the owner up again and resends.
	kindMoved = "moved"
)

func errorType(err error) string {
	var t interface{ ErrorType() string }
	if errors.As(err, &t) {
		return t.ErrorType()
	}
	return "error"
}

// encodeError is err as the owner sends it back.
func encodeError(err error) *clusterpb.CallError {
	var rpc *mcpengine.RPCError
	switch {
	case errors.As(err, &rpc):
		return &clusterpb.CallError{Kind: kindRPC, Code: int32(rpc.Code), Message: rpc.Message, Data: rpc.Data,
			SafeToRetry: mcpengine.SafeToRetry(err)}
	case errors.Is(err, errLeaving):
		return &clusterpb.CallError{Kind: kindMoved, Message: err.Error(), SafeToRetry: true}
	case errors.Is(err, ErrUnknownServer):
		return &clusterpb.CallError{Kind: kindUnknownServer, Message: err.Error(), SafeToRetry: true}
	case errors.Is(err, mcpengine.ErrConnectionLost):
		return &clusterpb.CallError{Kind: errorType(mcpengine.ErrConnectionLost), Message: err.Error()}
	case errors.Is(err, mcpengine.ErrTimeout):
		return &clusterpb.CallError{Kind: errorType(mcpengine.ErrTimeout), Message: err.Error()}
	}
	return &clusterpb.CallError{Kind: errorType(err), Message: err.Error(), SafeToRetry: mcpengine.SafeToRetry(err)}
}

// decodeError is the caller's error for what the owner sent back.
func decodeError(method string, e *clusterpb.CallError) error {
	switch e.Kind {
	case kindRPC:
		return &mcpengine.RPCError{Code: int64(e.Code), Message: e.Message, Data: e.Data}
	case errorType(mcpengine.ErrConnectionLost):
		return &mcpengine.ConnectionLostError{Cause: &RemoteError{Kind: e.Kind, Message: e.Message}}
	case errorType(mcpengine.ErrTimeout):
		return &mcpengine.TimeoutError{Method: method}
	}
	return &RemoteError{Kind: e.Kind, Message: e.Message, safe: e.SafeToRetry}
}

// ownerLost is the error of a call whose owner died, or stopped its
// session, while the call was with it: the server may or may not have
// run it.
func ownerLost(why string) error {
	return &mcpengine.ConnectionLostError{Cause: errors.New("cluster: " + why)}
}
