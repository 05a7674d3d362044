//go:build linux

package faultsuite

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
)

// Hostile clients of our own HTTP servers (engine serve --transport http,
// the gateway): a web page after a DNS rebinding, a client that trickles
// its body, a client without a token that sends a body it never finishes.
// Time to error runs from the client's first byte to the server's
// refusal (or to the connection's end); the leak check then finds every
// connection closed (descriptors back) and nothing left running.

// demoListen serves the demo server on a loopback port with o, closed
// after the engine; it returns the base URL.
func (f *fault) demoListen(o demoserver.HTTPOptions) string {
	f.t.Helper()
	hs, err := demoserver.New(demoOptions()).ListenHTTP("127.0.0.1:0", o)
	require.NoError(f.t, err)
	f.closeAfterEngine(hs.Close)
	return hs.URL
}

// hostileConn dials addr and sends request headers (and whatever else
// of the request the test wants), with a deadline far past any bound.
func hostileConn(t *testing.T, addr, head string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(requestTimeout)))
	_, err = io.WriteString(c, head)
	require.NoError(t, err)
	return c
}

// answerThenEnd reads c's one answer and then the end of the connection
// (its close, or a reset: a client still sending when the server closes
// gets one), returning the status.
func answerThenEnd(c net.Conn) (int, error) {
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	if _, err := c.Read(make([]byte, 1)); err != io.EOF && !errors.Is(err, syscall.ECONNRESET) {
		return resp.StatusCode, err
	}
	return resp.StatusCode, nil
}

// concurrently runs n hostile clients, each returning when it has its
// outcome, and records each one's time to it.
func (f *fault) concurrently(n int, client func(i int) error) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		// Owner: concurrently; exits when the client has its outcome (each
		// connection has a deadline).
		go func() {
			defer wg.Done()
			start := time.Now()
			err := client(i)
			d := time.Since(start)
			f.tookErr(d)
			assert.NoError(f.t, err, "client %d", i)
			assert.Less(f.t, d, slack, "client %d was refused late", i)
		}()
	}
	wg.Wait()
}

// A page of evil.example re-pointed at 127.0.0.1 (Host and Origin
// evil.example:PORT) is refused with 403 at once, on initialize and on
// the legacy stream, and its connection closed.
func TestHttpRebindingHost(t *testing.T) {
	f := newFault(t, "http", "client: Host/Origin evil.example:PORT on loopback: 403 at once, connection closed", mcpengine.Config{})
	base := f.demoListen(demoserver.HTTPOptions{})
	addr := strings.TrimPrefix(base, "http://")
	evil := "evil.example:" + addr[strings.LastIndex(addr, ":")+1:]
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"page","version":"0"}}}`
	f.concurrently(scale(20, 200), func(i int) error {
		head := "GET /sse HTTP/1.1\r\nHost: " + evil + "\r\nOrigin: http://" + evil + "\r\nAccept: text/event-stream\r\n\r\n"
		if i%2 == 0 {
			head = "POST /mcp HTTP/1.1\r\nHost: " + evil + "\r\nOrigin: http://" + evil + "\r\nContent-Type: application/json\r\n" +
				"Accept: application/json, text/event-stream\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
		}
		status, err := answerThenEnd(hostileConn(t, addr, head))
		assert.Equal(t, http.StatusForbidden, status)
		return err
	})
}

// Clients that send their headers and then trickle the body a byte at a
// time get 408 once the body deadline passes, however often they send,
// and their connections are closed (before: 300 such connections were
// all still open after 40 s).
func TestHttpSlowBody(t *testing.T) {
	const bodyTimeout = 200 * time.Millisecond
	f := newFault(t, "http", "client: body trickled a byte at a time: 408 at the body deadline (200ms here), connection closed", mcpengine.Config{})
	addr := strings.TrimPrefix(f.demoListen(demoserver.HTTPOptions{BodyTimeout: bodyTimeout}), "http://")
	f.concurrently(scale(30, 300), func(int) error {
		c := hostileConn(t, addr, "POST /mcp HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{")
		ctx, stop := context.WithCancel(context.Background())
		defer stop()
		// The hostile client: a byte every 20ms until the server hangs up.
		go func() { // owner: this client; exits when its context ends or a write fails
			tick := time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}
		}()
		status, err := answerThenEnd(c)
		assert.Equal(t, http.StatusRequestTimeout, status)
		return err
	})
}

// A gateway client without a token (or with a wrong one) that sends its
// headers and never its body gets 401 at once, before the body, and its
// connection is closed (before: no answer until the body had come).
func TestHttpNoTokenBody(t *testing.T) {
	f := newFault(t, "http", "client: no token, body never sent (gateway): 401 at once, connection closed", mcpengine.Config{})
	g, err := gateway.New(f.ctx(requestTimeout), gateway.Config{
		Servers: map[string]gateway.Server{"demo": {Target: httpServer(f.demoHTTP(demoserver.HTTPOptions{}))}},
		Clients: []gateway.Client{{Name: "ci", Token: "ci-token-0123456789abcdef"}},
		Engine:  mcpengine.Config{Backoff: fastBackoff},
	})
	require.NoError(t, err)
	f.closeAfterEngine(g.Close)
	hs, err := g.Listen("127.0.0.1:0", gateway.ListenOptions{})
	require.NoError(t, err)
	addr := strings.TrimPrefix(hs.URL, "http://")
	paths := []string{gateway.PathMCP, gateway.PathRoute, gateway.PathMessage + "?sessionId=x"}
	f.concurrently(scale(30, 300), func(i int) error {
		auth := ""
		if i%2 == 1 {
			auth = "Authorization: Bearer wrong-token-0123456789\r\n"
		}
		c := hostileConn(t, addr, "POST "+paths[i%len(paths)]+" HTTP/1.1\r\nHost: "+addr+"\r\nContent-Type: application/json\r\n"+
			"Accept: application/json, text/event-stream\r\n"+auth+"Content-Length: 100000\r\n\r\n{")
		status, err := answerThenEnd(c)
		assert.Equal(t, http.StatusUnauthorized, status)
		return err
	})
}
