package demoserver

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

var (
	errSessionGone   = errors.New("demoserver: session ended")
	errDuplicateID   = errors.New("demoserver: a request with this id is already in progress")
	errUnknownStream = errors.New("demoserver: unknown or expired stream")
	errBadEventID    = errors.New("demoserver: event id beyond the stream's end")
	errStreamBusy    = errors.New("demoserver: the session's GET stream is already open")
)

// httpConn adapts one Streamable HTTP session to the transport.Conn the
// session logic serves: ReadFrame yields the POSTed frames, and WriteFrames
// routes each outbound frame to the stream it belongs on (see route). It
// never blocks on a client: frames queue in streams, and the HTTP handler
// carrying a stream writes them at the client's pace.
type httpConn struct {
	in    *inbox
	limit int // HistoryLimit

	mu         sync.Mutex
	closed     bool
	nextStream int
	standalone *stream
	streams    map[int]*stream // resumable: standalone, open SSE answers, retained completed ones
	retained   []int           // completed SSE answer streams still kept, oldest first

	waiting    map[messages.ID]*stream // request id → the answer owing its response
	tokens     map[messages.ID]*stream // progress token → SSE answer stream
	expects    []expectation           // server requests a running tool call will send
	serverReqs map[int64]*stream       // server request id → the stream that carried it

	initID     messages.ID // the initialize request's id, once seen
	version    string      // the negotiated protocol version, once answered
	initFailed bool        // the initialize request was answered with an error
}

// expectation is a server→client request that a tool call still running on
// an SSE answer stream is going to send (sample sends
// sampling/createMessage, and so on).
type expectation struct {
	method string
	st     *stream
}

func newHTTPConn(o *HTTPOptions) *httpConn {
	c := &httpConn{
		in:         newInbox(),
		limit:      o.HistoryLimit,
		nextStream: standaloneStreamID + 1,
		standalone: &stream{id: standaloneStreamID, standalone: true, log: mcpserver.EventLog{Lossy: true}},
		streams:    make(map[int]*stream),
		waiting:    make(map[messages.ID]*stream),
		tokens:     make(map[messages.ID]*stream),
		serverReqs: make(map[int64]*stream),
	}
	c.streams[standaloneStreamID] = c.standalone
	return c
}

// ReadFrame returns the next POSTed frame (transport.Conn).
func (c *httpConn) ReadFrame() ([]byte, error) { return c.in.read() }

// Close ends the connection (transport.Conn): reads and writes fail from
// now on. The streams stay readable; the HTTP handlers carrying them end
// when the session's Serve returns.
func (c *httpConn) Close(context.Context) error {
	c.in.close()
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	return nil
}

// outFrame is one outbound frame decoded for routing.
type outFrame struct {
	data []byte
	msgs []messages.Message // nil when the frame is not valid JSON-RPC (garbage fault)
}

// WriteFrames routes every frame to its stream (transport.Conn). It copies
// the frames and never blocks.
func (c *httpConn) WriteFrames(frames ...[]byte) error {
	out := make([]outFrame, len(frames))
	for i, f := range frames {
		out[i].data = bytes.Clone(f)
		out[i].msgs = decodeOutbound(f)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return transport.ErrClosed
	}
	var carry [][]byte // garbage, sent just before the next routed frame
	for _, f := range out {
		if f.msgs == nil {
			carry = append(carry, f.data)
			continue
		}
		st, response := c.routeLocked(f.msgs)
		if st == nil {
			continue // a response nobody waits for any more
		}
		for _, g := range carry {
			st.append(g, false, c.limit)
		}
		carry = nil
		st.append(f.data, response, c.limit)
		if response && st.owed <= 0 {
			c.completeLocked(st)
		}
	}
	for _, g := range carry {
		c.standalone.append(g, false, c.limit)
	}
	return nil
}

// decodeOutbound decodes the envelope of an outbound frame (a message or
// a batch array), or returns nil if any of it is not valid JSON-RPC.
// Unlike messages.DecodeFrame it has no size cap: the large tool's results
// may exceed what a client accepts, and must still be routed.
func decodeOutbound(f []byte) []messages.Message {
	f = trimLeft(f)
	if len(f) == 0 || f[0] != '[' {
		m, err := messages.DecodeMessage(f)
		if err != nil {
			return nil
		}
		return []messages.Message{m}
	}
	var parts []messages.RawMessage
	if messages.Unmarshal(f, &parts) != nil || len(parts) == 0 {
		return nil
	}
	msgs := make([]messages.Message, len(parts))
	for i, p := range parts {
		m, err := messages.DecodeMessage(p)
		if err != nil {
			return nil
		}
		msgs[i] = m
	}
	return msgs
}

// openAnswer registers the answer to a POST carrying requests before its
// frame is delivered, so that the responses find it. An SSE answer is
// resumable and, unless prime is false, starts with a priming event.
func (c *httpConn) openAnswer(p *postInfo, json, drop, prime bool) (*stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil, errSessionGone
	}
	for _, id := range p.requests {
		if _, dup := c.waiting[id]; dup {
			return nil, errDuplicateID
		}
	}
	st := &stream{id: c.nextStream, json: json, owed: len(p.requests), drop: drop && !json}
	c.nextStream++
	for _, id := range p.requests {
		c.waiting[id] = st
	}
	if p.init {
		c.initID = p.initID
	}
	if json {
		return st, nil
	}
	for _, tok := range p.tokens {
		c.tokens[tok] = st
		st.tokens = append(st.tokens, tok)
	}
	for _, m := range p.expects {
		c.expects = append(c.expects, expectation{method: m, st: st})
	}
	c.streams[st.id] = st
	if prime {
		st.append(nil, false, c.limit)
	}
	return st, nil
}

// deliver hands a POSTed frame to the session after noting what the
// transport needs from it: cancellations end the owed response, responses
// settle the server requests they answer.
func (c *httpConn) deliver(body []byte, p *postInfo) bool {
	if len(p.cancelled) > 0 || len(p.answered) > 0 {
		c.mu.Lock()
		for _, id := range p.cancelled {
			if st := c.waiting[id]; st != nil {
				delete(c.waiting, id)
				st.owed--
				if st.owed <= 0 {
					c.completeLocked(st)
				}
			}
		}
		for _, n := range p.answered {
			delete(c.serverReqs, n)
		}
		c.mu.Unlock()
	}
	return c.in.push(body)
}

// abandon forgets a JSON answer whose client went away: its responses are
// dropped when they come.
func (c *httpConn) abandon(st *stream) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, w := range c.waiting {
		if w == st {
			delete(c.waiting, id)
		}
	}
	st.owed = 0
	if !st.complete {
		c.completeLocked(st)
	}
}

// completeLocked marks an answer stream complete: its routing entries go,
// and an SSE stream is retained for late resumptions.
func (c *httpConn) completeLocked(st *stream) {
	st.complete = true
	for _, tok := range st.tokens {
		if c.tokens[tok] == st {
			delete(c.tokens, tok)
		}
	}
	st.tokens = nil
	c.expects = slices.DeleteFunc(c.expects, func(e expectation) bool { return e.st == st })
	for n, s := range c.serverReqs {
		if s == st {
			delete(c.serverReqs, n)
		}
	}
	if !st.json {
		c.retained = append(c.retained, st.id)
		if len(c.retained) > retainedStreams {
			delete(c.streams, c.retained[0])
			c.retained = c.retained[1:]
		}
	}
	if st.sink != nil {
		st.sink.signal()
	}
}

// attach makes sk the connection carrying st; a connection it replaces
// wakes up and finds itself replaced.
func (c *httpConn) attachLocked(st *stream, sk *sink) {
	if old := st.sink; old != nil {
		old.signal()
	}
	st.sink = sk
	st.attachments++
}

// detach lets go of st if sk still carries it.
func (c *httpConn) detach(st *stream, sk *sink) {
	c.mu.Lock()
	if st.sink == sk {
		st.sink = nil
	}
	c.mu.Unlock()
}

// finish lets go of a complete stream whose connection delivered every
// event: its events are released (a large result need not wait in memory
// for a resumption that will not come), while the stream stays known, so
// a late resumption finds it complete and empty rather than unknown.
func (c *httpConn) finish(st *stream, sk *sink) {
	c.mu.Lock()
	if st.sink == sk {
		st.sink = nil
		st.log.Release()
	}
	c.mu.Unlock()
}

// attachAnswer attaches the POST connection to its own answer stream.
func (c *httpConn) attachAnswer(st *stream, sk *sink) {
	c.mu.Lock()
	c.attachLocked(st, sk)
	c.mu.Unlock()
}

// openStandalone attaches a GET connection to the standalone stream and
// returns the seq it starts after: what earlier connections were handed
// is not sent again (a client wanting it resumes with Last-Event-ID).
func (c *httpConn) openStandalone(sk *sink, prime bool) (int64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.standalone
	switch {
	case c.closed:
		return 0, errSessionGone
	case st.sink != nil:
		return 0, errStreamBusy
	}
	c.attachLocked(st, sk)
	cursor := st.log.Sent()
	if prime && !st.log.Undelivered() {
		st.append(nil, false, c.limit)
	}
	return cursor, nil
}

// resume attaches a GET connection to the stream named by a Last-Event-ID,
// taking it over from any connection still carrying it.
func (c *httpConn) resume(streamID int, seq int64, sk *sink) (*stream, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.streams[streamID]
	switch {
	case st == nil:
		return nil, errUnknownStream
	case seq > st.log.Last():
		return nil, errBadEventID
	}
	c.attachLocked(st, sk)
	return st, nil
}

// markSent records that events up to seq were handed to a connection.
func (c *httpConn) markSent(st *stream, seq int64) {
	c.mu.Lock()
	st.log.MarkSent(seq, c.limit)
	c.mu.Unlock()
}

// initOutcome reports what the session answered to initialize.
func (c *httpConn) initOutcome() (version string, failed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version, c.initFailed
}

// negotiated returns the protocol version answered to initialize.
func (c *httpConn) negotiated() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}
