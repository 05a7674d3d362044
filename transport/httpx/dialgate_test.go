package httpx

import (
	"context"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDial fails with EMFILE, as net.Dialer does, while out is set.
func fakeDial(out *atomic.Bool, dials *atomic.Int64) func(context.Context, string, string) (net.Conn, error) {
	return func(context.Context, string, string) (net.Conn, error) {
		dials.Add(1)
		if out.Load() {
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("socket", syscall.EMFILE)}
		}
		c1, c2 := net.Pipe()
		_ = c2.Close()
		return c1, nil
	}
}

// While every dial fails for want of descriptors, 100 goroutines that
// dial again at once after each failure make a bounded number of dials
// per second (spaced out, the spacing growing to MaxDialSpacing) instead
// of as many as the CPU allows.
func TestDialGateSpacesDialsWhileOutOfDescriptors(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g DialGate
		var out atomic.Bool
		var dials atomic.Int64
		out.Store(true)
		dial := g.Wrap(fakeDial(&out, &dials))
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		var wg sync.WaitGroup
		for range 100 {
			wg.Add(1)
			go func() { // Owner: this test. Exits when ctx ends.
				defer wg.Done()
				for ctx.Err() == nil {
					_, _ = dial(ctx, "tcp", "127.0.0.1:1")
				}
			}()
		}
		time.Sleep(500 * time.Millisecond)
		half := dials.Load()
		wg.Wait()
		t.Logf("dials: %d in the first half second, %d in the second", half, dials.Load()-half)
		// Never closer than MinDialSpacing, and by the second half the
		// spacing has reached its cap.
		assert.LessOrEqual(t, half, int64(100+500*time.Millisecond/MinDialSpacing))
		assert.LessOrEqual(t, dials.Load()-half, int64(500*time.Millisecond/MaxDialSpacing)+1)
		assert.Equal(t, uint64(dials.Load()), g.Failures())
	})
}

// A dial that succeeds lifts the spacing at once: the dials waiting for
// their slot go, and later dials do not wait.
func TestDialGateSuccessReleasesWaitingDials(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var g DialGate
		var out atomic.Bool
		var dials atomic.Int64
		dial := g.Wrap(fakeDial(&out, &dials))
		ctx := context.Background()
		out.Store(true)
		for range 20 { // spacing at its cap
			_, _ = dial(ctx, "tcp", "127.0.0.1:1")
		}
		out.Store(false)
		start := time.Now()
		var wg sync.WaitGroup
		for range 10 {
			wg.Add(1)
			go func() { // Owner: this test. Exits when its dial returned.
				defer wg.Done()
				c, err := dial(ctx, "tcp", "127.0.0.1:1")
				if assert.NoError(t, err) {
					_ = c.Close()
				}
			}()
		}
		wg.Wait()
		assert.LessOrEqual(t, time.Since(start), MaxDialSpacing, "the first success released the others")
		start = time.Now()
		c, err := dial(ctx, "tcp", "127.0.0.1:1")
		require.NoError(t, err)
		_ = c.Close()
		assert.Zero(t, time.Since(start), "no spacing once a dial succeeded")
	})
}

// Close ends the dials under way (an http.Transport finishes dials no
// request waits for any more) and waits for them; later dials are refused.
func TestDialGateCloseEndsDialsUnderWay(t *testing.T) {
	var g DialGate
	started := make(chan struct{})
	dial := g.Wrap(func(ctx context.Context, _, _ string) (net.Conn, error) {
		close(started)
		<-ctx.Done() // a dial to a host that never answers
		return nil, ctx.Err()
	})
	errc := make(chan error, 1)
	go func() {
		_, err := dial(context.Background(), "tcp", "192.0.2.1:80")
		errc <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, g.Close(ctx))
	require.ErrorIs(t, <-errc, context.Canceled)
	_, err := dial(context.Background(), "tcp", "192.0.2.1:80")
	require.ErrorIs(t, err, ErrDialGateClosed)
	require.NoError(t, g.Close(ctx), "Close twice")
}

// Close closes every connection the gate's dials made and that is still
// open: net/http closes only idle ones, and one whose stream is stuck (a
// server that stopped reading) would outlive the engine with its
// goroutines.
func TestDialGateCloseClosesTheConnectionsItDialed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() { // Owner: this test. Exits when the listener closes.
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	var g DialGate
	dial := g.Wrap((&net.Dialer{}).DialContext)
	ctx := context.Background()
	kept, err := dial(ctx, "tcp", ln.Addr().String())
	require.NoError(t, err)
	closed, err := dial(ctx, "tcp", ln.Addr().String())
	require.NoError(t, err)
	require.NoError(t, closed.Close())
	assert.Equal(t, 1, g.Conns(), "a closed connection leaves the set")
	server := <-accepted
	defer server.Close()
	(<-accepted).Close()

	require.NoError(t, g.Close(ctx))
	assert.Equal(t, 0, g.Conns())
	_, err = kept.Read(make([]byte, 1))
	assert.ErrorIs(t, err, net.ErrClosed, "the open connection was closed by the gate")
	_ = server.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, err = server.Read(make([]byte, 1))
	assert.Error(t, err, "the server saw the connection end")
	_, err = dial(ctx, "tcp", ln.Addr().String())
	assert.ErrorIs(t, err, ErrDialGateClosed)
}
