package mcpserver

import (
	"net/http"
	"time"
)

// SSEWriter writes the events of one stream to one HTTP response, with
// their ids, flushing after every batch so that the client sees each
// message as it is sent. The caller has written the SSE headers.
type SSEWriter struct {
	w        http.ResponseWriter
	rc       *http.ResponseController
	streamID int
	retry    time.Duration // a priming event's retry field
	buf      []byte
}

// NewSSEWriter writes the events of stream streamID to w.
func NewSSEWriter(w http.ResponseWriter, streamID int, retry time.Duration) *SSEWriter {
	return &SSEWriter{w: w, rc: http.NewResponseController(w), streamID: streamID, retry: retry}
}

// Flush sends what was written so far (the headers, at first).
func (s *SSEWriter) Flush() error { return s.rc.Flush() }

// Write sends evs and returns the seq of the last one. A failure means
// the client is gone; what was sent may or may not have reached it.
func (s *SSEWriter) Write(evs []Event) (last int64, err error) {
	if len(evs) == 0 {
		return 0, nil
	}
	s.buf = s.buf[:0]
	for _, e := range evs {
		s.buf = AppendEvent(s.buf, s.streamID, e, s.retry)
	}
	if _, err := s.w.Write(s.buf); err != nil {
		return 0, err
	}
	return evs[len(evs)-1].Seq, s.rc.Flush()
}
