package mcpengine

import (
	"context"
	"errors"
	"go/ast"
	"go/token"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/mcperr"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/supervisor"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/stdio"
)

// received is one error as the session actors build it (package mcperr's
// values, nested in one another around a transport's errors) and what an
// embedder must be able to match on it with this package's names.
type received struct {
	name  string
	err   error
	is    []error // errors.Is must hold for each
	as    any     // a pointer to a root error type errors.As must fill
	safe  bool    // SafeToRetry
	class supervisor.Decision
	kind  string // ErrorType of the outermost error, "" when it has none
}

func receivedErrors() []received {
	exited := &stdio.ProcessExitedError{Pid: 42, Code: 1, Err: io.EOF}
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	rpc := &messages.WireError{Code: transport.CodeRequestFailed, Message: "request failed"}
	return []received{
		{name: "timeout", err: &mcperr.TimeoutError{Method: "tools/call", After: 1},
			is: []error{ErrTimeout, context.DeadlineExceeded}, as: new(*TimeoutError), class: supervisor.Retry, kind: "timeout"},
		{name: "connection lost to a dead stdio server, its stderr attached",
			err: &mcperr.ConnectionLostError{Cause: &mcperr.ServerStderrError{Cause: exited, Stderr: "boom"}},
			is:  []error{ErrConnectionLost, io.EOF}, as: new(*ServerStderrError), class: supervisor.Retry},
		{name: "closed after a first connect that never reached the server",
			err: &mcperr.ClosedError{Cause: &mcperr.ConnectError{Server: "x", Reason: "refused", Cause: refused}},
			is:  []error{ErrSessionClosed, ErrUnreachable, syscall.ECONNREFUSED}, as: new(*ConnectError), safe: true, class: supervisor.Retry},
		{name: "a first connect out of descriptors",
			err: &mcperr.ConnectError{Local: true, Reason: "r", Cause: &transport.LocalResourceError{Op: "dial", Errno: syscall.EMFILE}},
			is:  []error{ErrLocalResources, syscall.EMFILE}, as: new(*LocalResourceError), safe: true, class: supervisor.Retry, kind: "local_resources"},
		{name: "closed by Close", err: &mcperr.ClosedError{}, is: []error{ErrSessionClosed}, as: new(*ClosedError), class: supervisor.Retry},
		{name: "capability", err: &mcperr.CapabilityError{Method: "tools/list", Capability: "tools"},
			is: []error{ErrCapabilityNotSupported}, as: new(*CapabilityError), safe: true, class: supervisor.Retry, kind: "capability_not_supported"},
		{name: "protocol", err: &mcperr.ProtocolError{Method: "ping", Reason: "r"}, is: []error{ErrProtocol}, as: new(*ProtocolError),
			class: supervisor.Retry, kind: "protocol_error"},
		{name: "version mismatch", err: &mcperr.VersionMismatchError{Offered: "a", Answered: "b"},
			is: []error{ErrVersionMismatch}, as: new(*VersionMismatchError), class: supervisor.RetryBudgeted, kind: "version_mismatch"},
		{name: "no common version", err: &mcperr.NoCommonVersionError{Requested: "a", Supported: []string{"b"}, Cause: rpc},
			is: []error{ErrVersionMismatch, ErrRequestFailed}, as: new(*NoCommonVersionError), class: supervisor.Permanent, kind: "version_mismatch"},
		{name: "not modern", err: &mcperr.NotModernError{Pinned: "p", Cause: rpc},
			is: []error{ErrVersionMismatch, ErrRequestFailed}, as: new(*NotModernError), class: supervisor.Permanent, kind: "version_mismatch"},
		{name: "a handshake refused with 401",
			err: &mcperr.ClosedError{Cause: &mcperr.AuthRefusedError{Status: 401, Reason: "HTTP 401 Unauthorized", Cause: rpc}},
			is:  []error{ErrSessionClosed, ErrUnauthorized, ErrRequestFailed}, as: new(*AuthRefusedError), class: supervisor.Permanent},
		{name: "method not in version", err: &mcperr.MethodNotInVersionError{Method: "ping", Version: "v"},
			is: []error{ErrNotInProtocolVersion}, as: new(*MethodNotInVersionError), safe: true, class: supervisor.Retry, kind: "not_in_protocol_version"},
		{name: "input required", err: &mcperr.InputRequiredError{Method: "m", Rounds: 8},
			is: []error{ErrInputRequired}, as: new(*InputRequiredError), class: supervisor.Retry, kind: "input_required"},
		{name: "no input handler", err: &mcperr.InputRequestError{Method: "m", Key: "k", Request: "r", Err: mcperr.ErrNoInputHandler},
			is: []error{ErrNoInputHandler}, as: new(*InputRequestError), class: supervisor.Retry, kind: "input_request"},
		{name: "a handler's own error", err: &mcperr.InputRequestError{Err: io.ErrUnexpectedEOF},
			is: []error{io.ErrUnexpectedEOF}, as: new(*InputRequestError), class: supervisor.Retry, kind: "input_request"},
		{name: "a JSON-RPC error", err: rpc, is: []error{ErrRequestFailed}, as: new(*RPCError), class: supervisor.Retry},
		{name: "a cancel", err: context.Canceled, is: []error{context.Canceled}, class: supervisor.Permanent},
	}
}

// TestEveryErrorAnEmbedderReceivesMatchesTheRootsNames: what the session
// actors return (package mcperr's values, nested, around a transport's
// errors) matches this package's sentinels and types with errors.Is/As,
// the causes below stay reachable, and SafeToRetry, supervisor.Classify
// and the telemetry class say what they document. A root type declared
// apart from mcperr's again would fail errors.As here.
func TestEveryErrorAnEmbedderReceivesMatchesTheRootsNames(t *testing.T) {
	for _, tc := range receivedErrors() {
		t.Run(tc.name, func(t *testing.T) {
			for _, target := range tc.is {
				if !errors.Is(tc.err, target) {
					t.Errorf("errors.Is(%v, %v) is false", tc.err, target)
				}
			}
			if tc.as != nil && !errors.As(tc.err, tc.as) {
				t.Errorf("errors.As(%v, %T) is false", tc.err, tc.as)
			}
			if got := SafeToRetry(tc.err); got != tc.safe {
				t.Errorf("SafeToRetry = %v, want %v", got, tc.safe)
			}
			if got := supervisor.Classify(tc.err); got != tc.class {
				t.Errorf("supervisor.Classify = %v, want %v", got, tc.class)
			}
			if k, ok := tc.err.(interface{ ErrorType() string }); ok != (tc.kind != "") || ok && k.ErrorType() != tc.kind {
				t.Errorf("ErrorType of %T: has it %v, want %q", tc.err, ok, tc.kind)
			}
		})
	}
}

// TestSentinelsKeepTheirMessagesAndClasses: the messages that docs quote
// and the classes telemetry and the load generator label failures with.
func TestSentinelsKeepTheirMessagesAndClasses(t *testing.T) {
	for _, tc := range []struct {
		err       error
		msg, kind string
	}{
		{ErrConnectionLost, "mcpengine: connection lost", "connection_lost"},
		{ErrSessionClosed, "mcpengine: session closed", "session_closed"},
		{ErrTimeout, "mcpengine: request timed out", "timeout"},
		{ErrTooManyInFlight, "mcpengine: too many requests in flight", "too_many_in_flight"},
		{ErrQueueFull, "mcpengine: wait queue full", "queue_full"},
		{ErrNotReady, "mcpengine: session not ready", "not_ready"},
		{ErrCapabilityNotSupported, "mcpengine: capability not supported by server", "capability_not_supported"},
		{ErrSubscriptionDeclined, "mcpengine: the server declined the subscription", "subscription_declined"},
		{ErrVersionMismatch, "mcpengine: protocol version mismatch", "version_mismatch"},
		{ErrProtocol, "mcpengine: protocol error", "protocol_error"},
		{ErrUnreachable, "mcpengine: server unreachable", "unreachable"},
		{ErrDuplicateName, "mcpengine: a session with this name already exists", "duplicate_name"},
		{ErrUnknownSession, "mcpengine: no session with this name", "unknown_session"},
		{ErrEngineClosed, "mcpengine: engine closed", "engine_closed"},
		{ErrNotInProtocolVersion, "mcpengine: method does not exist in the negotiated protocol version", "not_in_protocol_version"},
		{ErrInputRequired, "mcpengine: the server still requires input after the round limit", "input_required"},
		{ErrNoInputHandler, "mcpengine: no handler installed for this input request", "input_request"},
	} {
		k, _ := tc.err.(interface{ ErrorType() string })
		if tc.err.Error() != tc.msg || k == nil || k.ErrorType() != tc.kind {
			t.Errorf("%q (class %v), want %q (class %q)", tc.err, k, tc.msg, tc.kind)
		}
	}
}

// TestRootReexportsEachLeafDeclaration parses packages mcperr and
// mcpstate and the root: every exported name of the leaves is in the
// root as `Name = leaf.Name` (an alias, a constant or variable holding
// the same value; SafeToRetry a function calling it), so an error or
// state added to a leaf reaches embedders and none is declared twice.
func TestRootReexportsEachLeafDeclaration(t *testing.T) {
	fset := token.NewFileSet()
	reexported := map[string]bool{} // "leaf.Name"
	for _, f := range parsePackage(t, fset, ".") {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Assign.IsValid() {
						if from := leafSelector(s.Type); from == s.Name.Name {
							reexported[leafOf(s.Type)+"."+from] = true
						}
					}
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if i < len(s.Values) && s.Type == nil && leafSelector(s.Values[i]) == n.Name {
							reexported[leafOf(s.Values[i])+"."+n.Name] = true
						}
					}
				}
			}
		}
	}
	reexported["mcperr.SafeToRetry"] = SafeToRetry(&mcperr.ConnectError{}) && !SafeToRetry(io.EOF)
	for _, leaf := range []string{"mcperr", "mcpstate"} {
		for _, name := range exportedNames(t, fset, leaf) {
			if !reexported[leaf+"."+name] {
				t.Errorf("%s.%s is not re-exported by the root as %s = %s.%s", leaf, name, name, leaf, name)
			}
		}
	}
}

// TestActorsDeclaresNoErrorOrStateOfItsOwn: package actors returns the
// leaves' errors and states; it declares no exported error type, error
// variable, or type or value of a leaf's name that an embedder could
// receive instead.
func TestActorsDeclaresNoErrorOrStateOfItsOwn(t *testing.T) {
	fset := token.NewFileSet()
	leafNames := map[string]bool{}
	for _, leaf := range []string{"mcperr", "mcpstate"} {
		for _, name := range exportedNames(t, fset, leaf) {
			leafNames[name] = true
		}
	}
	for _, f := range parsePackage(t, fset, "actors") {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && d.Name.Name == "Error" && ast.IsExported(receiverName(d.Recv)) {
					t.Errorf("%s: actors.%s is an error type of its own", fset.Position(d.Pos()), receiverName(d.Recv))
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					var names []*ast.Ident
					switch s := s.(type) {
					case *ast.TypeSpec:
						names = []*ast.Ident{s.Name}
					case *ast.ValueSpec:
						names = s.Names
					}
					for _, n := range names {
						if n.IsExported() && (leafNames[n.Name] || len(n.Name) > 3 && n.Name[:3] == "Err") {
							t.Errorf("%s: actors declares %s", fset.Position(n.Pos()), n.Name)
						}
					}
				}
			}
		}
	}
	if MaxInputRounds != actors.MaxInputRounds {
		t.Errorf("MaxInputRounds %d, the actors' %d", MaxInputRounds, actors.MaxInputRounds)
	}
}

// leafSelector is Name of an expression leaf.Name, "" otherwise.
func leafSelector(e ast.Expr) string {
	if leafOf(e) == "" {
		return ""
	}
	return e.(*ast.SelectorExpr).Sel.Name
}

func leafOf(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok && (id.Name == "mcperr" || id.Name == "mcpstate") {
			return id.Name
		}
	}
	return ""
}

// exportedNames lists the exported package-level names of dir.
func exportedNames(t *testing.T, fset *token.FileSet, dir string) []string {
	var out []string
	for _, f := range parsePackage(t, fset, dir) {
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					out = append(out, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							out = append(out, s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								out = append(out, n.Name)
							}
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("package %s exports nothing", dir)
	}
	return out
}

func receiverName(recv *ast.FieldList) string {
	typ := recv.List[0].Type
	if s, ok := typ.(*ast.StarExpr); ok {
		typ = s.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
