package gateway

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

// The gateway wraps each upstream connection to take two kinds of message
// out of what the engine's session reads, and handle them itself:
//
//   - roots/list requests. The engine answers them from its own
//     configured roots; it has no handler to ask someone else, as it has
//     for sampling and elicitation. The gateway asks its client instead
//     and answers on the same connection.
//   - progress notifications carrying a token the gateway made
//     (progressTokenPrefix). The engine hands progress to its callbacks on
//     a dispatcher of its own, so a call can return before its last
//     progress callback ran, and the client would see progress after the
//     answer, or not at all once its stream ended. Taken here, on the
//     connection's reader, progress reaches the client's stream before
//     the answer that follows it on the same connection.
//
// Only single-message frames are looked at; a roots/list inside a batch
// (which only 2025-03-26 servers may send) reaches the engine, which
// answers it with an empty list.

// progressTokenPrefix starts the progress tokens the gateway puts into the
// requests it forwards; the engine's own are integers.
const progressTokenPrefix = "mcpengine-gateway-"

// upstreamDialer wraps a dialer's connections.
type upstreamDialer struct {
	inner    transport.Dialer
	roots    func(ctx context.Context) (any, error)
	progress func(token string, params messages.RawMessage)
}

func (d *upstreamDialer) String() string { return d.inner.String() }

// Dial dials the inner transport and wraps the connection, keeping it a
// transport.PushConn when it is one.
func (d *upstreamDialer) Dial(ctx context.Context) (transport.Conn, error) {
	c, err := d.inner.Dial(ctx)
	if err != nil {
		return nil, err
	}
	ictx, cancel := context.WithCancel(context.Background())
	uc := &upstreamConn{inner: c, d: d, ctx: ictx, cancel: cancel}
	if pc, ok := c.(transport.PushConn); ok {
		return &upstreamPushConn{upstreamConn: uc, push: pc}, nil
	}
	return uc, nil
}

// upstreamConn is a wrapped connection. The session's writer and the
// gateway's answers both write to it, one at a time (wmu): the transport
// contract allows one writer at a time.
type upstreamConn struct {
	inner transport.Conn
	d     *upstreamDialer

	wmu sync.Mutex

	ctx    context.Context // cancelled by Close: ends the answers in progress
	cancel context.CancelFunc

	mu      sync.Mutex
	closed  bool
	answers sync.WaitGroup
}

var (
	rootsListMethod    = []byte(`"` + messages.MethodRootsList + `"`)
	progressMethod     = []byte(`"` + messages.NotificationProgress + `"`)
	gatewayTokenMarker = []byte(`"` + progressTokenPrefix)
)

// ReadFrame returns the next frame the gateway does not take.
func (c *upstreamConn) ReadFrame() ([]byte, error) {
	for {
		f, err := c.inner.ReadFrame()
		if err != nil || !c.intercept(f) {
			return f, err
		}
	}
}

// intercept handles f if it is for the gateway and reports whether it
// was. The common frame costs two bytes.Contains.
func (c *upstreamConn) intercept(f []byte) bool {
	roots := bytes.Contains(f, rootsListMethod)
	progress := !roots && bytes.Contains(f, progressMethod) && bytes.Contains(f, gatewayTokenMarker)
	if !roots && !progress {
		return false
	}
	m, err := messages.DecodeMessage(f)
	if err != nil {
		return false
	}
	switch {
	case progress && m.Kind == messages.KindNotification && m.Method == messages.NotificationProgress:
		var p struct {
			Token string `json:"progressToken"` // a number fails: not the gateway's
		}
		if messages.Unmarshal(m.Params, &p) != nil || !strings.HasPrefix(p.Token, progressTokenPrefix) {
			return false
		}
		c.d.progress(p.Token, m.Params)
		return true
	case roots && m.Kind == messages.KindRequest && m.Method == messages.MethodRootsList:
		c.answerRoots(m.ID)
		return true
	}
	return false
}

// answerRoots answers a roots/list on a goroutine of its own: asking the
// gateway's client takes a round trip the reader must not wait for.
func (c *upstreamConn) answerRoots(id messages.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return // nobody would read the answer
	}
	c.answers.Add(1)
	// Owner: this connection (c.answers, waited for by Close). Exits when
	// the roots function returns, which c.ctx (cancelled by Close) and the
	// gateway's client request timeout bound.
	go func() {
		defer c.answers.Done()
		res, err := c.d.roots(c.ctx)
		var frame []byte
		if err == nil {
			var raw messages.RawMessage
			if raw, err = encodeResult(res); err == nil {
				frame = messages.AppendResult(nil, id, raw)
			}
		}
		if err != nil {
			we, ok := err.(*messages.WireError)
			if !ok {
				we = &messages.WireError{Code: messages.CodeInternalError, Message: err.Error()}
			}
			frame = messages.AppendError(nil, id, we)
		}
		_ = c.WriteFrames(frame) // a failed write fails the session's next one too
	}()
}

func encodeResult(res any) (messages.RawMessage, error) {
	if raw, ok := res.(messages.RawMessage); ok {
		return raw, nil
	}
	return messages.Marshal(res)
}

// WriteFrames writes under the connection's write lock.
func (c *upstreamConn) WriteFrames(frames ...[]byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.inner.WriteFrames(frames...)
}

// Close ends the answers in progress, closes the inner connection and
// waits for the answers to return.
func (c *upstreamConn) Close(ctx context.Context) error {
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.cancel()
	err := c.inner.Close(ctx)
	c.answers.Wait()
	return err
}

// Negotiated passes the handshake's outcome on (transport.SessionAware).
func (c *upstreamConn) Negotiated(info transport.SessionInfo) {
	if a, ok := c.inner.(transport.SessionAware); ok {
		a.Negotiated(info)
	}
}

// SessionID passes the transport's session id on
// (transport.SessionIdentified).
func (c *upstreamConn) SessionID() string {
	if s, ok := c.inner.(transport.SessionIdentified); ok {
		return s.SessionID()
	}
	return ""
}

// Stderr passes on the tail of a stdio server's stderr, which the session
// attaches to connection errors.
func (c *upstreamConn) Stderr() []byte {
	if s, ok := c.inner.(interface{ Stderr() []byte }); ok {
		return s.Stderr()
	}
	return nil
}

// upstreamPushConn is a wrapped transport.PushConn.
type upstreamPushConn struct {
	*upstreamConn
	push transport.PushConn
}

// Start filters the delivered frames the way ReadFrame does. Frames of
// one HTTP answer are delivered in order by one goroutine, so progress
// still precedes its answer.
func (c *upstreamPushConn) Start(deliver func(frame []byte), fail func(err error)) {
	c.push.Start(func(f []byte) {
		if !c.intercept(f) {
			deliver(f)
		}
	}, fail)
}

// progressRoutes maps the gateway's progress tokens to the client streams
// waiting for them.
type progressRoutes struct {
	n atomic.Uint64
	m sync.Map // token → func(messages.RawMessage)
}

// token returns a new token and its JSON form.
func (p *progressRoutes) token() (string, messages.RawMessage) {
	tok := progressTokenPrefix + strconv.FormatUint(p.n.Add(1), 10)
	return tok, messages.AppendJSONString(nil, tok)
}

func (p *progressRoutes) deliver(token string, params messages.RawMessage) {
	if fn, ok := p.m.Load(token); ok {
		fn.(func(messages.RawMessage))(params)
	}
}
