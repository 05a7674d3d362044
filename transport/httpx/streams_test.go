package httpx

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Over h2c every request goes on the client's own HTTP/2 connections, and
// one connection carries them all (they are kept between requests);
// HTTP2OverNetHTTP sends them through net/http's HTTP/2 client instead.
func TestHTTP2RequestsGoOnTheClientsOwnConnections(t *testing.T) {
	for _, viaNetHTTP := range []bool{false, true} {
		b := newBurstServer(t)
		c := NewClient(ClientOptions{Proxy: NoProxy, HTTP2PriorKnowledge: true, HTTP2OverNetHTTP: viaNetHTTP})
		for range 3 {
			getAll(t, c, b.srv.URL)
		}
		router, ours := c.Transport.(*streamRouter)
		assert.Equal(t, !viaNetHTTP, ours, "the client's own HTTP/2 connections are in use")
		if ours {
			assert.Equal(t, 1, router.streams.Dials(), "one connection dialed for three requests")
		}
		c.CloseIdleConnections()
		assert.Equal(t, int64(3), b.h2.Load())
		assert.Equal(t, 1, b.connsThatCarriedRequests(), "one connection carried them all")
	}
}

// Without h2c an http:// request stays on HTTP/1.1 (net/http).
func TestHTTP1RequestsStayWithNetHTTP(t *testing.T) {
	b := newBurstServer(t)
	c := NewClient(ClientOptions{Proxy: NoProxy})
	defer c.CloseIdleConnections()
	resp, err := c.Get(b.srv.URL)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, 1, resp.ProtoMajor)
	assert.Equal(t, 0, c.Transport.(*streamRouter).streams.Dials())
}
