package mcpengine_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// Over Streamable HTTP a waiting caller sends its own POST; when its ctx
// is cancelled while the server works on the request, Call returns
// context.Canceled at once, the server is told as the era says
// (notifications/cancelled in 2025-11-25; in 2026-07-28, which has no
// client notifications over HTTP, the request's stream is closed), and the
// session goes on.
func TestHTTPCallReturnsWhenItsCtxIsCancelledMidRequest(t *testing.T) {
	for _, version := range []string{messages.Version20251125, messages.Version20260728} {
		t.Run(version, func(t *testing.T) {
			srv := demoserver.New(demoserver.Options{})
			h := srv.StreamableHandler(demoserver.HTTPOptions{})
			sleeping := make(chan struct{}, 1)
			told := make(chan struct{}, 2)
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method != http.MethodPost {
					h.ServeHTTP(w, r)
					return
				}
				body, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(body))
				switch {
				case bytes.Contains(body, []byte(`"name":"sleep"`)):
					sleeping <- struct{}{}
					h.ServeHTTP(w, r)
					if version == messages.Version20260728 && r.Context().Err() != nil {
						told <- struct{}{} // the stream was closed
					}
					return
				case bytes.Contains(body, []byte(`"notifications/cancelled"`)):
					told <- struct{}{}
				}
				h.ServeHTTP(w, r)
			}))
			t.Cleanup(func() {
				_ = h.Close(context.Background())
				ts.Close()
			})
			e := newEngine(t, mcpengine.Config{ProtocolVersion: version})
			ctx := testCtx(t, 20*time.Second)
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "cancel", Server: mcpengine.ServerConfig{URL: ts.URL + "/mcp", Type: "streamable-http"}})
			require.NoError(t, err)

			cctx, cancel := context.WithCancel(ctx)
			errc := make(chan error, 1)
			go func() { // owned by the test: Call returns once cancelled
				_, err := s.CallTool(cctx, "sleep", map[string]any{"ms": 3_600_000})
				errc <- err
			}()
			select {
			case <-sleeping:
			case <-ctx.Done():
				t.Fatal("the server never got the call")
			}
			cancel()
			select {
			case err := <-errc:
				assert.True(t, errors.Is(err, context.Canceled), "%v", err)
			case <-ctx.Done():
				t.Fatal("the caller was not released by its ctx")
			}
			select {
			case <-told:
			case <-ctx.Done():
				t.Fatal("the server was not told of the cancellation")
			}
			res, err := s.CallTool(ctx, "echo", map[string]any{"text": "after"})
			require.NoError(t, err)
			assert.False(t, res.IsError)
			assert.Equal(t, mcpengine.StateReady, s.State())
		})
	}
}
