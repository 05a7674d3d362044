package demoserver

import (
	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// standaloneStreamID is the id of every session's standalone (GET) stream;
// answer streams are numbered from 1.
const standaloneStreamID = 0

// stream is where a session's outbound messages queue for one HTTP
// answer: the SSE stream of a POST, the JSON body of a POST, or the
// standalone GET stream. It outlives the HTTP connections that carry it,
// so that a client can resume it. All fields are guarded by the owning
// httpConn's mutex.
type stream struct {
	id         int
	standalone bool
	json       bool // a JSON answer: responses only, not resumable

	log mcpserver.EventLog // its events, sent ones trimmed to HistoryLimit

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
	st.log.Append(data, response, limit)
	if st.sink != nil {
		st.sink.signal()
	}
}
