//go:build linux

package faultsuite

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
)

// Failures no retry can cure (issue 27, item 2): each fails Connect at
// once with a typed error that names the cause once, however long the
// caller's deadline.

// connectFails connects to server with a deadline far beyond the bound
// of "at once", and checks that Connect failed promptly with a
// *ConnectError (or, for want, what errors.As finds) naming reason.
func connectFails(f *fault, server mcpengine.ServerConfig, reason string) error {
	f.t.Helper()
	const d = 2 * requestTimeout
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	start := time.Now()
	s, err := f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "permanent", Server: server})
	took := time.Since(start)
	f.tookErr(took)
	if s != nil {
		f.addSession(s)
	}
	require.Error(f.t, err)
	f.t.Logf("Connect failed after %v: %v", took.Round(time.Millisecond), err)
	assert.ErrorIs(f.t, err, mcpengine.ErrUnreachable)
	assert.ErrorContains(f.t, err, reason)
	assert.Less(f.t, took, slack, "retried a failure no retry cures")
	return err
}

// A 404 at the endpoint path to the first initialize: no MCP endpoint is
// there; Connect fails at once, the status named once.
func TestHTTPNoEndpoint(t *testing.T) {
	f := newFault(t, "http", "404 to the first initialize: *ConnectError (ErrUnreachable) at once, HTTP 404 named once", mcpengine.Config{})
	ts := httptest.NewServer(http.NotFoundHandler())
	f.closeAfterEngine(func(context.Context) error { ts.Close(); return nil })
	err := connectFails(f, httpServer(ts.URL+"/wrong/path"), "HTTP 404 Not Found")
	var ce *mcpengine.ConnectError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusNotFound, ce.Status)
	assert.Equal(t, 1, strings.Count(err.Error(), "404 page not found"), "the reason once")

	// The default type falls back to HTTP+SSE on a 4xx to initialize; a
	// 404 there too is the same verdict.
	err = connectFails(f, mcpengine.ServerConfig{URL: ts.URL + "/wrong/path"}, "HTTP 404 Not Found")
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, http.StatusNotFound, ce.Status)
}

// HTTP/2 prior knowledge (h2c) against a server that speaks only
// HTTP/1.1: Connect fails at once saying so.
func TestH2CAgainstHTTP1Server(t *testing.T) {
	f := newFault(t, "http", "h2c to an HTTP/1.1-only server: *ConnectError at once, \"does not speak h2c\"", mcpengine.Config{})
	ts := httptest.NewServer(http.NotFoundHandler()) // net/http's test server: HTTP/1.1 only
	f.closeAfterEngine(func(context.Context) error { ts.Close(); return nil })
	srv := httpServer(ts.URL + demoserver.PathStreamable)
	srv.HTTP2PriorKnowledge = true
	connectFails(f, srv, "does not speak h2c")
}

// An HTTP/2 server whose SETTINGS allow no stream: Connect fails at once
// instead of waiting for a stream until the deadline.
func TestH2ZeroStreams(t *testing.T) {
	f := newFault(t, "http", "h2c SETTINGS MAX_CONCURRENT_STREAMS 0: *ConnectError at once", mcpengine.Config{})
	srv := httpServer(f.rawServer(func(c net.Conn) {
		preface := make([]byte, len(http2.ClientPreface))
		if _, err := io.ReadFull(c, preface); err != nil {
			return
		}
		fr := http2.NewFramer(c, c)
		if fr.WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0}) != nil {
			return
		}
		for {
			fm, err := fr.ReadFrame()
			if err != nil {
				return
			}
			if sf, ok := fm.(*http2.SettingsFrame); ok && !sf.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		}
	}) + demoserver.PathStreamable)
	srv.HTTP2PriorKnowledge = true
	connectFails(f, srv, "MAX_CONCURRENT_STREAMS 0")
}

// A server that accepts TCP and never speaks: a running network server
// that answered nothing for InitTimeout would do so again, so Connect
// fails after the first InitTimeout (not StartAttempts of them).
func TestHTTPAcceptsAndNeverSpeaks(t *testing.T) {
	const initTimeout = time.Second
	f := newFault(t, "http", "accepts TCP, never speaks: *StartupError after one InitTimeout (1s), not 3", mcpengine.Config{InitTimeout: initTimeout})
	url := f.rawServer(func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) + demoserver.PathStreamable
	ctx, cancel := context.WithTimeout(context.Background(), 2*requestTimeout)
	defer cancel()
	start := time.Now()
	_, err := f.eng.Connect(ctx, mcpengine.SessionConfig{Name: "mute", Server: httpServer(url)})
	took := time.Since(start)
	f.tookErr(took)
	t.Logf("Connect failed after %v: %v", took.Round(time.Millisecond), err)
	var se *mcpengine.StartupError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Attempts)
	assert.ErrorIs(t, err, mcpengine.ErrUnreachable)
	assert.ErrorContains(t, err, "timed out")
	assert.Less(t, took, 2*initTimeout+slack, "waited for more than one initialize timeout")
}

// rawServer accepts TCP connections on loopback and runs serve on each
// until the engine is closed; it returns the base URL.
func (f *fault) rawServer(serve func(net.Conn)) string {
	f.t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(f.t, err)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	// Owner: the fault; exits when the listener is closed after the engine.
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			// Owner: the fault; exits when its connection is closed.
			go func() {
				defer wg.Done()
				defer c.Close()
				serve(c)
			}()
		}
	}()
	f.closeAfterEngine(func(context.Context) error {
		err := ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
		return err
	})
	return "http://" + ln.Addr().String()
}
