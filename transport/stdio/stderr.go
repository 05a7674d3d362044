package stdio

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"sync"
	"time"
)

// stderrReadBytes is the drain goroutine's read buffer.
const stderrReadBytes = 4 << 10

// ring keeps the last size bytes written to it. Its buffer grows with the
// data up to size, so a quiet child costs nothing.
type ring struct {
	mu   sync.Mutex
	size int
	buf  []byte // len(buf) < size until full, then len(buf) == size
	pos  int    // once full: index of the oldest byte, where the next write goes
}

func (r *ring) write(p []byte) {
	if r.size <= 0 || len(p) == 0 {
		return
	}
	if len(p) > r.size {
		p = p[len(p)-r.size:]
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if n := len(r.buf); n < r.size {
		take := min(len(p), r.size-n)
		if n+take > cap(r.buf) {
			nb := make([]byte, n, min(r.size, max(2*cap(r.buf), n+take, 512)))
			copy(nb, r.buf)
			r.buf = nb
		}
		r.buf = append(r.buf, p[:take]...)
		p = p[take:]
	}
	for len(p) > 0 {
		k := copy(r.buf[r.pos:], p)
		p = p[k:]
		r.pos = (r.pos + k) % r.size
	}
}

func (r *ring) bytes() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]byte, 0, len(r.buf))
	out = append(out, r.buf[r.pos:]...)
	return append(out, r.buf[:r.pos]...)
}

// lineSink splits stderr into lines for Config.StderrLine and the Logger,
// truncating long lines and rate-limiting the Logger. Drain goroutine only.
type lineSink struct {
	fn      func([]byte)
	logger  *slog.Logger
	attrs   []slog.Attr
	partial []byte // start of the current line, at most MaxStderrLineBytes
	cut     bool   // the current line was truncated

	window     time.Time // start of the current rate-limit second
	logged     int       // lines logged in the window
	suppressed int       // lines dropped since the last summary
}

func (s *lineSink) enabled() bool { return s.fn != nil || s.logger != nil }

func (s *lineSink) feed(p []byte) {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.accumulate(p)
			return
		}
		if len(s.partial) == 0 && !s.cut && i <= MaxStderrLineBytes {
			s.emit(p[:i], false) // the whole line is in p: no copy
		} else {
			s.accumulate(p[:i])
			s.emit(s.partial, s.cut)
			s.partial, s.cut = s.partial[:0], false
		}
		p = p[i+1:]
	}
}

func (s *lineSink) accumulate(p []byte) {
	room := MaxStderrLineBytes - len(s.partial)
	if len(p) > room {
		p, s.cut = p[:room], true
	}
	s.partial = append(s.partial, p...)
}

// finish flushes an unterminated last line and a pending summary.
func (s *lineSink) finish() {
	if len(s.partial) > 0 || s.cut {
		s.emit(s.partial, s.cut)
	}
	s.partial = nil
	s.summarize()
}

func (s *lineSink) emit(line []byte, truncated bool) {
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) == 0 {
		return
	}
	if s.fn != nil {
		s.fn(line)
	}
	if s.logger == nil || !s.logger.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	if now := time.Now(); now.Sub(s.window) >= time.Second {
		s.summarize()
		s.window, s.logged = now, 0
	}
	if s.logged >= StderrLogLinesPerSecond {
		s.suppressed++
		return
	}
	s.logged++
	attrs := append(s.attrs[:len(s.attrs):len(s.attrs)], slog.String("line", string(line)))
	if truncated {
		attrs = append(attrs, slog.Bool("truncated", true))
	}
	s.logger.LogAttrs(context.Background(), slog.LevelDebug, "mcp server stderr", attrs...)
}

func (s *lineSink) summarize() {
	if s.suppressed == 0 || s.logger == nil {
		return
	}
	attrs := append(s.attrs[:len(s.attrs):len(s.attrs)], slog.Int("suppressed_lines", s.suppressed))
	s.logger.LogAttrs(context.Background(), slog.LevelDebug, "mcp server stderr rate-limited", attrs...)
	s.suppressed = 0
}

// drainStderr copies the child's stderr into the ring and the line sink
// until stderr reports EOF (every process holding its write end has exited)
// or an error (Close set a read deadline or closed it), then closes done.
func drainStderr(f *os.File, r *ring, sink *lineSink, done chan<- struct{}) {
	defer close(done)
	poll := newPollReader(f)
	var own []byte
	if poll == nil {
		own = make([]byte, stderrReadBytes)
	}
	for {
		var buf []byte
		var n int
		var err error
		if poll != nil {
			buf, n, err = poll.read() // holds no buffer while the child is quiet
		} else {
			buf = own
			n, err = f.Read(buf)
		}
		if n > 0 {
			r.write(buf[:n])
			if sink.enabled() {
				sink.feed(buf[:n])
			}
		}
		if poll != nil && buf != nil {
			putReadBuf(buf)
		}
		if err != nil {
			if sink.enabled() {
				sink.finish()
			}
			return
		}
	}
}
