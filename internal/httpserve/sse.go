package httpserve

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// SetSSEHeaders prepares a response to carry an event stream.
func SetSSEHeaders(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	// Proxies that buffer responses would hold events back.
	h.Set("X-Accel-Buffering", "no")
}

// AppendSSEEvent appends one event in the text/event-stream format. id,
// event and retry are left out when empty or zero. data may be empty (a
// priming event); a line break in data starts a new data line, so that
// even a garbage frame from a server cannot end the event early.
func AppendSSEEvent(buf []byte, id, event string, retry time.Duration, data []byte) []byte {
	if id != "" {
		buf = append(buf, "id: "...)
		buf = append(buf, id...)
		buf = append(buf, '\n')
	}
	if event != "" {
		buf = append(buf, "event: "...)
		buf = append(buf, event...)
		buf = append(buf, '\n')
	}
	if retry > 0 {
		buf = append(buf, "retry: "...)
		buf = strconv.AppendInt(buf, retry.Milliseconds(), 10)
		buf = append(buf, '\n')
	}
	if len(data) == 0 {
		buf = append(buf, "data:\n"...)
	}
	for len(data) > 0 {
		line := data
		rest := []byte(nil)
		if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
			line, rest = data[:i], data[i+1:]
			if data[i] == '\r' && len(rest) > 0 && rest[0] == '\n' {
				rest = rest[1:]
			}
		}
		buf = append(buf, "data: "...)
		buf = append(buf, line...)
		buf = append(buf, '\n')
		data = rest
	}
	return append(buf, '\n')
}
