package httpcore

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingConn counts the writes made on a client connection.
type countingConn struct {
	net.Conn
	writes *atomic.Int32
}

func (c countingConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

func TestNewPostGoesOutInOneWriteWithItsHeaders(t *testing.T) {
	var got struct {
		body, host, agent, ctype, accept, custom string
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got.body, got.host = string(b), r.Host
		got.agent, got.ctype, got.accept, got.custom = r.UserAgent(), r.Header.Get("Content-Type"), r.Header.Get("Accept"), r.Header.Get("X-Custom")
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	var writes atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return countingConn{c, &writes}, nil
	}}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	u, err := url.Parse(srv.URL + "/mcp")
	require.NoError(t, err)

	for i := range 2 { // the second on the kept-alive connection
		var body Body
		frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		req := NewPost(context.Background(), u, http.Header{"X-Custom": {"v"}}, 0, &body, frame)
		before := writes.Load()
		resp, err := client.Do(req)
		require.NoError(t, err)
		Discard(resp.Body)
		assert.Equal(t, int32(1), writes.Load()-before, "request %d: headers and body in one write", i)
		assert.Equal(t, string(frame), got.body)
		assert.Equal(t, u.Host, got.host)
		assert.Equal(t, u.Host, req.Host, "as http.NewRequest sets it")
		assert.Equal(t, "mcpengine", got.agent)
		assert.Equal(t, "application/json", got.ctype)
		assert.Equal(t, "application/json, text/event-stream", got.accept)
		assert.Equal(t, "v", got.custom)
		rewound, err := req.GetBody()
		require.NoError(t, err)
		again, _ := io.ReadAll(rewound)
		assert.Equal(t, string(frame), string(again), "GetBody rewinds, so net/http can send it again")
	}
}

func TestNewPostRewindsTheWholeFrameWhateverTheFirstBodyRead(t *testing.T) {
	u, err := url.Parse("http://example.com/mcp")
	require.NoError(t, err)
	var body Body
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	req := NewPost(context.Background(), u, nil, 0, &body, frame)
	head := make([]byte, 5)
	_, err = io.ReadFull(req.Body, head)
	require.NoError(t, err)

	rewound, err := req.GetBody()
	require.NoError(t, err)
	again, err := io.ReadAll(rewound)
	require.NoError(t, err)
	assert.Equal(t, string(frame), string(again))
	rest, err := io.ReadAll(req.Body)
	require.NoError(t, err)
	assert.Equal(t, string(frame), string(head)+string(rest), "the first body reads on from where it was")
}
