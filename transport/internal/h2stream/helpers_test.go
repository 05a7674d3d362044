package h2stream

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// h2cServer serves h over prior-knowledge h2c only, with at most
// maxStreams concurrent streams per connection (0: net/http's default),
// and returns its base URL. The server is closed when the test ends.
func h2cServer(t *testing.T, h http.Handler, maxStreams uint32) (string, *http.Server) {
	t.Helper()
	var protos http.Protocols
	protos.SetUnencryptedHTTP2(true)
	srv := &http.Server{Handler: h, Protocols: &protos,
		HTTP2: &http.HTTP2Config{MaxConcurrentStreams: int(maxStreams)}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // Owner: the test. Exits when srv is closed (cleanup).
		defer wg.Done()
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		wg.Wait()
	})
	return "http://" + ln.Addr().String(), srv
}

// tlsServer serves h over TLS with HTTP/2 (h2 by ALPN) when h2, HTTP/1.1
// only otherwise, and returns the server and a TLS configuration that
// trusts it.
func tlsServer(t *testing.T, h http.Handler, h2 bool) (*httptest.Server, *tls.Config) {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	cfg := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	return srv, cfg
}

// eventsHandler answers with an event stream: n events "data: i" each
// flushed, then holds the stream open until the request ends when hold.
func eventsHandler(n int, hold bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		fl := w.(http.Flusher)
		for i := range n {
			_, _ = io.WriteString(w, "data: "+strconv.Itoa(i)+"\n\n")
			fl.Flush()
		}
		if hold {
			<-r.Context().Done()
		}
	}
}

// readEvents reads n events' data lines from body.
func readEvents(body io.Reader, n int) ([]string, error) {
	br := bufio.NewReader(body)
	var got []string
	for len(got) < n {
		line, err := br.ReadString('\n')
		if err != nil {
			return got, err
		}
		if data, ok := strings.CutPrefix(strings.TrimSuffix(line, "\n"), "data: "); ok {
			got = append(got, data)
		}
	}
	return got, nil
}

// get sends a GET for path through tr with ctx.
func get(ctx context.Context, tr http.RoundTripper, base, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	return tr.RoundTrip(req)
}

func testCtx(t *testing.T) context.Context { return testkit.Ctx(t, 30*time.Second) }

// newTestTransport returns a Transport closed when the test ends.
func newTestTransport(t *testing.T, o Options) *Transport {
	tr := New(o)
	t.Cleanup(tr.Close)
	return tr
}

// isConnError reports whether err is a connection failure.
func isConnError(err error) bool {
	var ce *ConnError
	return errors.As(err, &ce)
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

// openStreams opens n streams of base's "/" and reads the first event of
// each, so that every one is open on the server's side too.
func openStreams(t *testing.T, ctx context.Context, tr http.RoundTripper, base string, n int) []io.ReadCloser {
	t.Helper()
	var bodies []io.ReadCloser
	for range n {
		resp, err := get(ctx, tr, base, "/")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := readEvents(resp.Body, 1); err != nil {
			t.Fatal(err)
		}
		bodies = append(bodies, resp.Body)
	}
	return bodies
}
