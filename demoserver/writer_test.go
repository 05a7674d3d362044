package demoserver

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordConn records WriteFrames calls.
type recordConn struct {
	calls [][]string
	err   error
}

func (r *recordConn) ReadFrame() ([]byte, error) { return nil, errors.New("not readable") }
func (r *recordConn) WriteFrames(frames ...[]byte) error {
	call := make([]string, len(frames))
	for i, f := range frames {
		call[i] = string(f)
	}
	r.calls = append(r.calls, call)
	return r.err
}
func (r *recordConn) Close(context.Context) error { return nil }

func TestWriterCoalesces(t *testing.T) {
	conn := &recordConn{}
	w := newWriter(conn, nil, func(error) { t.Error("unexpected write error") })
	for _, f := range []string{"a", "b", "c"} {
		w.send(append(w.getBuf(), f...))
	}
	w.close()
	w.send([]byte("dropped after close"))
	w.run()
	require.Len(t, conn.calls, 1)
	assert.Equal(t, []string{"a", "b", "c"}, conn.calls[0])
	assert.Len(t, w.free, 3, "buffers are recycled")
}

func TestWriterGarbageAndError(t *testing.T) {
	conn := &recordConn{err: errors.New("broken")}
	var failed error
	st := newStats(nil, nil)
	w := newWriter(conn, &faultState{every: 1, garbage: &st.garbage}, func(err error) { failed = err })
	w.sendResponse([]byte("r1"))
	w.sendResponse([]byte("r2"))
	w.close()
	w.run()
	require.Len(t, conn.calls, 1)
	assert.Equal(t, []string{garbageNotJSON, "r1", garbageInvalidUTF8, "r2"}, conn.calls[0])
	assert.EqualError(t, failed, "broken")
	assert.EqualError(t, w.writeErr(), "broken")
	assert.Equal(t, int64(2), st.garbage.Load())
}
