package gateway

import (
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// outQueue holds the frames waiting for one HTTP response to carry them to
// a gateway client: the SSE answer of a POST, or the session's standalone
// GET stream. push never blocks, because its callers are the engine's
// callback dispatchers and handler goroutines, which must not wait for a
// slow client; the HTTP handler carrying the queue writes at the client's
// pace.
type outQueue struct {
	limit int // most frames held; the oldest are dropped beyond it (0: no limit)

	mu      sync.Mutex
	frames  [][]byte
	closed  bool
	dropped atomic.Uint64

	wake chan struct{} // capacity 1: "something was pushed"
}

func newOutQueue(limit int) *outQueue {
	return &outQueue{limit: limit, wake: make(chan struct{}, 1)}
}

// push queues a frame; it reports false once the queue is closed.
func (q *outQueue) push(frame []byte) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, frame)
	if q.limit > 0 && len(q.frames) > q.limit {
		q.frames[0] = nil
		q.frames = q.frames[1:]
		q.dropped.Add(1)
	}
	q.mu.Unlock()
	q.signal()
	return true
}

func (q *outQueue) signal() {
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// take removes and returns every queued frame.
func (q *outQueue) take() [][]byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	f := q.frames
	q.frames = nil
	return f
}

// close makes later pushes fail; what is queued stays for take.
func (q *outQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.signal()
}

// sseWriter writes frames as Server-Sent Events, one message event each,
// without ids: the gateway's streams are not resumable, so it does not
// invite a client to resume them.
type sseWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	buf []byte
}

func newSSEWriter(w http.ResponseWriter) *sseWriter {
	httpserve.SetSSEHeaders(w)
	return &sseWriter{w: w, rc: http.NewResponseController(w)}
}

// write sends frames and flushes them.
func (s *sseWriter) write(frames [][]byte) error {
	if len(frames) == 0 {
		return nil
	}
	s.buf = s.buf[:0]
	for _, f := range frames {
		s.buf = httpserve.AppendSSEEvent(s.buf, "", "message", 0, f)
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return err
	}
	return s.rc.Flush()
}
