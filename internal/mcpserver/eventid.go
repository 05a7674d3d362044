package mcpserver

import (
	"strconv"
	"strings"
	"time"

	"github.com/mcpengine/mcpengine/internal/httpserve"
)

// EventID is the SSE id of event seq of stream streamID: "stream-seq", so
// that a Last-Event-ID names the stream to resume as well as the place in
// it (a session has several streams, and the client resumes with a GET
// that says nothing else).
func EventID(streamID int, seq int64) string {
	return strconv.Itoa(streamID) + "-" + strconv.FormatInt(seq, 10)
}

// ParseEventID splits an id made by EventID.
func ParseEventID(id string) (streamID int, seq int64, ok bool) {
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

// AppendEvent formats one event of stream streamID: a message event with
// its id, or, for a priming event, the id and the retry field the client
// waits before resuming.
func AppendEvent(buf []byte, streamID int, e Event, retry time.Duration) []byte {
	id := EventID(streamID, e.Seq)
	if e.Data == nil {
		return httpserve.AppendSSEEvent(buf, id, "", retry, nil)
	}
	return httpserve.AppendSSEEvent(buf, id, "message", 0, e.Data)
}
