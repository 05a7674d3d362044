package mcpengine

import (
	"context"

	"github.com/mcpengine/mcpengine/actors"
	"github.com/mcpengine/mcpengine/messages"
)

// Ping checks that the server answers.
//
// The stateless era (2026-07-28) has no ping: there a session answers
// with a server/discover round trip, the cheapest request every server of
// that era must answer, so that Ping still times the server.
//
// A Ping made before the first handshake ended waits for it (unless
// FailFast), as any call does, but before the request is chosen: only the
// negotiated era says which one it is.
func (s *Session) Ping(ctx context.Context, opts ...CallOption) error {
	if s.Era() == "" && !failsFast(opts) {
		if err := s.WaitReady(ctx); err != nil {
			if ctx.Err() != nil {
				return ctxEndedError(ctx, messages.MethodPing)
			}
			return err
		}
	}
	method := messages.MethodPing
	if s.Era() == EraModern {
		method = messages.MethodServerDiscover
	}
	_, err := s.Call(ctx, method, nil, opts...)
	return err
}

// failsFast reports whether opts include FailFast.
func failsFast(opts []CallOption) bool {
	var c actors.Call
	for _, o := range opts {
		if o.apply != nil {
			o.apply(&c)
		}
	}
	return c.FailFast
}

// Complete asks for completions of a prompt argument or a resource
// template variable.
func (s *Session) Complete(ctx context.Context, params *messages.CompleteParams, opts ...CallOption) (*messages.CompleteResult, error) {
	return decode[messages.CompleteResult](s.Call(ctx, messages.MethodCompletionComplete, params, opts...))
}

// SetLogLevel sets the minimum level of the server's log notifications.
// The level is replayed after every reconnect. A 2026-07-28 session has no
// logging/setLevel: it keeps the level and names it in every later
// request's _meta (messages.MetaLogLevel), without a request of its own.
func (s *Session) SetLogLevel(ctx context.Context, level messages.LoggingLevel) error {
	if _, err := s.Call(ctx, messages.MethodLoggingSetLevel, &messages.SetLevelParams{Level: level}); err != nil {
		return err
	}
	s.h.TrackLogLevel(string(level))
	return nil
}
