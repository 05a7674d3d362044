package stdio

import (
	"bytes"
	"context"
	"io"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/transport"
)

// readAll reads frames until an error and returns them with that error.
func readAll(r *frameReader) ([]string, error) {
	var frames []string
	for {
		f, err := r.next()
		if err != nil {
			return frames, err
		}
		frames = append(frames, string(f))
	}
}

func TestReaderSkipsEmptyLinesAndTrailingCR(t *testing.T) {
	r := newFrameReader(strings.NewReader("a\r\n\n\r\n\r\nb\nc\r\n"), 0)
	frames, err := readAll(&r)
	assert.Equal(t, []string{"a", "b", "c"}, frames)
	assert.ErrorIs(t, err, io.EOF)
}

func TestReaderReportsUnexpectedEOFForUnterminatedFrame(t *testing.T) {
	r := newFrameReader(strings.NewReader("a\npartial"), 0)
	frames, err := readAll(&r)
	assert.Equal(t, []string{"a"}, frames)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)

	r = newFrameReader(strings.NewReader("a\n\r"), 0)
	_, err = readAll(&r)
	assert.ErrorIs(t, err, io.EOF, "a lone CR is not a frame")
}

func TestReaderAcceptsFrameAtTheCapAndFailsOneByteOver(t *testing.T) {
	const limit = 10
	ok := strings.Repeat("x", limit)
	r := newFrameReader(strings.NewReader(ok+"\n"+ok+"\r\n"+ok+"y\nnext\n"), limit)
	frames, err := readAll(&r)
	assert.Equal(t, []string{ok, ok}, frames)
	var tooLarge *transport.FrameTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Equal(t, limit, tooLarge.Limit)
	_, err = r.next()
	assert.ErrorAs(t, err, &tooLarge, "the failure is sticky")
}

func TestReaderFailsOverlongLineBeforeItsNewlineArrives(t *testing.T) {
	// An endless line: the reader must give up at the cap, not wait for '\n'.
	const limit = 1 << 20
	r := newFrameReader(infiniteX{}, limit)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := r.next()
	runtime.ReadMemStats(&after)
	var tooLarge *transport.FrameTooLargeError
	require.ErrorAs(t, err, &tooLarge)
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(3*limit))
}

type infiniteX struct{}

func (infiniteX) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

func TestReaderHandlesByteAtATimeAndBigFrames(t *testing.T) {
	big := strings.Repeat("B", 300<<10)
	input := "small\n" + big + "\nafter\n" + big + "\r\n"
	for name, src := range map[string]io.Reader{
		"whole":      strings.NewReader(input),
		"one byte":   iotest.OneByteReader(strings.NewReader(input)),
		"half reads": iotest.HalfReader(strings.NewReader(input)),
	} {
		t.Run(name, func(t *testing.T) {
			r := newFrameReader(src, 0)
			frames, err := readAll(&r)
			assert.ErrorIs(t, err, io.EOF)
			assert.Equal(t, []string{"small", big, "after", big}, frames)
		})
	}
}

func TestReturnedFramesAreOwnedByTheCaller(t *testing.T) {
	big := bytes.Repeat([]byte{'B'}, 100<<10)
	var in bytes.Buffer
	in.WriteString("one\ntwo\n")
	in.Write(big)
	in.WriteString("\nthree\n")
	r := newFrameReader(&in, 0)
	one, _ := r.next()
	two, _ := r.next()
	gotBig, _ := r.next()
	three, _ := r.next()
	assert.Equal(t, "one", string(one))
	assert.Equal(t, "two", string(two))
	assert.Equal(t, big, gotBig)
	assert.Equal(t, "three", string(three))
	assert.Equal(t, len(gotBig), cap(gotBig), "a handed-over buffer hides the bytes after the frame")
	_ = append(gotBig, "tail"...) // must not write into the frame after it
	assert.Equal(t, "three", string(three))
}

func TestReaderReleasesGrownBufferWhenIdle(t *testing.T) {
	in := strings.NewReader(strings.Repeat("m", 20<<10) + "\nsmall\n")
	r := newFrameReader(in, 0)
	_, err := r.next()
	require.NoError(t, err)
	assert.Greater(t, cap(r.buf), readBufInitial, "grew for the 20 KiB frame; 'small' still buffered")
	_, err = r.next()
	require.NoError(t, err)
	assert.Nil(t, r.buf, "nothing buffered: the grown buffer is released")
}

func newOSPipeConn(t *testing.T, maxFrameBytes int) (conn transport.Conn, peerR, peerW *os.File) {
	t.Helper()
	inR, peerW, err := os.Pipe()
	require.NoError(t, err)
	peerR, outW, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { closeFiles(peerR, peerW) })
	return NewStreamConn(inR, outW, maxFrameBytes), peerR, peerW
}

func TestStreamConnWritesNewlineDelimitedFramesAndReadsThem(t *testing.T) {
	c, peerR, peerW := newOSPipeConn(t, 0)
	require.NoError(t, c.WriteFrames([]byte(`{"a":1}`), []byte(`{"b":2}`)))
	buf := make([]byte, 64)
	n, err := io.ReadAtLeast(peerR, buf, len("{\"a\":1}\n{\"b\":2}\n"))
	require.NoError(t, err)
	assert.Equal(t, "{\"a\":1}\n{\"b\":2}\n", string(buf[:n]))

	_, err = peerW.WriteString("{\"c\":3}\n")
	require.NoError(t, err)
	f, err := c.ReadFrame()
	require.NoError(t, err)
	assert.Equal(t, `{"c":3}`, string(f))

	require.NoError(t, peerW.Close())
	_, err = c.ReadFrame()
	assert.ErrorIs(t, err, io.EOF)
	require.NoError(t, c.Close(context.Background()))
}

func TestStreamConnCloseUnblocksReadAndFailsLaterCalls(t *testing.T) {
	c, _, _ := newOSPipeConn(t, 0)
	readErr := make(chan error, 1)
	go func() { // owner: this test; exits when ReadFrame returns
		_, err := c.ReadFrame()
		readErr <- err
	}()
	require.NoError(t, c.Close(context.Background()))
	assert.ErrorIs(t, <-readErr, transport.ErrClosed)
	assert.ErrorIs(t, c.WriteFrames([]byte("x")), transport.ErrClosed)
	assert.NoError(t, c.Close(context.Background()), "idempotent")
}

func TestStreamConnWriteErrorIsSticky(t *testing.T) {
	c, peerR, _ := newOSPipeConn(t, 0)
	require.NoError(t, peerR.Close())
	err := c.WriteFrames([]byte("x"))
	require.Error(t, err)
	assert.Equal(t, err, c.WriteFrames([]byte("y")))
}

func BenchmarkStreamConnWriteFrames(b *testing.B) {
	r, w, err := os.Pipe()
	require.NoError(b, err)
	defer r.Close()
	done := make(chan struct{})
	go func() { // owner: this benchmark; exits at EOF once w is closed
		defer close(done)
		_, _ = io.Copy(io.Discard, r)
	}()
	c := NewStreamConn(io.NopCloser(strings.NewReader("")), w, 0)
	frames := make([][]byte, 16)
	for i := range frames {
		frames[i] = bytes.Repeat([]byte{'f'}, 200)
	}
	b.SetBytes(16 * 201)
	b.ReportAllocs()
	for b.Loop() {
		if err := c.WriteFrames(frames...); err != nil {
			b.Fatal(err)
		}
	}
	_ = c.Close(context.Background())
	<-done
}
