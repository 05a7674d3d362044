package mcpengine

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
	"io"
	"net"
	"reflect"
	"syscall"
	"testing"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/stdio"
)

// translation is one error the session actor produces and what a caller
// must be able to match on its translation.
type translation struct {
	name     string
	in       error
	is       []error // errors.Is must hold for each
	as       any     // a pointer to a root error type errors.As must fill
	safe     bool    // SafeToRetry
	keepsMsg bool    // the message is the actor's, word for word
}

func translations() []translation {
	exited := &stdio.ProcessExitedError{Pid: 42, Code: 1, Err: io.EOF}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	rpc := &messages.WireError{Code: transport.CodeRequestFailed, Message: "request failed"}
	return []translation{
		{name: "timeout", in: &actors.TimeoutError{Method: "tools/call", After: 1},
			is: []error{ErrTimeout, context.DeadlineExceeded}, as: new(*TimeoutError), keepsMsg: true},
		{name: "connection lost to a dead stdio server, its stderr attached",
			in: &actors.ConnectionLostError{Cause: &actors.ServerStderrError{Cause: exited, Stderr: "boom"}},
			is: []error{ErrConnectionLost, io.EOF}, as: new(*ServerStderrError), keepsMsg: true},
		{name: "closed after a first connect that never reached the server",
			in: &actors.ClosedError{Cause: &actors.ConnectError{Server: "x", Reason: "refused", Cause: refused}},
			is: []error{ErrSessionClosed, ErrUnreachable, syscall.ECONNREFUSED}, as: new(*ConnectError), safe: true, keepsMsg: true},
		{name: "closed by Close", in: &actors.ClosedError{}, is: []error{ErrSessionClosed}, as: new(*ClosedError), keepsMsg: true},
		{name: "capability", in: &actors.CapabilityError{Method: "tools/list", Capability: "tools"},
			is: []error{ErrCapabilityNotSupported}, as: new(*CapabilityError), safe: true, keepsMsg: true},
		{name: "protocol", in: &actors.ProtocolError{Method: "ping", Reason: "r"}, is: []error{ErrProtocol}, as: new(*ProtocolError), keepsMsg: true},
		{name: "version mismatch", in: &actors.VersionMismatchError{Offered: "a", Answered: "b"},
			is: []error{ErrVersionMismatch}, as: new(*VersionMismatchError), keepsMsg: true},
		{name: "no common version", in: &actors.NoCommonVersionError{Requested: "a", Supported: []string{"b"}, Cause: rpc},
			is: []error{ErrVersionMismatch, ErrRequestFailed}, as: new(*NoCommonVersionError), keepsMsg: true},
		{name: "not modern", in: &actors.NotModernError{Pinned: "p", Cause: rpc},
			is: []error{ErrVersionMismatch, ErrRequestFailed}, as: new(*NotModernError), keepsMsg: true},
		{name: "a handshake refused with 401", in: &actors.ClosedError{Cause: &actors.AuthRefusedError{Status: 401, Reason: "HTTP 401 Unauthorized", Cause: rpc}},
			is: []error{ErrSessionClosed, ErrUnauthorized, ErrRequestFailed}, as: new(*AuthRefusedError), keepsMsg: true},
		{name: "method not in version", in: &actors.MethodNotInVersionError{Method: "ping", Version: "v"},
			is: []error{ErrNotInProtocolVersion}, as: new(*MethodNotInVersionError), safe: true, keepsMsg: true},
		{name: "input required", in: &actors.InputRequiredError{Method: "m", Rounds: 8},
			is: []error{ErrInputRequired}, as: new(*InputRequiredError), keepsMsg: true},
		{name: "no input handler", in: &actors.InputRequestError{Method: "m", Key: "k", Request: "r", Err: actors.ErrNoInputHandler},
			is: []error{ErrNoInputHandler}, as: new(*InputRequestError), keepsMsg: true},
		{name: "a handler's own error", in: &actors.InputRequestError{Err: io.ErrUnexpectedEOF},
			is: []error{io.ErrUnexpectedEOF}, as: new(*InputRequestError), keepsMsg: true},
		{name: "not ready", in: actors.ErrNotReady, is: []error{ErrNotReady}, safe: true, keepsMsg: true},
		{name: "queue full", in: actors.ErrQueueFull, is: []error{ErrQueueFull}, safe: true, keepsMsg: true},
		{name: "too many in flight", in: actors.ErrTooManyInFlight, is: []error{ErrTooManyInFlight}, safe: true, keepsMsg: true},
		{name: "duplicate name", in: actors.ErrDuplicateName, is: []error{ErrDuplicateName}, keepsMsg: true},
		{name: "a JSON-RPC error passes as it is", in: rpc, is: []error{ErrRequestFailed}, as: new(*RPCError), keepsMsg: true},
		{name: "a cancel passes as it is", in: context.Canceled, is: []error{context.Canceled}, keepsMsg: true},
	}
}

// TestEveryActorErrorReachesCallersAsTheRootPackagesOwn: what the actor
// produces (its sentinels, its typed errors, nested in one another, around
// a transport's errors) reaches callers as this package's types and
// sentinels: errors.Is/As match them, the transport's errors stay
// reachable below, no actors type is left in the chain, the message is
// unchanged, and SafeToRetry says what it said of the actor's error.
func TestEveryActorErrorReachesCallersAsTheRootPackagesOwn(t *testing.T) {
	for _, tc := range translations() {
		t.Run(tc.name, func(t *testing.T) {
			out := publicError(tc.in)
			for _, target := range tc.is {
				if !errors.Is(out, target) {
					t.Errorf("errors.Is(%v, %v) is false", out, target)
				}
			}
			if tc.as != nil && !errors.As(out, tc.as) {
				t.Errorf("errors.As(%v, %T) is false", out, tc.as)
			}
			if got := SafeToRetry(out); got != tc.safe || got != actors.SafeToRetry(tc.in) {
				t.Errorf("SafeToRetry = %v, want %v (the actor's error: %v)", got, tc.safe, actors.SafeToRetry(tc.in))
			}
			if tc.keepsMsg && out.Error() != tc.in.Error() {
				t.Errorf("message %q, want the actor's %q", out, tc.in)
			}
			if leaked := actorsTypeIn(out); leaked != "" {
				t.Errorf("the chain of %v still holds %s", out, leaked)
			}
		})
	}
}

// TestRootErrorsKeepTheSupervisorsClasses: the classes supervisor.Classify
// reads (budgeted, permanent) survive the translation, for embedders that
// classify with it.
func TestRootErrorsKeepTheSupervisorsClasses(t *testing.T) {
	for _, in := range []error{
		&actors.VersionMismatchError{}, &actors.NoCommonVersionError{}, &actors.NotModernError{},
		&actors.ConnectionLostError{Cause: io.EOF}, io.EOF,
	} {
		if got, want := supervisor.Classify(publicError(in)), supervisor.Classify(in); got != want {
			t.Errorf("%T: Classify = %v, want %v", in, got, want)
		}
	}
}

// TestEveryActorErrorTypeIsTranslated parses package actors and fails on
// an error type or sentinel the translation does not know: a new one
// must be declared in the root and mapped in publicError.
func TestEveryActorErrorTypeIsTranslated(t *testing.T) {
	covered := map[string]bool{}
	for _, tc := range translations() {
		walkErrors(tc.in, func(e error) {
			if t := reflect.TypeOf(e); t.Kind() == reflect.Pointer && t.Elem().PkgPath() == actorsPath {
				covered[t.Elem().Name()] = true
			}
		})
	}
	fset := token.NewFileSet()
	for _, f := range parsePackage(t, fset, "actors") {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || fn.Name.Name != "Error" {
				continue
			}
			typ := fn.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			name := typ.(*ast.Ident).Name
			if ast.IsExported(name) && !covered[name] {
				t.Errorf("actors.%s is not among the translations", name)
			}
		}
	}
	for _, s := range []error{
		actors.ErrConnectionLost, actors.ErrSessionClosed, actors.ErrTimeout, actors.ErrTooManyInFlight,
		actors.ErrQueueFull, actors.ErrNotReady, actors.ErrCapabilityNotSupported, actors.ErrVersionMismatch,
		actors.ErrProtocol, actors.ErrUnreachable, actors.ErrDuplicateName, actors.ErrNotInProtocolVersion,
		actors.ErrInputRequired, actors.ErrNoInputHandler,
	} {
		if out := publicError(s); out == s || out.Error() != s.Error() {
			t.Errorf("sentinel %q translates to %v", s, out)
		}
	}
}

// TestRootConstantsMatchTheActors: the states, listen phases and round
// limit the root declares are the actor's numbers.
func TestRootConstantsMatchTheActors(t *testing.T) {
	states := []State{StateConnecting, StateInitializing, StateReady, StateBackoff, StateClosed}
	for i, s := range []actors.State{actors.StateConnecting, actors.StateInitializing, actors.StateReady, actors.StateBackoff, actors.StateClosed} {
		if publicState(s) != states[i] || s.String() != states[i].String() {
			t.Errorf("state %v is %v in the root", s, publicState(s))
		}
	}
	phases := []ListenPhase{ListenNone, ListenOpening, ListenOpen, ListenEnded, ListenDropped, ListenFailed}
	for i, p := range []actors.ListenPhase{actors.ListenNone, actors.ListenOpening, actors.ListenOpen, actors.ListenEnded, actors.ListenDropped, actors.ListenFailed} {
		if ListenPhase(p) != phases[i] || p.String() != phases[i].String() {
			t.Errorf("listen phase %v is %v in the root", p, ListenPhase(p))
		}
	}
	if MaxInputRounds != actors.MaxInputRounds {
		t.Errorf("MaxInputRounds %d, the actor's %d", MaxInputRounds, actors.MaxInputRounds)
	}
}

const actorsPath = "github.com/mcpengine/mcpengine/actors"

// actorsTypeIn names an error of package actors in err's tree.
func actorsTypeIn(err error) string {
	found := ""
	walkErrors(err, func(e error) {
		if t := reflect.TypeOf(e); found == "" && t.Kind() == reflect.Pointer && t.Elem().PkgPath() == actorsPath {
			found = t.String()
		}
	})
	return found
}

// walkErrors calls fn on every error of err's tree.
func walkErrors(err error, fn func(error)) {
	if err == nil {
		return
	}
	fn(err)
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		walkErrors(u.Unwrap(), fn)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			walkErrors(e, fn)
		}
	}
}
