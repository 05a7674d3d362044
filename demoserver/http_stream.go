package demoserver

import (
	"strconv"
	"strings"

	"github.com/mcpengine/mcpengine/messages"
)

// standaloneStreamID is the id of every session's standalone (GET) stream;
// answer streams are numbered from 1.
const standaloneStreamID = 0

// event is one event of a stream: a JSON-RPC frame, or a priming event
// (nil data).
type event struct {
	seq      int64
	data     []byte
	response bool // carries a JSON-RPC response (a drop happens before it)
}

// stream is where a session's outbound messages queue for one HTTP
// answer: the SSE stream of a POST, the JSON body of a POST, or the
// standalone GET stream. It outlives the HTTP connections that carry it,
// so that a client can resume it. All fields are guarded by the owning
// httpConn's mutex.
type stream struct {
	id         int
	standalone bool
	json       bool // a JSON answer: responses only, not resumable

	events  []event // oldest first; sent ones trimmed to HistoryLimit
	nextSeq int64   // seq of the next event (from 1)
	sent    int64   // highest seq handed to a connection

	owed     int  // responses still to come (answer streams)
	complete bool // every response is in events (answer streams)

	sink        *sink // the connection writing this stream, nil if none
	attachments int   // connections that have carried it
	drop        bool  // fault: drop its first connection

	tokens []messages.ID // progress tokens routed here, forgotten on completion
}

// sink is one HTTP connection carrying a stream: the stream wakes it when
// events arrive, and replaces it when a resumption takes over.
type sink struct {
	wake chan struct{} // capacity 1
}

func newSink() *sink { return &sink{wake: make(chan struct{}, 1)} }

func (k *sink) signal() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// append adds an event and wakes the connection carrying the stream.
func (st *stream) append(data []byte, response bool, limit int) {
	st.nextSeq++
	st.events = append(st.events, event{seq: st.nextSeq, data: data, response: response})
	st.trim(limit)
	if st.sink != nil {
		st.sink.signal()
	}
}

// trim bounds the history. Answer streams drop only events already handed
// to a connection (their answer must get through); the standalone stream
// drops its oldest events whatever their state, so a client that never
// listens cannot make it grow without bound. Trimming reslices and never
// writes to the backing array: a connection may be reading a copy of the
// slice header without the lock.
func (st *stream) trim(limit int) {
	over := len(st.events) - limit
	if over <= 0 {
		return
	}
	if !st.standalone {
		k := 0
		for k < over && st.events[k].seq <= st.sent {
			k++
		}
		over = k
	}
	st.events = st.events[over:]
}

// after returns the events with a seq greater than seq (shared, read-only).
func (st *stream) after(seq int64) []event {
	for i, e := range st.events {
		if e.seq > seq {
			return st.events[i:len(st.events):len(st.events)]
		}
	}
	return nil
}

// undelivered reports whether some event was never handed to a connection.
func (st *stream) undelivered() bool {
	return len(st.events) > 0 && st.events[len(st.events)-1].seq > st.sent
}

// eventID is the SSE id of one of the stream's events: "stream-seq", so
// that a Last-Event-ID names the stream to resume as well as the position.
func eventID(streamID int, seq int64) string {
	return strconv.Itoa(streamID) + "-" + strconv.FormatInt(seq, 10)
}

// parseEventID splits an id made by eventID.
func parseEventID(id string) (streamID int, seq int64, ok bool) {
	a, b, found := strings.Cut(strings.TrimSpace(id), "-")
	if !found {
		return 0, 0, false
	}
	s, err1 := strconv.Atoi(a)
	n, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || s < 0 || n < 0 {
		return 0, 0, false
	}
	return s, n, true
}
