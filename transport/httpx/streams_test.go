package httpx

import (
	"context"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// getLongLived sends a GET marked LongLived through c and reads it.
func getLongLived(t *testing.T, c *http.Client, url string) {
	t.Helper()
	req, err := http.NewRequestWithContext(LongLived(context.Background()), http.MethodGet, url, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	assert.Equal(t, 2, resp.ProtoMajor)
}

// Over h2c a request marked LongLived goes on the stream connections (a
// connection of their own beside net/http's), every other request through
// net/http; StreamsOverNetHTTP sends both through net/http.
func TestLongLivedRequestsGoOnTheStreamConnections(t *testing.T) {
	b := newBurstServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true})
	getAll(t, c, b.srv.URL)
	getLongLived(t, c, b.srv.URL)
	getAll(t, c, b.srv.URL)
	c.CloseIdleConnections()
	assert.Equal(t, int64(3), b.h2.Load())
	assert.Equal(t, 2, b.connsThatCarriedRequests(), "net/http's connection and the stream connection")

	b = newBurstServer(t)
	c = NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true, StreamsOverNetHTTP: true})
	defer c.CloseIdleConnections()
	getAll(t, c, b.srv.URL)
	getLongLived(t, c, b.srv.URL)
	assert.Equal(t, 1, b.connsThatCarriedRequests(), "everything through net/http")
}

// Without h2c an http:// long-lived request stays on HTTP/1.1 (net/http).
func TestLongLivedRequestsOverHTTP1StayWithNetHTTP(t *testing.T) {
	b := newBurstServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy})
	defer c.CloseIdleConnections()
	req, err := http.NewRequestWithContext(LongLived(context.Background()), http.MethodGet, b.srv.URL, nil)
	require.NoError(t, err)
	resp, err := c.Do(req)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 1, resp.ProtoMajor)
}
