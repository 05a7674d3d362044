package mcpengine

import "github.com/mcpengine/mcpengine/actors"

// publicError turns an error the session actor produced into the root
// package's own errors, so that callers match the documented types and
// sentinels of this package with errors.Is/As. The actor keeps its own
// types (it cannot import this package); the translation runs once per
// failed call, at the boundary (a call's result, a state change, a close
// cause), never on a success. Causes are translated too, all the way down
// through the actor's types; anything else (a transport's error, io.EOF,
// a handler's error, context errors) is kept as it is, so errors.Is/As
// still reach it.
func publicError(err error) error {
	switch e := err.(type) {
	case nil:
		return nil
	case *actors.TimeoutError:
		return &TimeoutError{Method: e.Method, After: e.After, CallerDeadline: e.CallerDeadline}
	case *actors.ConnectionLostError:
		return &ConnectionLostError{Cause: publicError(e.Cause)}
	case *actors.ClosedError:
		return &ClosedError{Cause: publicError(e.Cause)}
	case *actors.ServerStderrError:
		return &ServerStderrError{Cause: publicError(e.Cause), Stderr: e.Stderr}
	case *actors.ConnectError:
		return &ConnectError{Server: e.Server, Reason: e.Reason, Cause: publicError(e.Cause), Local: e.Local}
	case *actors.CapabilityError:
		return &CapabilityError{Method: e.Method, Capability: e.Capability}
	case *actors.ProtocolError:
		return &ProtocolError{Method: e.Method, Reason: e.Reason}
	case *actors.VersionMismatchError:
		return &VersionMismatchError{Offered: e.Offered, Answered: e.Answered}
	case *actors.NoCommonVersionError:
		return &NoCommonVersionError{Requested: e.Requested, Supported: e.Supported, Cause: publicError(e.Cause)}
	case *actors.AuthRefusedError:
		return &AuthRefusedError{Status: e.Status, Reason: e.Reason, Cause: publicError(e.Cause)}
	case *actors.NotModernError:
		return &NotModernError{Pinned: e.Pinned, Cause: publicError(e.Cause)}
	case *actors.MethodNotInVersionError:
		return &MethodNotInVersionError{Method: e.Method, Version: e.Version}
	case *actors.InputRequiredError:
		return &InputRequiredError{Method: e.Method, Rounds: e.Rounds, Requests: e.Requests, Result: e.Result}
	case *actors.InputRequestError:
		return &InputRequestError{Method: e.Method, Key: e.Key, Request: e.Request, Err: publicError(e.Err)}
	}
	return publicSentinel(err)
}

// publicSentinel maps the actor's sentinels to this package's.
func publicSentinel(err error) error {
	switch err {
	case actors.ErrConnectionLost:
		return ErrConnectionLost
	case actors.ErrSessionClosed:
		return ErrSessionClosed
	case actors.ErrTimeout:
		return ErrTimeout
	case actors.ErrTooManyInFlight:
		return ErrTooManyInFlight
	case actors.ErrQueueFull:
		return ErrQueueFull
	case actors.ErrNotReady:
		return ErrNotReady
	case actors.ErrCapabilityNotSupported:
		return ErrCapabilityNotSupported
	case actors.ErrVersionMismatch:
		return ErrVersionMismatch
	case actors.ErrProtocol:
		return ErrProtocol
	case actors.ErrUnreachable:
		return ErrUnreachable
	case actors.ErrDuplicateName:
		return ErrDuplicateName
	case actors.ErrNotInProtocolVersion:
		return ErrNotInProtocolVersion
	case actors.ErrInputRequired:
		return ErrInputRequired
	case actors.ErrNoInputHandler:
		return ErrNoInputHandler
	}
	return err
}
