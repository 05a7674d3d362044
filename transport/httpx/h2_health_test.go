package httpx

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// silentH2C is an h2c server (prior knowledge) for what net/http's server
// never does: after its SETTINGS and one stream's response headers it goes
// silent. With read it keeps reading (and drops what it reads, PINGs
// included); without, it reads nothing more at all. It returns the URL.
func silentH2C(t *testing.T, read bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() { // Owner: the test. Exits when the listener closes (cleanup).
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
			go func() { // Owner: the test. Exits when its connection is closed.
				defer wg.Done()
				serveSilently(c, read, done)
			}()
		}
	}()
	t.Cleanup(func() {
		close(done)
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String() + "/"
}

func serveSilently(c net.Conn, read bool, done <-chan struct{}) {
	defer c.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil {
		return
	}
	fr := http2.NewFramer(c, c)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	// Windows as large as the protocol allows: what stops the client is
	// the socket, not flow control.
	_ = fr.WriteSettings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
	_ = fr.WriteWindowUpdate(0, 1<<31-1-65535)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			var hbuf bytes.Buffer
			enc := hpack.NewEncoder(&hbuf)
			_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			_ = enc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/event-stream"})
			_ = fr.WriteHeaders(http2.HeadersFrameParam{StreamID: f.StreamID, BlockFragment: hbuf.Bytes(), EndHeaders: true})
			if !read {
				<-done
				return
			}
			for { // silent: reads and answers nothing, PINGs included
				if _, err := fr.ReadFrame(); err != nil {
					return
				}
			}
		}
	}
}

// A stream whose server went silent (its connection alive, PINGs
// unanswered) fails once the health-check PING goes unanswered
// (HTTP2PingAfter, HTTP2PingTimeout), not when the caller gives up.
func TestAnUnansweredPingFailsTheConnectionsStreams(t *testing.T) {
	url := silentH2C(t, true)
	c := NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true,
		HTTP2PingAfter: 50 * time.Millisecond, HTTP2PingTimeout: 50 * time.Millisecond})
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	require.Error(t, err)
	assert.NoError(t, ctx.Err(), "the stream ended with the caller's ctx, not the health check: %v", err)
}

// A server that stops reading while a request's body is being written is
// left after HTTP2WriteTimeout: the connection closes and the request
// fails, instead of waiting for the caller's deadline.
func TestAServerThatStopsReadingFailsItsRequestsAfterTheWriteTimeout(t *testing.T) {
	url := silentH2C(t, false)
	c := NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true, HTTP2WriteTimeout: 100 * time.Millisecond})
	defer c.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// Larger than any loopback socket's buffers: the write blocks.
	body := strings.Repeat("x", 64<<20)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	resp, err := c.Do(req)
	if err == nil {
		_, err = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	require.Error(t, err)
	assert.NoError(t, ctx.Err(), "the request ended with the caller's ctx, not the write timeout: %v", err)
}
