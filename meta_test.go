package mcpengine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/schemacheck"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport/stdio"
)

// TestWithMetaIsMergedIntoTheRequestsOneMetaInEitherEra: against engine
// serve over stdio in each era, a call's WithMeta members reach the wire
// inside the request's one params._meta, beside the progress token and,
// in 2026-07-28, the per-request protocol version, client info and
// capabilities the engine splices in; every such frame validates against
// the negotiated version's schema and the server answers it.
func TestWithMetaIsMergedIntoTheRequestsOneMetaInEitherEra(t *testing.T) {
	for _, era := range []string{"legacy", "modern"} {
		t.Run(era, func(t *testing.T) {
			rec := &recorder{}
			e := newEngine(t, mcpengine.Config{})
			ctx := testCtx(t, 30*time.Second)
			dialer := stdio.NewDialer(stdio.Config{Command: engineBin, Args: []string{"serve", "--era", era}})
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "meta", Dialer: recordingDialer{dialer, rec}})
			require.NoError(t, err)
			meta := mcpengine.WithMeta(map[string]any{"com.example/request": "r-1", "attempt": 2})

			res, err := s.CallTool(ctx, "echo", map[string]any{"text": "x"}, meta)
			require.NoError(t, err)
			assert.Equal(t, "x", res.Content[0].Text)
			progressed := make(chan struct{}, 4)
			_, err = s.CallTool(ctx, "progress", map[string]any{"steps": 1, "intervalMs": 0}, meta,
				mcpengine.WithProgress(func(messages.ProgressParams) { progressed <- struct{}{} }))
			require.NoError(t, err)
			<-progressed // the server read the token from the merged _meta

			rec.mu.Lock()
			defer rec.mu.Unlock()
			calls := 0
			for _, frame := range rec.sent {
				if !strings.Contains(string(frame), `"tools/call"`) {
					continue
				}
				calls++
				assert.Equal(t, 1, strings.Count(string(frame), `"_meta"`), "one _meta: %s", frame)
				require.NoError(t, schemacheck.Validate(s.ProtocolVersion(), frame), "%s", frame)
				var req struct {
					Params struct {
						Meta map[string]any `json:"_meta"`
					} `json:"params"`
				}
				require.NoError(t, messages.Unmarshal(frame, &req))
				assert.Equal(t, "r-1", req.Params.Meta["com.example/request"])
				assert.EqualValues(t, 2, req.Params.Meta["attempt"])
				if era == "modern" {
					assert.Equal(t, s.ProtocolVersion(), req.Params.Meta[messages.MetaProtocolVersion])
					assert.Contains(t, req.Params.Meta, messages.MetaClientCapabilities)
				}
			}
			assert.Equal(t, 2, calls)
		})
	}
}

// TestWithMetaLeavesTheEnginesKeysAndRefusesWhatCannotBeEncoded: keys the
// engine writes itself are left out, and a value JSON cannot hold fails
// the call before anything is sent.
func TestWithMetaLeavesTheEnginesKeysAndRefusesWhatCannotBeEncoded(t *testing.T) {
	rec := &recorder{}
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	dialer := stdio.NewDialer(stdio.Config{Command: engineBin, Args: []string{"serve", "--era", "modern"}})
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "meta", Dialer: recordingDialer{dialer, rec}})
	require.NoError(t, err)

	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "x"}, mcpengine.WithMeta(map[string]any{
		messages.MetaProtocolVersion: "1999-01-01", messages.MetaProgressToken: "mine", "kept": true,
	}))
	require.NoError(t, err, "the server saw the engine's protocol version, not the caller's")
	rec.mu.Lock()
	last := string(rec.sent[len(rec.sent)-1])
	rec.mu.Unlock()
	assert.NotContains(t, last, "1999-01-01")
	assert.NotContains(t, last, `"mine"`)
	assert.Contains(t, last, `"kept":true`)

	requests := s.Stats().Requests
	_, err = s.CallTool(ctx, "echo", map[string]any{"text": "x"}, mcpengine.WithMeta(map[string]any{"f": func() {}}))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"f"`)
	assert.Equal(t, requests, s.Stats().Requests, "nothing was handed to the session")
}
