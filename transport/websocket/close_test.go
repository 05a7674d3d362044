package websocket

import (
	"bytes"
	"context"
	"testing"
	"time"

	cws "github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestCloseUnblocksAPendingReadAndSendsANormalClose(t *testing.T) {
	closed := make(chan cws.StatusCode, 1)
	ts := serve(t, []string{Subprotocol}, echo(closed))
	c := dial(t, ts, Dialer{})

	read := readAsync(c)
	require.NoError(t, c.Close(context.Background()))
	assert.ErrorIs(t, within(t, 5*time.Second, read).err, transport.ErrClosed)
	assert.Equal(t, cws.StatusNormalClosure, within(t, 5*time.Second, closed))

	_, err := c.ReadFrame()
	assert.ErrorIs(t, err, transport.ErrClosed)
	assert.ErrorIs(t, c.WriteFrames([]byte(`{}`)), transport.ErrClosed)
	assert.NoError(t, c.Close(context.Background()), "Close is idempotent")
}

func TestCloseIsBoundedByItsContext(t *testing.T) {
	// A server that never reads never answers the close frame: the library
	// alone would wait 5 s for it.
	ts := serve(t, []string{Subprotocol}, func(ts *testServer, _ *cws.Conn) { <-ts.stop })
	c := dial(t, ts, Dialer{})
	read := readAsync(c)

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := c.Close(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
	assert.ErrorIs(t, within(t, 5*time.Second, read).err, transport.ErrClosed)
	assert.Equal(t, err, c.Close(context.Background()), "later calls return the first result")
}

func TestCloseWithoutAReaderIsBoundedToo(t *testing.T) {
	// Nobody reads on the client either: the close handshake itself waits
	// for the server's answer.
	ts := serve(t, []string{Subprotocol}, func(ts *testServer, _ *cws.Conn) { <-ts.stop })
	c := dial(t, ts, Dialer{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	assert.ErrorIs(t, c.Close(ctx), context.DeadlineExceeded)
	assert.Less(t, time.Since(start), 2*time.Second)
}

func TestCloseUnblocksAPendingWrite(t *testing.T) {
	// The server never reads: writes block once the socket buffers are full.
	ts := serve(t, []string{Subprotocol}, func(ts *testServer, _ *cws.Conn) { <-ts.stop })
	c := dial(t, ts, Dialer{})

	chunk := bytes.Repeat([]byte("x"), 256<<10)
	wrote := make(chan struct{}, 1)
	result := make(chan error, 1)
	// Owner: this test, which receives from result. Exits when a write
	// fails, which Close below guarantees.
	go func() {
		for {
			if err := c.WriteFrames(chunk); err != nil {
				result <- err
				return
			}
			select {
			case wrote <- struct{}{}:
			default:
			}
		}
	}()
	within(t, 5*time.Second, wrote)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_ = c.Close(ctx)
	assert.ErrorIs(t, within(t, 5*time.Second, result), transport.ErrClosed)
}
