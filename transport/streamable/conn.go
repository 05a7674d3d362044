package streamable

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/httpx"
	"github.com/mcpengine/mcpengine/transport/internal/httpcore"
)

// conn is one Streamable HTTP connection (one MCP session on the server);
// it implements transport.RequestConn.
type conn struct {
	target    *url.URL // the server's URL, shared by the POSTs (httpcore.NewPost)
	name      string   // the redacted URL, for logs
	client    *http.Client
	header    http.Header // canonical copy of Dialer.Header
	max       int
	log       *slog.Logger
	reconnect time.Duration
	scrub     atomic.Pointer[httpx.Scrubber] // replaced when the session id is learned

	sink  httpcore.Sink
	sched *httpcore.Scheduler[*post]

	mu        sync.Mutex
	sessionID string
	version   string                // sent as MCP-Protocol-Version when set
	inflight  inflight              // requests sent and not yet answered
	live      livePosts             // posts whose goroutine runs: Close cancels them
	get       *listener             // the GET stream's loop, while it runs
	legacy    transport.RequestConn // after falling back to HTTP+SSE
	held      []transport.Message   // sent during the fallback, frames copied
	// holds are the requests kept for their callers (caller_runs.go),
	// made at the first and kept: a waiting caller's every call passes
	// through it.
	holds     *holds
	fallback  bool // set at dial, read-only after
	getOff    bool // the server has no GET stream
	holding   bool // falling back: frames wait in held
	closed    bool
	closeOnce sync.Once
}

var _ transport.RequestConn = (*conn)(nil)

// post is one outgoing frame on its way.
type post struct {
	out httpcore.Outgoing
	pc  *postCtx // the post's own context (post_ctx.go)
	// pend is one per request in the frame, in place: the in-flight
	// requests point into it.
	pend   []pending
	header http.Header // the caller's own headers of the frame's request
	// only backs pend for a frame of one request (nearly every frame), so
	// that it costs no allocation of its own.
	only [1]pending
	// body and values back the request's body and its header values
	// (valueSlot), so that building the request allocates neither.
	body   httpcore.Body
	values [valueSlots]string
	// inline: the POST runs on its caller's goroutine (caller_runs.go).
	// Guarded by conn.mu.
	inline bool
	// aborted: a canceller took p (conn.mu held) and may cancel it after
	// releasing the lock, so its context is not handed back.
	aborted bool
}

// listen reports whether p is a 2026-07-28 subscriptions/listen, whose
// answer stream stays open while the session listens.
func (p *post) listen() bool {
	return p.out.Modern.Method == messages.MethodSubscriptionsListen
}

// valueSlot is where a header value of a post is kept (post.values). A
// 2026-07-28 request has no session id, so its method takes the session
// id's place: three slots, not four (post_size_test.go).
type valueSlot int

const (
	valueSessionOrMethod valueSlot = iota // Mcp-Session-Id, or a 2026-07-28 Mcp-Method
	valueVersion                          // Mcp-Protocol-Version
	valueName                             // a 2026-07-28 Mcp-Name
	valueSlots
)

// headerValue returns s as a header value backed by p.values[i]: a
// one-element slice with no room to grow into the next value.
func (p *post) headerValue(i valueSlot, s string) []string {
	p.values[i] = s
	return p.values[i : i+1 : i+1]
}

// pending is one request waiting for its answer. Guarded by conn.mu.
type pending struct {
	id        messages.ID
	done      bool // answered: delivered, or failed with a synthesized answer
	abandoned bool // the client cancelled it: no answer is synthesized
	post      *post
}

// listener is one run of the GET stream loop.
type listener struct {
	stop context.CancelFunc
	// opened is closed once the first GET has its answer (the stream is
	// open, or refused, or failed): notifications/initialized waits for it.
	opened    chan struct{}
	openedOne sync.Once
}

// markOpened closes l.opened once.
func (l *listener) markOpened() { l.openedOne.Do(func() { close(l.opened) }) }

func newConn(d *Dialer, u *url.URL) *conn {
	target := *u
	target.Host = strings.TrimSuffix(target.Host, ":") // as http.NewRequest has it
	c := &conn{
		target:    &target,
		name:      httpx.RedactParsedURL(u),
		client:    d.Client,
		header:    httpx.Merge(d.Header),
		max:       d.MaxFrameBytes,
		log:       d.Logger,
		fallback:  d.FallbackToSSE,
		reconnect: d.ReconnectDelay,
	}
	if c.client == nil {
		c.client = httpx.DefaultClient()
	}
	if c.max <= 0 {
		c.max = transport.DefaultMaxFrameBytes
	}
	if c.log == nil {
		c.log = slog.New(slog.DiscardHandler)
	}
	if c.reconnect <= 0 {
		c.reconnect = DefaultReconnectDelay
	}
	c.scrub.Store(httpx.NewScrubber(c.header, c.target.String()))
	c.sched = httpcore.NewScheduler(c.runPost)
	return c
}

// ReadFrame is not used: the connection is a transport.RequestConn.
func (c *conn) ReadFrame() ([]byte, error) {
	c.mu.Lock()
	closed := c.closed
	c.mu.Unlock()
	return httpcore.ReadFrame(closed)
}

// Start implements transport.RequestConn.
func (c *conn) Start(deliver func(*transport.Inbound), fail func(error)) {
	c.sink.Start(deliver, fail)
}

// WriteFrames sends each frame as Send sends the message it holds: it is
// the plain transport.Conn way in, for users other than the session, which
// sends messages (transport.RequestConn). Each frame is decoded
// (httpcore.MessageOf).
func (c *conn) WriteFrames(frames ...[]byte) error {
	msgs := make([]transport.Message, len(frames))
	for i, f := range frames {
		msgs[i] = httpcore.MessageOf(f)
	}
	return c.Send(msgs...)
}

// Send implements transport.RequestConn: each message becomes a POST of
// its own, on a goroutine of the scheduler or, held for its caller, on
// that caller's (caller_runs.go), and Send returns without waiting for
// the network (see the package doc for the order kept). The frames are
// copied. It fails only after Close (transport.ErrClosed) or after the
// connection failed (that error).
func (c *conn) Send(msgs ...transport.Message) error {
	// A connection that fell back to HTTP+SSE hands the messages over
	// under the lock below: looking first would take the lock twice per
	// message for what is rare.

	// Copy the frames outside the lock: a large tool argument is not free
	// to copy.
	var onePost [1]*post // the engine sends one message at a time
	posts := onePost[:0]
	if len(msgs) > 1 {
		posts = make([]*post, 0, len(msgs))
	}
	for i := range msgs {
		p := &post{header: msgs[i].Header}
		httpcore.OutgoingInto(&p.out, &msgs[i])
		p.takeCtx()
		if len(p.out.Requests) == 1 {
			p.only[0] = pending{id: p.out.Requests[0], post: p}
			p.pend = p.only[:]
		}
		posts = append(posts, p)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	var err error
	switch {
	case c.closed:
		err = transport.ErrClosed
	case c.sink.Err() != nil:
		err = c.sink.Err()
	case c.legacy != nil: // the fallback completed meanwhile
		err = c.legacy.Send(msgs...) // never blocks, never calls back under our lock
	case c.holding: // the fallback is under way: these go out after the initialize request
		for i, p := range posts {
			m := msgs[i]
			m.Frame = p.out.Frame // the private copy
			c.held = append(c.held, m)
		}
	default:
		for _, p := range posts {
			c.inflight.add(p.pend)
			c.live.add(p)
			if c.keepForCallerLocked(p) {
				continue // RunRequest runs it on its caller's goroutine
			}
			// The listen runs beside the scheduler's jobs, not as one: a
			// job that runs for the session's life would keep every
			// worker that finished a call parked beside it (one more
			// goroutine per listening session that ever called).
			if !p.listen() || !c.sched.Go(func() { c.runPost(p) }) {
				c.sched.Submit(p, p.out.Notification) // not closed: Close sets c.closed first
			}
		}
		return nil
	}
	for _, p := range posts {
		p.releaseCtx(true) // nobody else saw these posts
	}
	return err
}

// SessionID implements transport.RequestConn: the Mcp-Session-Id the
// server assigned, "" before.
func (c *conn) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// Negotiated implements transport.RequestConn: it records the protocol
// version for the MCP-Protocol-Version header and opens or closes the GET
// stream as info.Listen says. It never blocks.
func (c *conn) Negotiated(info transport.SessionInfo) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || c.legacy != nil {
		return
	}
	if validVersion(info.ProtocolVersion) {
		c.version = info.ProtocolVersion
	}
	switch {
	case info.Listen && c.get == nil && !c.getOff:
		// Its own context, not one derived from a connection-wide one,
		// which would keep a map of children for the connection's life:
		// Close stops the listener itself.
		ctx, stop := context.WithCancel(context.Background())
		l := &listener{stop: stop, opened: make(chan struct{})}
		if c.sched.Go(func() { c.listen(ctx, l) }) {
			c.get = l
		} else {
			stop()
		}
	case !info.Listen && c.get != nil:
		c.get.stop()
		c.get = nil
	}
}

// validVersion accepts what can go into a header: a short run of visible
// ASCII.
func validVersion(v string) bool {
	return v != "" && len(v) <= 32 && visibleASCII(v)
}

func visibleASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x21 || s[i] > 0x7E {
			return false
		}
	}
	return true
}

// versionHeader says whether the negotiated version is sent as a header:
// the header exists from 2025-03-26 on (required from 2025-06-18; for
// 2025-03-26 it merely states what the server assumes anyway).
func versionHeader(v string) bool {
	return v != "" && messages.VersionAtLeast(v, messages.Version20250326)
}

// Close cancels every request in flight and the GET stream, deletes the
// session on the server (best effort, bounded by ctx, and by
// deleteTimeout when ctx has no deadline), and waits for every goroutine
// the connection started. It is idempotent and always returns nil.
func (c *conn) Close(ctx context.Context) error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		sid, version, legacy := c.sessionID, c.version, c.legacy
		c.held = nil
		c.holds = nil
		live := c.live
		c.live = livePosts{}
		if c.get != nil {
			c.get.stop()
		}
		c.mu.Unlock()

		c.sink.Close()
		c.sched.Close()
		live.each((*post).cancel)
		if legacy != nil {
			_ = legacy.Close(ctx)
		}
		if sid != "" {
			c.deleteSession(ctx, sid, version)
		}
		c.sched.Wait()
	})
	return nil
}

// deleteTimeout bounds the DELETE of Close when its context has no
// deadline.
const deleteTimeout = 5 * time.Second

func (c *conn) deleteSession(ctx context.Context, sid, version string) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, deleteTimeout)
		defer cancel()
	}
	req, err := httpcore.NewRequest(ctx, http.MethodDelete, c.target.String(), c.header, nil)
	if err != nil {
		return
	}
	req.Header[httpcore.HeaderSessionID] = []string{sid}
	if versionHeader(version) {
		req.Header[httpcore.HeaderProtocolVersion] = []string{version}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		c.log.Debug("deleting the session failed", slog.String("url", c.name), slog.String("error", httpcore.ErrorReason(err, c.scrub.Load())))
		return
	}
	httpcore.Discard(resp.Body)
	c.log.Debug("session deleted", slog.String("url", c.name), slog.Int("status", resp.StatusCode))
}

// send issues one request other than a frame's POST (a GET, the probe)
// with the connection's headers, the session id and the protocol version
// as known now. It returns the session id it sent, to tell a 404 for a
// known session from any other 404.
func (c *conn) send(ctx context.Context, method string, body []byte, lastEventID string) (*http.Response, string, error) {
	req, err := httpcore.NewRequest(ctx, method, c.target.String(), c.header, body)
	if err != nil {
		return nil, "", err
	}
	c.mu.Lock()
	sid, version := c.sessionID, c.version
	c.mu.Unlock()
	if sid != "" {
		req.Header[httpcore.HeaderSessionID] = []string{sid}
	}
	if versionHeader(version) {
		req.Header[httpcore.HeaderProtocolVersion] = []string{version}
	}
	if lastEventID != "" {
		req.Header[httpcore.HeaderLastEventID] = []string{lastEventID}
	}
	resp, err := c.client.Do(req)
	return resp, sid, err
}

// sendPost sends p's frame. A 2026-07-28 request carries the headers
// that mirror its body (protocol version, method, name) and no session
// id, which that era does not have; the caller's own headers go along.
// It returns the session id it sent, as send does.
func (c *conn) sendPost(p *post) (*http.Response, string, error) {
	c.mu.Lock()
	sid, version := c.sessionID, c.version
	c.mu.Unlock()
	mod := &p.out.Modern
	if mod.Set() {
		sid, version = "", mod.Version
	}
	sendVersion := versionHeader(version)
	// Counted so that the request's header map is made for them
	// (httpcore.NewPost).
	extra := len(p.header) + count(sid != "") + count(sendVersion)
	if mod.Set() {
		extra += 1 + count(mod.Name != "")
	}
	req := httpcore.NewPost(p.ctx(), c.target, c.header, extra, &p.body, p.out.Frame)
	if p.header != nil {
		addCallerHeaders(req, p.header)
	}
	if mod.Set() {
		req.Header[httpcore.HeaderMethod] = p.headerValue(valueSessionOrMethod, mod.Method)
		if mod.Name != "" {
			req.Header[httpcore.HeaderName] = p.headerValue(valueName, mod.Name)
		}
	}
	if sid != "" {
		req.Header[httpcore.HeaderSessionID] = p.headerValue(valueSessionOrMethod, sid)
	}
	if sendVersion {
		req.Header[httpcore.HeaderProtocolVersion] = p.headerValue(valueVersion, version)
	}
	resp, err := httpcore.Do(c.client, req)
	return resp, sid, err
}

// count is 1 for true, 0 for false.
func count(b bool) int {
	if b {
		return 1
	}
	return 0
}

// expire fails the connection: the server no longer knows the session.
func (c *conn) expire() {
	if c.sink.Fail(transport.ErrSessionExpired) {
		c.log.Debug("the server expired the session", slog.String("url", c.name))
	}
}

// captureSession records the session id from the initialize answer. An id
// that cannot be sent back as a header (not visible ASCII) is refused.
func (c *conn) captureSession(h http.Header) bool {
	sid := h.Get(httpcore.HeaderSessionID)
	if sid == "" {
		return true
	}
	if !visibleASCII(sid) {
		return false
	}
	c.mu.Lock()
	c.sessionID = sid
	c.mu.Unlock()
	c.scrub.Store(c.scrub.Load().With(sid))
	return true
}
