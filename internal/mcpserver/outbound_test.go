package mcpserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/messages"
)

// sent collects the frames a Call sends, for the test to answer.
type sent chan []byte

func (s sent) send(f []byte) { s <- f }

func TestOutboundCallGetsTheClientsAnswer(t *testing.T) {
	var o Outbound
	frames := make(sent, 4)
	done := make(chan struct{})
	var res messages.RawMessage
	var err error
	go func() { // owner: this test; exits when Call returns
		defer close(done)
		res, err = o.Call(context.Background(), frames.send, messages.MethodRootsList, nil, time.Hour, nil)
	}()
	req, derr := messages.DecodeMessage(<-frames)
	require.NoError(t, derr)
	assert.Equal(t, messages.MethodRootsList, req.Method)
	assert.False(t, o.Answer(&messages.Message{ID: messages.NumberID(99), Result: messages.RawMessage(`{}`)}), "an id nobody waits for")
	require.True(t, o.Answer(&messages.Message{ID: req.ID, Result: messages.RawMessage(`{"roots":[]}`)}))
	<-done
	require.NoError(t, err)
	assert.JSONEq(t, `{"roots":[]}`, string(res))
	assert.False(t, o.Answer(&messages.Message{ID: req.ID, Result: messages.RawMessage(`{}`)}), "answered once")
}

func TestOutboundCallReturnsTheClientsError(t *testing.T) {
	var o Outbound
	frames := make(sent, 4)
	done := make(chan error)
	go func() { // owner: this test; exits when Call returns
		_, err := o.Call(context.Background(), frames.send, messages.MethodRootsList, nil, time.Hour, nil)
		done <- err
	}()
	req, _ := messages.DecodeMessage(<-frames)
	o.Answer(&messages.Message{ID: req.ID, Error: &messages.WireError{Code: -1, Message: "no"}})
	var werr *messages.WireError
	require.ErrorAs(t, <-done, &werr)
	assert.Equal(t, "no", werr.Message)
}

func TestOutboundCallCancelledTellsTheClient(t *testing.T) {
	var o Outbound
	frames := make(sent, 4)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { // owner: this test; exits when Call returns
		_, err := o.Call(ctx, frames.send, messages.MethodRootsList, nil, time.Hour, nil)
		done <- err
	}()
	req, _ := messages.DecodeMessage(<-frames)
	cancel()
	require.ErrorIs(t, <-done, context.Canceled)
	n, err := messages.DecodeMessage(<-frames)
	require.NoError(t, err)
	assert.Equal(t, messages.NotificationCancelled, n.Method)
	var p messages.CancelledParams
	require.NoError(t, messages.Unmarshal(n.Params, &p))
	assert.Equal(t, req.ID, p.RequestID)
}

func TestOutboundCallTimesOut(t *testing.T) {
	var o Outbound
	frames := make(sent, 4)
	_, err := o.Call(context.Background(), frames.send, messages.MethodRootsList, nil, time.Nanosecond, nil)
	require.ErrorIs(t, err, ErrClientTimeout)
	assert.Len(t, frames, 2, "the request, then notifications/cancelled")
}

func TestOutboundCallEndsWithItsSession(t *testing.T) {
	var o Outbound
	ended := make(chan struct{})
	close(ended)
	frames := make(sent, 4)
	_, err := o.Call(context.Background(), frames.send, messages.MethodRootsList, nil, time.Hour, ended)
	require.ErrorIs(t, err, ErrSessionEnded)
	assert.Empty(t, frames, "nothing is sent for an ended session")
}

func TestOutboundCallWithoutTimeoutWaitsForItsSession(t *testing.T) {
	var o Outbound
	ended := make(chan struct{})
	frames := make(sent, 4)
	done := make(chan error)
	go func() { // owner: this test; exits when Call returns
		_, err := o.Call(context.Background(), frames.send, messages.MethodRootsList, nil, 0, ended)
		done <- err
	}()
	<-frames // sent, and waiting with no timer
	close(ended)
	require.ErrorIs(t, <-done, ErrSessionEnded)
}
