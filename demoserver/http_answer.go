package demoserver

import (
	"net/http"

	"github.com/mcpengine/mcpengine/internal/httpserve"
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// pump writes a stream's events after cursor to one HTTP connection until
// the stream is complete (answer streams end with their last response),
// the client goes away, a resumption takes the stream over, or the
// session ends. A connection that goes away leaves the stream to be
// resumed. It runs on the HTTP handler's goroutine: the session never
// waits for a client.
func (h *StreamableHandler) pump(w http.ResponseWriter, r *http.Request, s *httpSession, st *stream, sk *sink, cursor int64) {
	c := s.streamable
	sw := mcpserver.NewSSEWriter(w, st.id, h.o.SSERetry)

	// The drop fault applies to an answer stream's first connection.
	dropAt := -1
	c.mu.Lock()
	if st.drop && st.attachments == 1 && st.sink == sk {
		dropAt = h.o.DropAfterEvents
	}
	c.mu.Unlock()

	written := 0
	ending := false
	for {
		c.mu.Lock()
		if st.sink != sk {
			c.mu.Unlock()
			return // taken over by a resumption
		}
		evs := st.log.After(cursor)
		complete := st.complete
		c.mu.Unlock()

		drop := false
		if dropAt >= 0 {
			var n int
			n, drop = dropCut(evs, dropAt-written)
			evs = evs[:n]
		}
		if len(evs) > 0 {
			last, err := sw.Write(evs)
			if err != nil {
				c.detach(st, sk)
				return
			}
			cursor = last
			written += len(evs)
			c.markSent(st, cursor)
		}
		if drop {
			c.detach(st, sk)
			h.srv.opts.Logger.Debug("demoserver: dropping an answer stream (fault)", "session", s.id, "stream", st.id, "events", written)
			if h.o.DropAbort {
				panic(http.ErrAbortHandler)
			}
			return
		}
		if complete {
			// Every event of a complete stream was fetched with it, and
			// this connection delivered them all.
			c.finish(st, sk)
			return
		}
		if ending {
			c.detach(st, sk)
			return
		}
		select {
		case <-sk.wake:
		case <-r.Context().Done():
			c.detach(st, sk)
			return
		case <-s.done:
			if s.crashed() {
				panic(http.ErrAbortHandler)
			}
			ending = true // write what the session flushed, then end
		}
	}
}

// dropCut is how many of evs the drop fault lets through when budget
// more events may be written, and whether it drops the stream after them:
// before a response (the client must lose an answer), or once the budget
// is spent.
func dropCut(evs []mcpserver.Event, budget int) (n int, drop bool) {
	for i, e := range evs {
		if e.Response {
			return i, true
		}
		if i+1 >= budget {
			return i + 1, true
		}
	}
	return len(evs), false
}

// answerJSON waits for every response a POST is owed and answers them as
// one application/json body. A session that ended meanwhile gets 404 (or
// an aborted connection, for the faults that stand for a crash); a client
// that went away abandons the answer.
func (h *StreamableHandler) answerJSON(w http.ResponseWriter, r *http.Request, s *httpSession, st *stream, sk *sink, newSession bool) {
	c := s.streamable
	ending := false
	for {
		c.mu.Lock()
		complete := st.complete
		evs := st.log.All()
		c.mu.Unlock()
		if complete {
			h.writeJSON(w, s, evs, newSession)
			return
		}
		if ending {
			c.abandon(st)
			httpserve.Error(w, http.StatusNotFound, messages.CodeInvalidRequest, "session ended")
			return
		}
		select {
		case <-sk.wake:
		case <-r.Context().Done():
			c.abandon(st)
			return
		case <-s.done:
			if s.crashed() {
				c.abandon(st)
				panic(http.ErrAbortHandler)
			}
			ending = true
		}
	}
}

// writeJSON writes the frames of a complete JSON answer: normally the one
// response (or batch of responses) frame. Garbage written by the
// GarbageEvery fault precedes it on its own line, making the body invalid
// JSON as the fault intends. An answer with no frame (every request was
// cancelled) gets 202.
func (h *StreamableHandler) writeJSON(w http.ResponseWriter, s *httpSession, evs []mcpserver.Event, newSession bool) {
	if newSession {
		if _, failed := s.streamable.initOutcome(); failed {
			h.hub.end(s) // a session whose initialize failed is of no use
		} else {
			w.Header().Set(HeaderSessionID, s.id)
		}
	}
	if len(evs) == 0 {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	size := 0
	for _, e := range evs {
		size += len(e.Data) + 1
	}
	body := make([]byte, 0, size)
	for i, e := range evs {
		if i > 0 {
			body = append(body, '\n')
		}
		body = append(body, e.Data...)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(body)
}
