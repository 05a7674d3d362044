package streamable

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
)

// legacyServer is a 2024-11-05 HTTP+SSE server at /mcp: POST there is
// refused with status, GET opens the stream, and POSTs to the announced
// endpoint are acknowledged with 202 and answered on the stream.
func legacyServer(t *testing.T, status int) (*httptest.Server, *http.Client) {
	t.Helper()
	out := make(chan []byte, 16)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mcp", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(status) })
	mux.HandleFunc("GET /mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		fmt.Fprint(w, "event: endpoint\ndata: /messages?sessionId=legacy-1\n\n")
		fl.Flush()
		for {
			select {
			case f := <-out:
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", f)
				fl.Flush()
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("POST /messages", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("sessionId") != "legacy-1" {
			http.NotFound(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		m, err := messages.DecodeMessage(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		switch {
		case m.Method == messages.MethodInitialize:
			out <- initializeResult(m.ID, messages.Version20241105)
		case m.Kind == messages.KindRequest:
			out <- result(m.ID, `{"via":"legacy"}`)
		}
	})
	srv := httptest.NewServer(mux)
	client := httpx.NewClient(httpx.ClientOptions{Proxy: httpx.NoProxy})
	t.Cleanup(func() {
		client.CloseIdleConnections()
		srv.CloseClientConnections()
		srv.Close()
	})
	return srv, client
}

func TestFallbackToLegacySSEIsTransparent(t *testing.T) {
	for _, status := range []int{http.StatusBadRequest, http.StatusNotFound, http.StatusMethodNotAllowed} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			srv, client := legacyServer(t, status)
			c, err := (&Dialer{URL: srv.URL + "/mcp", Client: client, FallbackToSSE: true}).Dial(t.Context())
			require.NoError(t, err)
			col := newCollector()
			c.(transport.RequestConn).Start(col.deliver, col.fail)
			defer c.Close(t.Context())

			require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
			init := col.next(t)
			assert.Equal(t, messages.NumberID(0), init.ID)
			assert.Contains(t, string(init.Result), messages.Version20241105)

			c.(transport.RequestConn).Negotiated(transport.SessionInfo{ProtocolVersion: messages.Version20241105, Listen: true})
			require.NoError(t, c.WriteFrames(notification(messages.NotificationInitialized), request(1, "tools/list")))
			m := col.next(t)
			assert.Equal(t, messages.NumberID(1), m.ID)
			assert.JSONEq(t, `{"via":"legacy"}`, string(m.Result))
			assert.Zero(t, col.nfail.Load())
		})
	}
}

func TestWithoutFallbackARefusedInitializeIsAnErrorAnswer(t *testing.T) {
	srv, client := legacyServer(t, http.StatusMethodNotAllowed)
	c, err := (&Dialer{URL: srv.URL + "/mcp", Client: client}).Dial(t.Context())
	require.NoError(t, err)
	col := newCollector()
	c.(transport.RequestConn).Start(col.deliver, col.fail)
	defer c.Close(t.Context())
	require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
	f := failureOf(t, col.next(t))
	assert.Equal(t, http.StatusMethodNotAllowed, f.Status)
}

func TestFailedFallbackReportsBothAttempts(t *testing.T) {
	s := newServer(t)
	s.handle(http.MethodPost, func(w http.ResponseWriter, _ *http.Request, _ seen) { w.WriteHeader(http.StatusBadRequest) })
	s.handle(http.MethodGet, func(w http.ResponseWriter, _ *http.Request, _ seen) { w.WriteHeader(http.StatusNotFound) })
	c, col := dial(t, s, &Dialer{FallbackToSSE: true})
	require.NoError(t, c.WriteFrames(request(0, messages.MethodInitialize)))
	f := failureOf(t, col.next(t))
	assert.Equal(t, http.StatusBadRequest, f.Status)
	assert.Contains(t, f.Reason, "fallback failed")
	assert.Contains(t, f.Reason, "404")
}
