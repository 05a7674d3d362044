package sse

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
)

// Event is one dispatched event that carried at least one data line.
type Event struct {
	// ID is the stream's last event ID when the event was dispatched: the
	// value of the latest "id" field so far, in this event or an earlier one
	// ("" when the server never sent one). Resumption sends it back as
	// Last-Event-ID.
	ID string
	// Type is the "event" field; empty means the default type, "message".
	Type string
	// Data is the data lines joined by '\n'. It may be empty (a "priming"
	// event such as "id: 7\ndata:\n\n"). The caller owns it.
	Data []byte
}

// TooLargeError reports an event or a line longer than the Reader's cap.
// The stream cannot be read further: the rest of the oversized event is not
// consumed.
type TooLargeError struct {
	Limit int
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("sse: event exceeds the %d-byte limit", e.Limit)
}

const (
	// initialBuf is the read buffer of a stream while it reads an event
	// (pooled: taken when bytes arrive, given back when all are consumed).
	initialBuf = 4 << 10
	// idleBuf is what a stream holds while waiting for bytes.
	idleBuf = 64
	// lineSlack is what a line may hold beyond the event cap: the field
	// name of a data line ("data: ") and a little more, so that a data line
	// carrying exactly the cap is accepted.
	lineSlack = 16
	// maxEmptyReads mirrors bufio: a source that returns no bytes and no
	// error this many times in a row is broken.
	maxEmptyReads = 100
)

var bom = []byte{0xEF, 0xBB, 0xBF}

// Reader parses events from a stream. It is used by one goroutine.
//
// The last event ID and the reconnection time survive Reset, so that one
// Reader follows a logical stream across reconnections.
type Reader struct {
	src     io.Reader
	max     int // cap on one event's data
	maxLine int // cap on one line

	buf        []byte // buffered bytes are buf[start:end]; nil while none are
	start, end int
	// idle receives the first bytes after the buffer ran empty, so that a
	// stream waiting for its next event (a GET stream, a long call's
	// answer) holds these few bytes instead of a read buffer.
	idle     [idleBuf]byte
	err      error // sticky: the source's error, or a *TooLargeError
	skipLF   bool  // the last line ended in a CR that was the last buffered byte
	sawStart bool  // the byte order mark check is done

	// The event being assembled.
	data    []byte
	hasData bool
	typ     string
	idBuf   string // the last event ID buffer of the standard

	// Stream state.
	lastID   string // committed at each dispatch (blank line)
	retry    time.Duration
	retrySet bool
}

// NewReader returns a Reader of src whose events may carry at most
// maxEventBytes bytes of data (a cap below 1 is treated as 1).
func NewReader(src io.Reader, maxEventBytes int) *Reader {
	if maxEventBytes < 1 {
		maxEventBytes = 1
	}
	return &Reader{src: src, max: maxEventBytes, maxLine: maxEventBytes + lineSlack}
}

// Reset makes r read a new stream from src (a reconnection), keeping the
// last event ID and the reconnection time but nothing of a half-read event.
func (r *Reader) Reset(src io.Reader) {
	r.src = src
	r.releaseBuf()
	r.err = nil
	r.skipLF = false
	r.sawStart = false
	r.resetEvent()
}

// LastEventID returns the ID to resume from: the last "id" field of the
// stream as of the last blank line, including events that had no data.
func (r *Reader) LastEventID() string { return r.lastID }

// Retry returns the reconnection time the server last set with a "retry"
// field, and whether it set one.
func (r *Reader) Retry() (time.Duration, bool) { return r.retry, r.retrySet }

// Next returns the next event that carries data. It returns io.EOF at the
// end of the stream (a partial event at the end is discarded), a
// *TooLargeError when an event or a line passes the cap, or the source's
// error. Errors are sticky.
func (r *Reader) Next() (Event, error) {
	for {
		line, err := r.line()
		if err != nil {
			r.resetEvent()
			return Event{}, err
		}
		if len(line) == 0 {
			if ev, ok := r.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if err := r.field(line); err != nil {
			r.resetEvent()
			return Event{}, err
		}
	}
}

func (r *Reader) resetEvent() {
	r.data, r.hasData, r.typ = nil, false, ""
	r.idBuf = r.lastID
}

// dispatch ends the current event at a blank line.
func (r *Reader) dispatch() (Event, bool) {
	r.lastID = r.idBuf
	if !r.hasData {
		r.typ = ""
		return Event{}, false
	}
	ev := Event{ID: r.lastID, Type: r.typ, Data: r.data}
	if ev.Data == nil {
		ev.Data = []byte{}
	}
	r.data, r.hasData, r.typ = nil, false, ""
	return ev, true
}

// field interprets one non-empty line.
func (r *Reader) field(line []byte) error {
	name, value := line, []byte(nil)
	if i := bytes.IndexByte(line, ':'); i >= 0 {
		if i == 0 {
			return nil // a comment (keep-alives are sent this way)
		}
		name, value = line[:i], line[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
	}
	switch string(name) { // the conversion does not allocate in a switch
	case "data":
		need := len(value)
		if r.hasData {
			need += len(r.data) + 1
		}
		if need > r.max {
			return r.tooLarge()
		}
		if need > cap(r.data) {
			// Grow by doubling, but never past the cap: an event that ends
			// up too large costs about twice the cap in allocations.
			nd := make([]byte, len(r.data), min(max(2*cap(r.data), need), r.max))
			copy(nd, r.data)
			r.data = nd
		}
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, value...)
		r.hasData = true
	case "event":
		if string(value) != r.typ {
			r.typ = string(value)
		}
	case "id":
		if bytes.IndexByte(value, 0) < 0 && string(value) != r.idBuf {
			r.idBuf = string(value)
		}
	case "retry":
		if ms, ok := parseDigits(value); ok {
			r.retry, r.retrySet = time.Duration(ms)*time.Millisecond, true
		}
	}
	return nil
}

// parseDigits parses a non-empty run of ASCII digits as milliseconds that
// fit in a time.Duration.
func parseDigits(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	const limit = int64(^uint64(0)>>1) / int64(time.Millisecond)
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
		if n > limit {
			return 0, false
		}
	}
	return n, true
}

func (r *Reader) tooLarge() error {
	r.err = &TooLargeError{Limit: r.max}
	r.start, r.end, r.buf = 0, 0, nil
	return r.err
}

// line returns the next line without its terminator, as a slice of the
// buffer that is valid until the next call.
func (r *Reader) line() ([]byte, error) {
	scanned := 0 // bytes after start known to hold no line end
	for {
		if r.skipLF && r.start < r.end {
			if r.buf[r.start] == '\n' {
				r.start++
			}
			r.skipLF = false
		}
		if !r.sawStart {
			avail := r.buf[r.start:r.end]
			if len(avail) < len(bom) && bytes.HasPrefix(bom, avail) && r.err == nil {
				r.fill()
				continue
			}
			if bytes.HasPrefix(avail, bom) {
				r.start += len(bom)
			}
			r.sawStart = true
		}
		rest := r.buf[r.start+scanned : r.end]
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			i = len(rest)
		}
		if j := bytes.IndexByte(rest[:i], '\r'); j >= 0 {
			i = j
		}
		if i < len(rest) {
			end := r.start + scanned + i
			line := r.buf[r.start:end]
			next := end + 1
			if r.buf[end] == '\r' {
				if next < r.end {
					if r.buf[next] == '\n' {
						next++
					}
				} else {
					r.skipLF = true
				}
			}
			r.start = next
			if len(line) > r.maxLine {
				return nil, r.tooLarge()
			}
			return line, nil
		}
		if r.err != nil {
			return nil, r.err // a partial last line is discarded
		}
		if r.end-r.start > r.maxLine {
			return nil, r.tooLarge()
		}
		scanned = r.end - r.start
		r.fill()
	}
}

// fill makes room in the buffer and reads once.
func (r *Reader) fill() {
	switch {
	case r.buf == nil || r.start == r.end:
		r.fillIdle()
		return
	case r.end == len(r.buf) && r.start > 0:
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
	case r.end == len(r.buf):
		// Double, but never past what the longest acceptable line needs
		// (line fails as soon as the buffered part passes the cap).
		// Jump straight to the largest size when the doubling after this
		// one would pass it, so that an overlong line costs about twice the
		// cap in allocations, never more.
		size := 2 * len(r.buf)
		if 2*size > r.maxLine+2 {
			size = r.maxLine + 2
		}
		nb := make([]byte, size)
		r.end = copy(nb, r.buf[r.start:r.end])
		r.start = 0
		r.buf = nb
	}
	for range maxEmptyReads {
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// bufPool holds read buffers of initialBuf bytes between events.
var bufPool = sync.Pool{New: func() any { b := make([]byte, initialBuf); return &b }}

// fillIdle reads once when nothing is buffered: it gives the read buffer
// back (a grown one is dropped), waits for bytes in r.idle, then moves
// them into a pooled buffer.
func (r *Reader) fillIdle() {
	r.releaseBuf()
	for range maxEmptyReads {
		n, err := r.src.Read(r.idle[:])
		if n > 0 {
			r.buf = *bufPool.Get().(*[]byte)
			r.end = copy(r.buf, r.idle[:n])
		}
		if err != nil {
			r.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	r.err = io.ErrNoProgress
}

// releaseBuf drops the buffer, all of whose bytes are consumed, giving an
// initialBuf one back to the pool.
func (r *Reader) releaseBuf() {
	if len(r.buf) == initialBuf {
		b := r.buf
		bufPool.Put(&b)
	}
	r.buf, r.start, r.end = nil, 0, 0
}

// IsTooLarge reports whether err is a *TooLargeError.
func IsTooLarge(err error) bool {
	var tl *TooLargeError
	return errors.As(err, &tl)
}
