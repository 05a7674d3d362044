package h2stream

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// errIdle closes a connection whose last stream ended.
var errIdle = errors.New("mcpengine/h2stream: idle connection closed")

// clientConn is one HTTP/2 connection. Three parts, each with its owner:
// the pool's accounting (open, full: Transport.mu), the writers' state
// (wmu: the framer's write side, the hpack encoder), and the streams and
// the server's settings (mu), which the read loop changes.
type clientConn struct {
	t      *Transport
	origin originKey
	nc     net.Conn
	fr     *http2.Framer
	done   chan struct{} // closed when the read loop exits

	// Guarded by Transport.mu.
	open      int         // streams holding a slot (reserved or open)
	full      bool        // out of the pool: takes no new stream
	idleSince time.Time   // when open last fell to zero
	idleTimer *time.Timer // closes the connection IdleTimeout after it went idle

	maxStreams atomic.Uint32 // the server's MAX_CONCURRENT_STREAMS
	lastRead   atomic.Int64  // when the read loop last read a frame (UnixNano), for health
	health     health

	wmu  sync.Mutex // one writer of frames at a time; taken before mu
	bw   *bufio.Writer
	henc *hpack.Encoder
	hbuf bytes.Buffer

	mu            sync.Mutex
	streams       map[uint32]*stream
	nextID        uint32
	goAway        *GoAwayError // the server's GOAWAY, once received
	err           error        // the connection's failure, once failed or closed
	initialWindow int64        // the server's SETTINGS_INITIAL_WINDOW_SIZE: a new stream's send window
	maxFrame      uint32       // the server's SETTINGS_MAX_FRAME_SIZE
	sendWindow    int64        // the connection's send window, for request bodies
	windowQueue   streamList   // streams waiting for the connection's send window, first come first served
	headerWaits   headerWaits

	unrefunded uint32 // connection window received and not yet given back (read loop only)
}

func newClientConn(t *Transport, origin originKey, nc net.Conn) *clientConn {
	cc := &clientConn{
		t:             t,
		origin:        origin,
		nc:            nc,
		done:          make(chan struct{}),
		streams:       map[uint32]*stream{},
		nextID:        1,
		initialWindow: 65535,
		maxFrame:      16384,
		sendWindow:    65535,
	}
	cc.maxStreams.Store(1000) // until the server says otherwise (its first SETTINGS)
	cc.bw = bufio.NewWriterSize(deadlineWriter{nc}, 4<<10)
	cc.fr = http2.NewFramer(cc.bw, bufio.NewReaderSize(nc, 4<<10))
	cc.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	cc.fr.MaxHeaderListSize = maxHeaderListSize
	cc.henc = hpack.NewEncoder(&cc.hbuf)
	return cc
}

// deadlineWriter bounds every write to the connection by writeTimeout.
type deadlineWriter struct{ nc net.Conn }

func (w deadlineWriter) Write(p []byte) (int, error) {
	_ = w.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
	return w.nc.Write(p)
}

// reserveLocked takes a stream slot if the connection has room; the
// caller holds Transport.mu.
func (cc *clientConn) reserveLocked() bool {
	if cc.full || cc.open >= int(cc.maxStreams.Load()) || cc.open >= cc.t.opts.MaxStreamsPerConn {
		return false
	}
	cc.open++
	return true
}

// writePreface sends the client preface, our SETTINGS and the connection
// window's first increment.
func (cc *clientConn) writePreface() error {
	cc.wmu.Lock()
	defer cc.wmu.Unlock()
	if _, err := cc.bw.WriteString(http2.ClientPreface); err != nil {
		return err
	}
	if err := cc.fr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: cc.t.opts.StreamWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: maxHeaderListSize},
	); err != nil {
		return err
	}
	if w := cc.t.connWindow; w > 65535 {
		if err := cc.fr.WriteWindowUpdate(0, w-65535); err != nil {
			return err
		}
	}
	return cc.bw.Flush()
}

// readServerSettings reads the server's first frame, which must be its
// SETTINGS, applies and acknowledges them.
func (cc *clientConn) readServerSettings() error {
	f, err := cc.fr.ReadFrame()
	if err != nil {
		return err
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return &ProtocolError{Code: http2.ErrCodeProtocol, Reason: "the server's first frame is not SETTINGS"}
	}
	return cc.applySettings(sf)
}

// applySettings takes the server's settings into account and
// acknowledges them.
func (cc *clientConn) applySettings(sf *http2.SettingsFrame) error {
	err := sf.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			cc.maxStreams.Store(s.Val)
		case http2.SettingInitialWindowSize:
			if s.Val > maxWindow {
				return &ProtocolError{Code: http2.ErrCodeFlowControl, Reason: "SETTINGS_INITIAL_WINDOW_SIZE above 2^31-1"}
			}
			cc.mu.Lock()
			cc.setInitialWindowLocked(s.Val)
			cc.mu.Unlock()
		case http2.SettingMaxFrameSize:
			cc.mu.Lock()
			cc.maxFrame = s.Val
			cc.mu.Unlock()
		case http2.SettingHeaderTableSize:
			cc.wmu.Lock()
			cc.henc.SetMaxDynamicTableSizeLimit(s.Val)
			cc.wmu.Unlock()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return cc.write(func() error { return cc.fr.WriteSettingsAck() })
}

// write runs fn under the write lock and flushes. A failed write fails
// the connection.
func (cc *clientConn) write(fn func() error) error {
	cc.wmu.Lock()
	err := fn()
	if err == nil {
		err = cc.bw.Flush()
	}
	cc.wmu.Unlock()
	if err != nil {
		cc.close(&ConnError{Err: err})
	}
	return err
}

// writeRST resets stream id (best effort).
func (cc *clientConn) writeRST(id uint32, code http2.ErrCode) {
	_ = cc.write(func() error { return cc.fr.WriteRSTStream(id, code) })
}

// writeWindowUpdate gives n bytes of receive window back to stream id (0:
// the connection).
func (cc *clientConn) writeWindowUpdate(id, n uint32) {
	_ = cc.write(func() error { return cc.fr.WriteWindowUpdate(id, n) })
}

// close fails every stream with err (wrapped in *ConnError unless it is
// already one, ErrClosed or errIdle) and closes the connection; the read
// loop exits on the closed connection. The first call wins.
func (cc *clientConn) close(err error) {
	cc.mu.Lock()
	if cc.err != nil {
		cc.mu.Unlock()
		return
	}
	cc.err = err
	streams := cc.streams
	cc.streams = nil
	cc.stopHealthLocked()
	cc.stopHeaderWaitsLocked()
	cc.mu.Unlock()
	cc.t.unusable(cc)
	_ = cc.nc.Close()
	var ce *ConnError
	if !errors.As(err, &ce) && err != ErrClosed {
		err = &ConnError{Err: err}
	}
	for _, s := range streams {
		s.fail(err, false, false)
	}
}
