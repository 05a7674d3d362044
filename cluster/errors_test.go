package cluster

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/mcpengine/mcpengine"
)

// TestErrorsCrossMembersTyped encodes errors as an owner sends them and
// decodes them as the caller gets them.
func TestErrorsCrossMembersTyped(t *testing.T) {
	roundTrip := func(err error) error { return decodeError("tools/call", encodeError(err)) }

	t.Run("JSON-RPC error", func(t *testing.T) {
		got := roundTrip(fmt.Errorf("wrapped: %w", &mcpengine.RPCError{Code: -32602, Message: "bad params", Data: []byte(`{"x":1}`)}))
		var rpc *mcpengine.RPCError
		if !errors.As(got, &rpc) || rpc.Code != -32602 || rpc.Message != "bad params" || string(rpc.Data) != `{"x":1}` {
			t.Fatalf("got %T %v", got, got)
		}
	})
	t.Run("connection lost", func(t *testing.T) {
		got := roundTrip(&mcpengine.ConnectionLostError{Cause: errors.New("EOF")})
		var cl *mcpengine.ConnectionLostError
		if !errors.Is(got, mcpengine.ErrConnectionLost) || !errors.As(got, &cl) || mcpengine.SafeToRetry(got) {
			t.Fatalf("got %T %v (safe to retry %v)", got, got, mcpengine.SafeToRetry(got))
		}
	})
	t.Run("owner lost", func(t *testing.T) {
		got := ownerLost("the owner died")
		if !errors.Is(got, mcpengine.ErrConnectionLost) || mcpengine.SafeToRetry(got) {
			t.Fatalf("got %T %v", got, got)
		}
	})
	t.Run("timeout", func(t *testing.T) {
		got := roundTrip(&mcpengine.TimeoutError{Method: "tools/call"})
		if !errors.Is(got, mcpengine.ErrTimeout) || !errors.Is(got, context.DeadlineExceeded) {
			t.Fatalf("got %T %v", got, got)
		}
	})
	t.Run("sentinel classes keep SafeToRetry", func(t *testing.T) {
		for _, tc := range []struct {
			err, sentinel error
			safe          bool
		}{
			{&mcpengine.ClosedError{}, mcpengine.ErrSessionClosed, false},
			{mcpengine.ErrNotReady, mcpengine.ErrNotReady, true},
			{mcpengine.ErrQueueFull, mcpengine.ErrQueueFull, true},
			{fmt.Errorf("%w: demo", ErrUnknownServer), ErrUnknownServer, true},
		} {
			got := roundTrip(tc.err)
			var re *RemoteError
			if !errors.As(got, &re) || !errors.Is(got, tc.sentinel) {
				t.Errorf("%v: got %T %v", tc.err, got, got)
			}
			if mcpengine.SafeToRetry(got) != tc.safe {
				t.Errorf("%v: SafeToRetry %v, want %v", tc.err, mcpengine.SafeToRetry(got), tc.safe)
			}
		}
	})
}
