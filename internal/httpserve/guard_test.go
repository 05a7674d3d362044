package httpserve

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// arrivedOn makes r look as if it came in on a connection whose local
// address is local, as net/http records it.
func arrivedOn(r *http.Request, local string) *http.Request {
	addr, err := net.ResolveTCPAddr("tcp", local)
	if err != nil {
		panic(err)
	}
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, addr))
}

func guardAccepts(g *Guard, local, host, origin string) bool {
	r := httptest.NewRequest("POST", "/mcp", nil)
	r.Host = host
	if origin != "" {
		r.Header.Set("Origin", origin)
	}
	if local != "" {
		r = arrivedOn(r, local)
	}
	return g.refusal(r) == ""
}

func TestGuardRefusesARebindingOnLoopback(t *testing.T) {
	g := &Guard{}
	const lo = "127.0.0.1:9000"
	// What a browser sends after evil.example was re-pointed at 127.0.0.1.
	assert.False(t, guardAccepts(g, lo, "evil.example:9000", "http://evil.example:9000"))
	assert.False(t, guardAccepts(g, lo, "evil.example:9000", ""), "Host alone")
	assert.False(t, guardAccepts(g, "[::1]:9000", "evil.example:9000", ""), "IPv6 loopback")
	assert.False(t, guardAccepts(g, lo, "", ""), "no Host")
	assert.False(t, guardAccepts(g, lo, "localhost.evil.example:9000", ""))
	for _, host := range []string{"127.0.0.1:9000", "localhost:9000", "LOCALHOST", "127.5.6.7:1", "[::1]:9000", "localhost"} {
		assert.True(t, guardAccepts(g, lo, host, ""), host)
	}
	// Origin, when present, must name an acceptable host too.
	assert.True(t, guardAccepts(g, lo, "127.0.0.1:9000", "http://localhost:3000"))
	assert.True(t, guardAccepts(g, lo, "127.0.0.1:9000", "http://127.0.0.1:9000"))
	assert.False(t, guardAccepts(g, lo, "127.0.0.1:9000", "https://evil.example"))
	assert.False(t, guardAccepts(g, lo, "127.0.0.1:9000", "null"))
}

func TestGuardAllowedHostsAndOrigins(t *testing.T) {
	g := &Guard{AllowedHosts: []string{"mcp.example", "pinned.example:8443"}, AllowedOrigins: []string{"https://app.example"}}
	const lo = "127.0.0.1:9000"
	assert.True(t, guardAccepts(g, lo, "mcp.example:9000", "https://mcp.example"), "a name with any port")
	assert.True(t, guardAccepts(g, lo, "MCP.example", ""))
	assert.True(t, guardAccepts(g, lo, "pinned.example:8443", ""))
	assert.False(t, guardAccepts(g, lo, "pinned.example:9000", ""), "a name:port with that port only")
	assert.True(t, guardAccepts(g, lo, "localhost:9000", "https://app.example"), "a listed origin")
	assert.False(t, guardAccepts(g, lo, "localhost:9000", "https://other.example"))
	// With hosts listed, the check applies beyond loopback too.
	assert.False(t, guardAccepts(g, "10.0.0.5:9000", "evil.example:9000", ""))
	assert.True(t, guardAccepts(g, "10.0.0.5:9000", "mcp.example:9000", ""))
}

func TestGuardBeyondLoopbackWithoutAllowedHosts(t *testing.T) {
	// A server open to the network is reached under names it cannot
	// guess: the Host is not checked, the Origin as before.
	g := &Guard{}
	assert.True(t, guardAccepts(g, "10.0.0.5:9000", "server.lan:9000", ""))
	assert.True(t, guardAccepts(g, "10.0.0.5:9000", "server.lan:9000", "http://server.lan:9000"), "own host")
	assert.True(t, guardAccepts(g, "10.0.0.5:9000", "server.lan:9000", "http://localhost:3000"))
	assert.False(t, guardAccepts(g, "10.0.0.5:9000", "server.lan:9000", "https://evil.example"))
	// A handler called without a server (no local address) is treated so.
	assert.True(t, guardAccepts(g, "", "example.com", ""))
}

func TestGuardAnswers403AndClosesTheConnection(t *testing.T) {
	reached := false
	ts := httptest.NewServer((&Guard{}).Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })))
	defer ts.Close()
	req, err := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader("{}"))
	require.NoError(t, err)
	req.Host = "evil.example"
	req.Header.Set("Origin", "http://evil.example")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.True(t, resp.Close, "Connection: close")
	assert.Contains(t, string(body), `host \"evil.example\" is not allowed`)
	assert.Contains(t, string(body), `"code":-32600`)
	assert.False(t, reached)
}

// slowPost opens a connection to addr and sends the headers of a POST
// announcing a body of size bytes, then only its first byte: a client
// that trickles its body. It returns the connection, with a generous
// deadline for whatever the test reads.
func slowPost(t *testing.T, addr, path, extraHeaders string, size int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = io.WriteString(c, "POST "+path+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+extraHeaders+
		"Content-Length: "+strconv.Itoa(size)+"\r\n\r\n{")
	require.NoError(t, err)
	return c
}

func TestGuardBoundsTheBody(t *testing.T) {
	// The handler reads the body as the servers do; a body that does not
	// come within the deadline gets 408 and the connection is closed.
	g := &Guard{BodyTimeout: 50 * time.Millisecond}
	ts := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ReadBody(w, r, 1<<20) != nil {
			w.WriteHeader(http.StatusNoContent)
		}
	})))
	defer ts.Close()
	c := slowPost(t, ts.Listener.Addr().String(), "/mcp", "", 1000)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	require.NoError(t, err, "the server answered before the client's deadline")
	assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
	_, _ = io.Copy(io.Discard, resp.Body)
	_, err = c.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the server closed the connection")
}

func TestGuardLiftsTheBodyDeadlineOnceTheBodyIsRead(t *testing.T) {
	// A handler that works for longer than the body deadline after
	// reading the body (a tool call, an SSE answer) is not cut off: the
	// request's context stays alive and the answer arrives.
	g := &Guard{BodyTimeout: 20 * time.Millisecond}
	ts := httptest.NewServer(g.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ReadBody(w, r, 1<<20) == nil {
			return
		}
		timer := time.NewTimer(200 * time.Millisecond) // the work, ten deadlines long
		defer timer.Stop()
		select {
		case <-r.Context().Done():
			w.WriteHeader(http.StatusInternalServerError)
		case <-timer.C:
			w.WriteHeader(http.StatusNoContent)
		}
	})))
	defer ts.Close()
	resp, err := http.Post(ts.URL, "application/json", strings.NewReader("{}"))
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
}
