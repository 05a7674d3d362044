package demoserver

import (
	"bytes"
	"context"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

func TestExitAfter(t *testing.T) {
	conn, run := serve(t, New(Options{ExitAfter: 3}))
	r := &rawConn{t: t, conn: conn}
	r.initialize() // request 1
	r.send(messages.MethodPing, nil)
	assert.Nil(t, r.readMessage().Error) // request 2
	r.send(messages.MethodPing, nil)
	assert.Nil(t, r.readMessage().Error) // request 3
	r.send(messages.MethodPing, nil)     // request 4: not answered
	r.readEOF()
	require.ErrorIs(t, run.wait(t), ErrExitRequested)
	assert.Equal(t, int64(4), run.srv.Stats().Requests)
}

func TestCloseAfter(t *testing.T) {
	conn, run := serve(t, New(Options{CloseAfter: 1}))
	r := &rawConn{t: t, conn: conn}
	r.initialize()
	r.send(messages.MethodPing, nil)
	r.readEOF()
	require.ErrorIs(t, run.wait(t), ErrCloseRequested)
}

func TestGarbageEvery(t *testing.T) {
	conn, run := serve(t, New(Options{GarbageEvery: 2}))
	r := &rawConn{t: t, conn: conn}
	r.initialize() // response 1
	var frames [][]byte
	for range 3 { // responses 2, 3, 4
		r.send(messages.MethodPing, nil)
	}
	for range 5 {
		frames = append(frames, r.readFrame())
	}
	assert.Equal(t, garbageNotJSON, string(frames[0]))
	assert.False(t, messages.Valid(frames[0]))
	_, err := messages.DecodeMessage(frames[1])
	assert.NoError(t, err)
	_, err = messages.DecodeMessage(frames[2])
	assert.NoError(t, err)
	assert.False(t, utf8.Valid(frames[3]))
	_, err = messages.DecodeMessage(frames[4])
	assert.NoError(t, err)
	for _, f := range frames {
		assert.NotContains(t, string(f), "\n")
	}
	assert.Equal(t, int64(2), run.srv.Stats().GarbageWritten)
}

// syncBuffer is a bytes.Buffer safe for the server's reader and the test.
type syncBuffer struct {
	ch chan struct{}
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.ch <- struct{}{}
	defer func() { <-s.ch }()
	return s.b.Write(p)
}

func TestStderrSpam(t *testing.T) {
	buf := &syncBuffer{ch: make(chan struct{}, 1)}
	c, run := start(t, Options{StderrSpam: 250, Stderr: buf})
	c.result(messages.MethodPing, nil, nil)
	require.NoError(t, c.conn.Close(context.Background()))
	require.NoError(t, run.wait(t))
	assert.Equal(t, 2*250, buf.b.Len())
	assert.Contains(t, buf.b.String(), "demoserver: stderr noise")
}

func TestDelay(t *testing.T) {
	const d = 20 * time.Millisecond
	c, run := start(t, Options{Delay: d})
	begin := time.Now()
	c.result(messages.MethodPing, nil, nil)
	assert.GreaterOrEqual(t, time.Since(begin), d)

	// Delayed requests run concurrently: a long sleep does not hold up a
	// ping, and delayed requests can be cancelled.
	id, ch := c.send(messages.MethodToolsCall, &messages.CallToolParams{Name: "sleep", Arguments: map[string]any{"ms": 3_600_000}})
	c.result(messages.MethodPing, nil, nil)
	c.notify(messages.NotificationCancelled, &messages.CancelledParams{RequestID: messages.NumberID(id)})
	awaitStats(t, run.srv, func(s Stats) bool { return s.CancelledCalls == 1 })
	select {
	case m := <-ch:
		t.Fatalf("cancelled call answered: %+v", m)
	default:
	}
}

func TestWriteFailureEndsSession(t *testing.T) {
	srv := New(Options{})
	cconn, sconn := newConnPair()
	done := make(chan error, 1)
	// Owner: the test; exits when Serve returns, awaited below.
	go func() { done <- srv.Serve(context.Background(), sconn) }()
	r := &rawConn{t: t, conn: cconn}
	r.send(messages.MethodPing, nil)
	require.NoError(t, cconn.Close(context.Background()))
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatal("Serve did not return")
	}
}
