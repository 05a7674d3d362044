package memory

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/transport"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFramesRoundTripInBothDirections(t *testing.T) {
	client, server := NewPipe()
	defer client.Close(context.Background())
	defer server.Close(context.Background())

	require.NoError(t, client.WriteFrames([]byte(`{"id":1}`)))
	got, err := server.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, `{"id":1}`, string(got))

	require.NoError(t, server.WriteFrames([]byte("line\nwith newline"), []byte{}))
	got, err = client.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, "line\nwith newline", string(got), "frames are carried as is")
	got, err = client.ReadFrame()
	require.NoError(t, err)
	assert.Empty(t, got)
}

func TestFramesArriveInWriteOrderAcrossCalls(t *testing.T) {
	client, server := NewPipe()
	defer client.Close(context.Background())
	defer server.Close(context.Background())
	var batch [][]byte
	for i := range 300 {
		batch = append(batch, []byte(fmt.Sprint(i)))
		if len(batch) == 7 {
			require.NoError(t, client.WriteFrames(batch...))
			batch = batch[:0]
		}
	}
	require.NoError(t, client.WriteFrames(batch...))
	for i := range 300 {
		got, err := server.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(i), string(got))
	}
}

func TestWrittenFramesAreCopiedAndReadFramesOwned(t *testing.T) {
	client, server := NewPipe()
	defer client.Close(context.Background())
	defer server.Close(context.Background())
	buf := []byte("first")
	second := []byte("second")
	require.NoError(t, client.WriteFrames(buf, second))
	copy(buf, "XXXXX")
	got1, _ := server.ReadFrame()
	got2, _ := server.ReadFrame()
	assert.Equal(t, "first", string(got1))
	_ = append(got1, "!!!"...)
	assert.Equal(t, "second", string(got2), "appending to one frame never touches the next")
}

func TestCloseLetsPeerDrainThenEOFAndFailsItsWrites(t *testing.T) {
	for _, closer := range []string{"client", "server"} {
		t.Run(closer, func(t *testing.T) {
			client, server := NewPipe()
			closing, peer := client, server
			if closer == "server" {
				closing, peer = server, client
			}
			require.NoError(t, closing.WriteFrames([]byte("a"), []byte("b")))
			require.NoError(t, peer.WriteFrames([]byte("dropped")))
			require.NoError(t, closing.Close(context.Background()))

			for _, want := range []string{"a", "b"} {
				got, err := peer.ReadFrame()
				require.NoError(t, err)
				assert.Equal(t, want, string(got))
			}
			_, err := peer.ReadFrame()
			assert.ErrorIs(t, err, io.EOF)
			assert.ErrorIs(t, peer.WriteFrames([]byte("x")), transport.ErrClosed)

			_, err = closing.ReadFrame()
			assert.ErrorIs(t, err, transport.ErrClosed)
			assert.ErrorIs(t, closing.WriteFrames([]byte("x")), transport.ErrClosed)
			assert.NoError(t, closing.Close(context.Background()), "idempotent")
			assert.NoError(t, peer.Close(context.Background()))
		})
	}
}

func TestCloseUnblocksPendingReadOnBothEnds(t *testing.T) {
	client, server := NewPipe()
	errs := make(chan error, 2)
	for _, c := range []transport.Conn{client, server} {
		go func() { // owner: this test; exits when ReadFrame returns
			_, err := c.ReadFrame()
			errs <- err
		}()
	}
	waitReaders(client, server)
	require.NoError(t, client.Close(context.Background()))
	got := []error{<-errs, <-errs}
	assert.ElementsMatch(t, []error{io.EOF, transport.ErrClosed}, got)
	require.NoError(t, server.Close(context.Background()))
}

// waitReaders yields until every end has a reader parked in ReadFrame, so
// that the test exercises unblocking rather than an early return.
func waitReaders(ends ...transport.Conn) {
	for _, c := range ends {
		q := c.(*end).in
		for {
			q.mu.Lock()
			parked := q.waitingReaders > 0
			q.mu.Unlock()
			if parked {
				break
			}
			runtime.Gosched()
		}
	}
}

func waitingWriters(c transport.Conn) int {
	q := c.(*end).out
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.waitingWriters
}

func TestWriteBlocksAtTheFrameCapUntilTheReaderCatchesUp(t *testing.T) {
	client, server := NewPipe()
	defer client.Close(context.Background())
	defer server.Close(context.Background())
	for i := range MaxQueuedFrames {
		require.NoError(t, client.WriteFrames([]byte(fmt.Sprint(i))))
	}
	done := make(chan error, 1)
	go func() { // owner: this test; exits when the write completes
		done <- client.WriteFrames([]byte("over"), []byte("cap"))
	}()
	for waitingWriters(client) == 0 {
		runtime.Gosched()
	}
	select {
	case err := <-done:
		t.Fatalf("write over the cap returned early: %v", err)
	default:
	}
	for i := range MaxQueuedFrames {
		got, err := server.ReadFrame()
		require.NoError(t, err)
		require.Equal(t, fmt.Sprint(i), string(got))
	}
	require.NoError(t, <-done)
	for _, want := range []string{"over", "cap"} {
		got, err := server.ReadFrame()
		require.NoError(t, err)
		assert.Equal(t, want, string(got))
	}
}

func TestWriteBlocksAtTheByteCapButAdmitsAnOversizedFrameAlone(t *testing.T) {
	client, server := NewPipe()
	defer client.Close(context.Background())
	defer server.Close(context.Background())
	huge := make([]byte, MaxQueuedBytes+1)
	require.NoError(t, client.WriteFrames(huge), "an empty queue takes any frame")
	done := make(chan error, 1)
	go func() { // owner: this test; exits when the write completes
		done <- client.WriteFrames([]byte("small"))
	}()
	for waitingWriters(client) == 0 {
		runtime.Gosched()
	}
	got, err := server.ReadFrame()
	require.NoError(t, err)
	assert.Len(t, got, MaxQueuedBytes+1)
	require.NoError(t, <-done)
}

func TestCloseUnblocksWriterBlockedAtTheCap(t *testing.T) {
	for _, closer := range []string{"writer", "reader"} {
		t.Run(closer, func(t *testing.T) {
			client, server := NewPipe()
			frames := make([][]byte, MaxQueuedFrames)
			for i := range frames {
				frames[i] = []byte("f")
			}
			require.NoError(t, client.WriteFrames(frames...))
			done := make(chan error, 1)
			go func() { // owner: this test; exits when the write returns
				done <- client.WriteFrames([]byte("blocked"))
			}()
			for waitingWriters(client) == 0 {
				runtime.Gosched()
			}
			if closer == "writer" {
				require.NoError(t, client.Close(context.Background()))
			} else {
				require.NoError(t, server.Close(context.Background()))
			}
			assert.ErrorIs(t, <-done, transport.ErrClosed)
			_ = client.Close(context.Background())
			_ = server.Close(context.Background())
		})
	}
}

func TestIdlePairsCostNoGoroutine(t *testing.T) {
	const n = 1000
	settleGoroutines(t) // earlier tests' goroutines may still be exiting
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	before := runtime.NumGoroutine()
	pairs := make([][2]transport.Conn, n)
	for i := range pairs {
		c, s := NewPipe()
		pairs[i] = [2]transport.Conn{c, s}
	}
	after := runtime.NumGoroutine()
	runtime.GC()
	runtime.ReadMemStats(&ms1)
	t.Logf("%d idle pairs: %+d goroutines, %d bytes heap per pair",
		n, after-before, (int64(ms1.HeapAlloc)-int64(ms0.HeapAlloc))/n)
	assert.Equal(t, before, after)
	for _, p := range pairs {
		_ = p[0].Close(context.Background())
		_ = p[1].Close(context.Background())
	}
}

// settleGoroutines yields until no goroutine other than test goroutines runs
// this package's code: goroutines of earlier tests linger for an instant
// after they have signalled that they are done.
func settleGoroutines(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		lingering := 0
		for _, g := range strings.Split(string(buf[:runtime.Stack(buf, true)]), "\n\n") {
			if strings.Contains(g, "mcpengine/transport/memory.") && !strings.Contains(g, "testing.tRunner") {
				lingering++
			}
		}
		if lingering == 0 {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d goroutines linger", lingering)
		runtime.Gosched()
	}
}

func BenchmarkPipePingPong(b *testing.B) {
	client, server := NewPipe()
	done := make(chan struct{})
	go func() { // owner: this benchmark; exits when the client closes
		defer close(done)
		for {
			f, err := server.ReadFrame()
			if err != nil {
				return
			}
			if server.WriteFrames(f) != nil {
				return
			}
		}
	}()
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := client.WriteFrames(msg); err != nil {
			b.Fatal(err)
		}
		if _, err := client.ReadFrame(); err != nil {
			b.Fatal(err)
		}
	}
	_ = client.Close(context.Background())
	<-done
	_ = server.Close(context.Background())
}

func BenchmarkPipeBatchedThroughput(b *testing.B) {
	client, server := NewPipe()
	done := make(chan struct{})
	go func() { // owner: this benchmark; exits when the client closes
		defer close(done)
		for {
			if _, err := server.ReadFrame(); err != nil {
				return
			}
		}
	}()
	batch := make([][]byte, 32)
	for i := range batch {
		batch[i] = []byte(`{"jsonrpc":"2.0","method":"notifications/progress"}`)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := client.WriteFrames(batch...); err != nil {
			b.Fatal(err)
		}
	}
	_ = client.Close(context.Background())
	<-done
	_ = server.Close(context.Background())
}

// InterruptRead wakes a blocked ReadFrame without losing a frame; made
// while nobody reads, it is kept for the next ReadFrame, and several count
// as one.
func TestInterruptReadWakesABlockedReadAndLosesNothing(t *testing.T) {
	// synctest: Wait returns once the reader is blocked in ReadFrame (a
	// sync.Cond wait), so the interruption is made on a blocked read, not
	// on one that may not have started yet.
	synctest.Test(t, func(t *testing.T) {
		a, b := NewPipe()
		defer a.Close(context.Background())
		defer b.Close(context.Background())
		intr := a.(transport.ReadInterrupter)

		errc := make(chan error, 1)
		go func() { // owner: this test; returns once interrupted
			_, err := a.ReadFrame()
			errc <- err
		}()
		synctest.Wait()
		intr.InterruptRead()
		select {
		case err := <-errc:
			require.ErrorIs(t, err, transport.ErrReadInterrupted)
		case <-time.After(5 * time.Second):
			t.Fatal("InterruptRead did not wake the blocked ReadFrame")
		}

		intr.InterruptRead()
		intr.InterruptRead()
		require.NoError(t, b.WriteFrames([]byte("one"), []byte("two")))
		_, err := a.ReadFrame()
		require.ErrorIs(t, err, transport.ErrReadInterrupted)
		assert.True(t, intr.Buffered())
		f, err := a.ReadFrame()
		require.NoError(t, err)
		assert.Equal(t, "one", string(f), "two interruptions counted as one")
		f, err = a.ReadFrame()
		require.NoError(t, err)
		assert.Equal(t, "two", string(f))
		assert.False(t, intr.Buffered())
	})
}
