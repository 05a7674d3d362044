package gateway

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// frontSession is one client session of the aggregated Streamable HTTP
// endpoint. The HTTP handlers of its requests do its work; the requests
// of a POST answered with an event stream run on goroutines of the
// session's (handlers), so that they go on when the client loses the
// stream and resumes it. Its idle timeout is a timer (lease).
type frontSession struct {
	id      string
	g       *Gateway
	who     *principal
	version string
	caps    messages.ClientCapabilities
	modern  bool        // a stateless-era request's session (front_modern.go)
	legacy  bool        // a session of the legacy HTTP+SSE front (front_legacy.go)
	inputs  chan []byte // a modern request\'s requests to its client, for input_required (front_input.go)
	// initialized is set once version and caps hold (at once, but for a
	// legacy session at its initialize); its requests wait for it.
	initialized atomic.Bool
	standalone  *frontStream // the GET stream's messages, held while none is open
	lease       *mcpserver.Lease
	outbound    mcpserver.Outbound // the gateway's requests to the client

	ctx    context.Context // the handlers' base; cancelled when the session ends
	cancel context.CancelFunc
	done   chan struct{} // closed when the session ended

	handlers sync.WaitGroup // request goroutines of SSE answers; waited for by end

	mu         sync.Mutex
	ended      bool
	inflight   map[string]context.CancelFunc // the client's requests in progress, by id
	streams    map[int]*frontStream          // resumable: standalone, open answers, kept complete ones
	nextStream int
	kept       []int // complete answer streams still kept, oldest first
	subs       map[subKey]struct{}
	// upProgress maps the progress tokens the gateway put into server
	// requests it forwarded to the server's own tokens, for the client's
	// progress on them.
	upProgress map[string]serverToken
	logLevel   int // index in logLevels; -1 until logging/setLevel
}

type subKey struct{ server, uri string }

// serverToken is a server's progress token and the session it came on.
type serverToken struct {
	m   *member
	tok messages.RawMessage
}

var logLevels = []messages.LoggingLevel{
	messages.LoggingLevelDebug, messages.LoggingLevelInfo, messages.LoggingLevelNotice, messages.LoggingLevelWarning,
	messages.LoggingLevelError, messages.LoggingLevelCritical, messages.LoggingLevelAlert, messages.LoggingLevelEmergency,
}

// request sends the client a request on out (the answer stream of the
// client request that caused it) or, when that is closed or absent, on the
// standalone stream, and waits for the client's answer. If ctx ends first
// (the server cancelled) the client gets notifications/cancelled on the
// same stream, or the standalone one once that is closed.
func (fs *frontSession) request(ctx context.Context, out *frontStream, method string, params messages.RawMessage) (messages.RawMessage, error) {
	if fs.modern {
		return fs.inputRequest(ctx, method, params)
	}
	var q *frontStream
	send := func(frame []byte) {
		switch {
		case q != nil && q.push(frame):
		case q == nil && out != nil && out.push(frame):
			q = out
		default:
			q = fs.standalone
			q.push(frame)
		}
	}
	return fs.outbound.Call(ctx, send, method, params, fs.g.cfg.ClientRequestTimeout, fs.done)
}

// inputRequest asks a 2026-07-28 client: the request goes out with the
// input_required answer of the client request in progress (front_input.go);
// the client's answer comes with its retry. Nothing tells the client of a
// request the server gave up on: it is simply not waited for.
func (fs *frontSession) inputRequest(ctx context.Context, method string, params messages.RawMessage) (messages.RawMessage, error) {
	if fs.inputs == nil {
		return nil, &messages.WireError{Code: messages.CodeMethodNotFound, Message: "gateway: a request answered with an event stream takes no input from its client"}
	}
	send := func(frame []byte) {
		if m, err := messages.DecodeMessage(frame); err == nil && m.Kind == messages.KindRequest {
			select {
			case fs.inputs <- frame:
			default: // more input requests at once than a round holds: this one times out
			}
		}
	}
	// No timeout of its own: the client answers with its retry, and the
	// suspension's expiry (ClientRequestTimeout between HTTP requests)
	// ends the session, which ends this wait.
	return fs.outbound.Call(ctx, send, method, params, 0, fs.done)
}

// mapProgress records that the client's progress under tok belongs to
// the server's token st; the returned function forgets it.
func (fs *frontSession) mapProgress(tok string, st serverToken) (forget func()) {
	fs.mu.Lock()
	if fs.upProgress == nil {
		fs.upProgress = map[string]serverToken{}
	}
	fs.upProgress[tok] = st
	fs.mu.Unlock()
	return func() {
		fs.mu.Lock()
		delete(fs.upProgress, tok)
		fs.mu.Unlock()
	}
}

// progress forwards the client's progress on a server request to the
// server, under the server's own token.
func (fs *frontSession) progress(ctx context.Context, params messages.RawMessage) {
	var p struct {
		Token string `json:"progressToken"` // the gateway's tokens are strings
	}
	if messages.Unmarshal(params, &p) != nil {
		return
	}
	fs.mu.Lock()
	st, ok := fs.upProgress[p.Token]
	fs.mu.Unlock()
	if !ok {
		return
	}
	if out, err := setMember(params, messages.MetaProgressToken, st.tok); err == nil {
		if err := st.m.s.Notify(ctx, messages.NotificationProgress, out); err != nil {
			fs.g.log.Debug("gateway: forwarding the client's progress failed", "server", st.m.srv.name, "err", err)
		}
	}
}

// answered hands the client's response to the request waiting for it.
func (fs *frontSession) answered(m *messages.Message) { fs.outbound.Answer(m) }

// track registers a client request in progress so notifications/cancelled
// can find it; it reports false for a duplicate id.
func (fs *frontSession) track(id messages.ID, cancel context.CancelFunc) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	key := id.String()
	if _, dup := fs.inflight[key]; dup {
		return false
	}
	fs.inflight[key] = cancel
	return true
}

func (fs *frontSession) untrack(id messages.ID) {
	fs.mu.Lock()
	delete(fs.inflight, id.String())
	fs.mu.Unlock()
}

// cancelled handles the client's notifications/cancelled.
func (fs *frontSession) cancelled(params messages.RawMessage) {
	var p messages.CancelledParams
	if messages.Unmarshal(params, &p) != nil || !p.RequestID.IsValid() {
		return
	}
	fs.mu.Lock()
	cancel := fs.inflight[p.RequestID.String()]
	fs.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// setLogLevel records the client's logging/setLevel.
func (fs *frontSession) setLogLevel(level messages.LoggingLevel) bool {
	i := slices.Index(logLevels, level)
	if i < 0 {
		return false
	}
	fs.mu.Lock()
	fs.logLevel = i
	fs.mu.Unlock()
	return true
}

// wantsLog reports whether a server log message of level goes to this
// client: all do until it sets a level.
func (fs *frontSession) wantsLog(level messages.LoggingLevel) bool {
	fs.mu.Lock()
	min := fs.logLevel
	fs.mu.Unlock()
	return min < 0 || slices.Index(logLevels, level) >= min
}

// takesServerRequests reports whether the client declared any capability
// that makes the gateway send it requests.
func (fs *frontSession) takesServerRequests() bool {
	c := fs.caps
	return c.Sampling != nil || c.Elicitation != nil || c.Roots != nil
}

// end ends the session: requests waiting for the client fail, queues
// close, subscriptions held for it are dropped upstream.
func (fs *frontSession) end() {
	fs.mu.Lock()
	if fs.ended {
		fs.mu.Unlock()
		return
	}
	fs.ended = true
	fs.lease.End()
	cancels := make([]context.CancelFunc, 0, len(fs.inflight))
	for _, c := range fs.inflight {
		cancels = append(cancels, c)
	}
	subs := fs.subs
	fs.subs = nil
	fs.mu.Unlock()
	// The client's requests are cancelled (upstream too) before the
	// server requests waiting for the client fail: a server then learns
	// that its request was cancelled, not that the client refused what it
	// asked meanwhile. Nothing the handlers wait for needs done closed.
	for _, c := range cancels {
		c()
	}
	fs.cancel()
	fs.handlers.Wait()
	close(fs.done)
	fs.standalone.close()
	if len(subs) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), fs.g.cfg.ReadyWait)
	defer cancel()
	for k := range subs {
		if u := fs.g.servers[k.server]; u != nil {
			if err := u.unsubscribe(ctx, k.uri); err != nil {
				fs.g.log.Debug("gateway: dropping a subscription", "server", k.server, "err", err)
			}
		}
	}
}

// addSub and dropSub keep the session's subscriptions; they report whether
// the set changed.
func (fs *frontSession) addSub(k subKey) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.ended {
		return false
	}
	if _, ok := fs.subs[k]; ok {
		return false
	}
	fs.subs[k] = struct{}{}
	return true
}

func (fs *frontSession) dropSub(k subKey) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, ok := fs.subs[k]; !ok {
		return false
	}
	delete(fs.subs, k)
	return true
}

func (fs *frontSession) subscribed(k subKey) bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	_, ok := fs.subs[k]
	return ok
}

// openAnswer registers the SSE answer to a POST of owed requests, and
// counts its request goroutines (started by the caller) among the
// session's; nil once the session ended.
func (fs *frontSession) openAnswer(owed int) *frontStream {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.ended {
		return nil
	}
	fs.nextStream++
	st := newAnswerStream(fs.nextStream, owed)
	fs.streams[st.id] = st
	fs.handlers.Add(owed)
	return st
}

// keep records a complete answer stream among those kept for late
// resumptions, forgetting the oldest beyond answersKept.
func (fs *frontSession) keep(st *frontStream) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.kept = append(fs.kept, st.id)
	if len(fs.kept) > answersKept {
		delete(fs.streams, fs.kept[0])
		fs.kept = fs.kept[1:]
	}
}

// stream finds a stream by the id in a Last-Event-ID.
func (fs *frontSession) stream(id int) *frontStream {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.streams[id]
}

// startHandler counts a request goroutine the caller starts among the
// session's; false once the session ended.
func (fs *frontSession) startHandler() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.ended {
		return false
	}
	fs.handlers.Add(1)
	return true
}
