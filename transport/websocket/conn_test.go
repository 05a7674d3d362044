package websocket

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	cws "github.com/coder/websocket"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

func TestFramesRoundTripOnePerTextMessage(t *testing.T) {
	types := make(chan cws.MessageType, 8)
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		ctx := context.Background()
		for {
			typ, b, err := c.Read(ctx)
			if err != nil {
				return
			}
			types <- typ
			if c.Write(ctx, cws.MessageText, b) != nil {
				return
			}
		}
	})
	c := dial(t, ts, Dialer{})

	frames := []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `[{"id":2},{"id":3}]`, "{\"text\":\"a\nb\"}"}
	var in [][]byte
	for _, f := range frames {
		in = append(in, []byte(f))
	}
	require.NoError(t, c.WriteFrames(in...))
	for _, want := range frames {
		got, err := c.ReadFrame()
		require.NoError(t, err)
		assert.Equal(t, want, string(got), "whole messages, in order, newlines carried as is")
		assert.Equal(t, cws.MessageText, <-types)
	}
}

func TestMessagesUpToTheLimitPassAndLongerOnesFail(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, func(ts *testServer, c *cws.Conn) {
		ctx := context.Background()
		_ = c.Write(ctx, cws.MessageText, bytes.Repeat([]byte("a"), 64))
		_ = c.Write(ctx, cws.MessageText, bytes.Repeat([]byte("b"), 65))
		_, _, _ = c.Read(ctx) // until the client goes away
	})
	c := dial(t, ts, Dialer{MaxFrameBytes: 64})

	got, err := c.ReadFrame()
	require.NoError(t, err)
	assert.Len(t, got, 64)

	_, err = c.ReadFrame()
	var tooLarge *transport.FrameTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, 64, tooLarge.Limit)
	_, again := c.ReadFrame()
	assert.Equal(t, err, again, "the connection stays failed")
	assert.NoError(t, c.Close(context.Background()))
}

func TestZeroMaxFrameBytesMeansTheTransportDefault(t *testing.T) {
	// coder/websocket's own default is 32 KiB; MCP tool results are often larger.
	big := bytes.Repeat([]byte("x"), 256<<10)
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		ctx := context.Background()
		_ = c.Write(ctx, cws.MessageText, big)
		_, _, _ = c.Read(ctx)
	})
	c := dial(t, ts, Dialer{})
	got, err := c.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, len(big), len(got))
}

func TestServerCloseIsEOFWhenNormal(t *testing.T) {
	for _, code := range []cws.StatusCode{cws.StatusNormalClosure, cws.StatusGoingAway} {
		t.Run(code.String(), func(t *testing.T) {
			ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
				_ = c.Write(context.Background(), cws.MessageText, []byte(`{"id":1}`))
				_ = c.Close(code, "bye")
			})
			c := dial(t, ts, Dialer{})
			got, err := c.ReadFrame()
			require.NoError(t, err, "messages sent before the close arrive first")
			assert.Equal(t, `{"id":1}`, string(got))
			_, err = c.ReadFrame()
			assert.ErrorIs(t, err, io.EOF)
			_, err = c.ReadFrame()
			assert.ErrorIs(t, err, io.EOF)
			assert.NoError(t, c.Close(context.Background()), "closing after the server did is not an error")
		})
	}
}

func TestServerCloseWithAnErrorStatusIsReported(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		_ = c.Close(cws.StatusInternalError, "database on fire")
	})
	c := dial(t, ts, Dialer{})
	_, err := c.ReadFrame()
	require.Error(t, err)
	assert.NotErrorIs(t, err, io.EOF)
	assert.Equal(t, cws.StatusInternalError, cws.CloseStatus(err))
	assert.Contains(t, err.Error(), "database on fire")
}

func TestConnectionDroppedWithoutCloseFrameIsUnexpectedEOF(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		_ = c.CloseNow() // drops TCP, no close frame
	})
	c := dial(t, ts, Dialer{})
	_, err := c.ReadFrame()
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestBinaryMessageFailsTheConnectionAndCloseSaysUnsupportedData(t *testing.T) {
	closed := make(chan cws.StatusCode, 1)
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		ctx := context.Background()
		_ = c.Write(ctx, cws.MessageBinary, []byte{0xde, 0xad})
		_, _, err := c.Read(ctx)
		closed <- cws.CloseStatus(err)
	})
	var logs syncBuffer
	c := dial(t, ts, Dialer{Logger: slog.New(slog.NewTextHandler(&logs, nil))})

	_, err := c.ReadFrame()
	require.ErrorIs(t, err, ErrBinaryMessage)
	assert.Contains(t, logs.String(), "binary message")
	assert.Contains(t, logs.String(), "bytes=2")
	require.NoError(t, c.Close(context.Background()))
	assert.Equal(t, cws.StatusUnsupportedData, within(t, 5*time.Second, closed))
}

func TestWritesAfterTheServerWentAwayFail(t *testing.T) {
	ts := serve(t, []string{Subprotocol}, func(_ *testServer, c *cws.Conn) {
		_ = c.Close(cws.StatusNormalClosure, "")
	})
	c := dial(t, ts, Dialer{})
	_, err := c.ReadFrame()
	require.ErrorIs(t, err, io.EOF)
	err = c.WriteFrames([]byte(`{"id":1}`))
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "websocket: "), err.Error())
	assert.Equal(t, err, c.WriteFrames([]byte(`{"id":2}`)), "write failures are sticky")
}

// syncBuffer is a bytes.Buffer safe for the logger and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
