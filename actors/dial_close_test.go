package actors

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

// closeRecorder is a connection that only records whether it was closed.
type closeRecorder struct {
	closed atomic.Bool
	done   chan struct{}
}

func (c *closeRecorder) ReadFrame() ([]byte, error) {
	<-c.done
	return nil, transport.ErrClosed
}

func (c *closeRecorder) WriteFrames(...[]byte) error { return nil }

func (c *closeRecorder) Close(context.Context) error {
	if c.closed.CompareAndSwap(false, true) {
		close(c.done)
	}
	return nil
}

// A dial that finishes while the session closes (a subprocess that started
// just as Close cancelled the dial) is closed before Close returns, not
// left running behind a stopped actor.
func TestADialFinishingAsTheSessionClosesIsClosedBeforeCloseReturns(t *testing.T) {
	dialing := make(chan context.Context, 1)
	release := make(chan struct{})
	conn := &closeRecorder{done: make(chan struct{})}
	dialer := transport.DialerFunc{Name: "slow", Func: func(ctx context.Context) (transport.Conn, error) {
		dialing <- ctx
		<-release // like a process start that completes whatever the ctx says
		return conn, nil
	}}
	h, stop := startSession(t, SessionConfig{Name: "slow-dial", Dialer: dialer})
	defer stop()
	dialCtx := <-dialing

	closeDone := make(chan error, 1)
	go func() { // owner: this test; returns when Close does
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		closeDone <- h.Close(ctx)
	}()
	<-h.Shared().Closed() // the actor closed the session and is stopping
	// Close gave up on the dial (its ctx ended): only now does the dial
	// finish, too late for the actor, which must still close what it got.
	select {
	case <-dialCtx.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not cancel the dial")
	}
	close(release)

	select {
	case err := <-closeDone:
		require.NoError(t, err)
	case <-time.After(15 * time.Second):
		t.Fatal("Close did not return")
	}
	assert.True(t, conn.closed.Load(), "the connection dialed too late was closed before Close returned")
}
