package gateway

import (
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
)

const (
	// standaloneStreamID names every session's standalone (GET) stream in
	// event ids; answer streams are numbered from 1.
	standaloneStreamID = 0
	// standaloneLimit bounds the messages a session's standalone stream
	// keeps, delivered or not: a client that never opens it keeps the
	// latest ones.
	standaloneLimit = 1024
	// answerHistory bounds the events an answer stream keeps once they
	// were written, for a client resuming with Last-Event-ID; those not
	// written yet are always kept (the answer must get through).
	answerHistory = 1024
	// answersKept is how many complete answer streams a session keeps for
	// late resumptions.
	answersKept = 64
	// sseRetry is the retry field of a stream's priming event: how long a
	// client whose stream broke waits before resuming it.
	sseRetry = 250 * time.Millisecond
)

// frontStream is one SSE stream of a client session: the answer to a POST
// or the session's standalone stream. It outlives the HTTP connections
// that carry it: every event has an id, and a client that lost the
// connection resumes the stream with Last-Event-ID on a GET, which takes
// it over. push never blocks, because its callers are the engine's
// callback dispatchers and handler goroutines, which must not wait for a
// slow client; the HTTP handler carrying the stream writes at the
// client's pace.
type frontStream struct {
	id    int
	limit int

	mu      sync.Mutex
	log     mcpserver.EventLog
	owed    int      // responses still to come (answer streams)
	closed  bool     // takes no more events: the answer is complete, or the session ended
	carrier *carrier // the connection writing it, nil if none
}

// carrier is one HTTP connection writing a stream: the stream wakes it
// when events arrive, and when a resumption takes over.
type carrier struct{ wake chan struct{} }

func newCarrier() *carrier { return &carrier{wake: make(chan struct{}, 1)} }

func (c *carrier) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

func newStandaloneStream() *frontStream {
	return &frontStream{id: standaloneStreamID, limit: standaloneLimit, log: mcpserver.EventLog{Lossy: true}}
}

// newAnswerStream is the SSE answer to a POST of owed requests; it starts
// with a priming event, so that the client has an id to resume from
// before anything else was sent.
func newAnswerStream(id, owed int) *frontStream {
	st := &frontStream{id: id, limit: answerHistory, owed: owed}
	st.log.Append(nil, false, st.limit)
	return st
}

// push adds a frame; it reports false once the stream is closed.
func (st *frontStream) push(frame []byte) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.closed {
		return false
	}
	st.log.Append(frame, false, st.limit)
	st.signalLocked()
	return true
}

// settle records that one of the answer's requests is done (its response,
// if any, pushed); it reports whether that completed the answer.
func (st *frontStream) settle() bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.owed--
	if st.owed > 0 || st.closed {
		return false
	}
	st.closed = true
	st.signalLocked()
	return true
}

// close makes later pushes fail; what is kept stays to be written.
func (st *frontStream) close() {
	st.mu.Lock()
	st.closed = true
	st.signalLocked()
	st.mu.Unlock()
}

func (st *frontStream) signalLocked() {
	if st.carrier != nil {
		st.carrier.signal()
	}
}

// attach makes c the connection writing the stream; one it replaces wakes
// and finds itself replaced. With exclusive it fails instead when another
// connection is writing the stream (a second plain GET).
func (st *frontStream) attach(c *carrier, exclusive bool) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.carrier != nil {
		if exclusive {
			return false
		}
		st.carrier.signal()
	}
	st.carrier = c
	return true
}

// standaloneCursor is where a plain GET starts: after what earlier
// connections were handed (a client that wants it again resumes with
// Last-Event-ID). With prime, a stream with nothing new gets a priming
// event.
func (st *frontStream) standaloneCursor(prime bool) int64 {
	st.mu.Lock()
	defer st.mu.Unlock()
	cursor := st.log.Sent()
	if prime && !st.log.Undelivered() {
		st.log.Append(nil, false, st.limit)
	}
	return cursor
}

// resumable reports whether seq is an event the stream has had.
func (st *frontStream) resumable(seq int64) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return seq <= st.log.Last()
}

// detach lets go of the stream if c still carries it.
func (st *frontStream) detach(c *carrier) {
	st.mu.Lock()
	if st.carrier == c {
		st.carrier = nil
	}
	st.mu.Unlock()
}

// pump writes the stream's events after cursor to w, as carrier c, until
// the stream is closed and written, the client goes away (ctx), a
// resumption takes the stream over, or the session ends (ended: what is
// kept is written first). A connection that goes away leaves the stream
// to be resumed; its requests go on.
func (st *frontStream) pump(ctx context.Context, w http.ResponseWriter, c *carrier, cursor int64, ended <-chan struct{}) {
	httpserve.SetSSEHeaders(w)
	w.WriteHeader(http.StatusOK)
	sw := mcpserver.NewSSEWriter(w, st.id, sseRetry)
	if sw.Flush() != nil {
		st.detach(c)
		return
	}
	st.pumpTo(ctx, sw, c, cursor, ended)
}

// pumpTo is pump on a response whose headers are written.
func (st *frontStream) pumpTo(ctx context.Context, sw *mcpserver.SSEWriter, c *carrier, cursor int64, ended <-chan struct{}) {
	for ending := false; ; {
		evs, closed, carried := st.pending(c, cursor)
		if !carried {
			return // taken over by a resumption
		}
		last, err := sw.Write(evs)
		if err != nil {
			st.detach(c)
			return
		}
		if last > 0 {
			cursor = last
			st.sent(cursor)
		}
		if closed || ending {
			st.finish(c)
			return
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			st.detach(c)
			return
		case <-ended:
			ending = true // write what is kept, then end
		}
	}
}

// pending returns the events after cursor for carrier c, whether the
// stream is closed, and whether c still carries it.
func (st *frontStream) pending(c *carrier, cursor int64) (evs []mcpserver.Event, closed, carried bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.carrier != c {
		return nil, false, false
	}
	return st.log.After(cursor), st.closed, true
}

// sent records that the events up to seq were written.
func (st *frontStream) sent(seq int64) {
	st.mu.Lock()
	st.log.MarkSent(seq, st.limit)
	st.mu.Unlock()
}

// finish lets go of a stream c wrote to its end. Its events stay: a write
// that succeeded may still have been lost with the connection, and the
// client resuming after it must find them (the session keeps answersKept
// complete answers).
func (st *frontStream) finish(c *carrier) { st.detach(c) }
