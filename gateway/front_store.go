package gateway

import (
	"context"
	"sync"

	"github.com/mcpengine/mcpengine/internal/mcpserver"
	"github.com/mcpengine/mcpengine/messages"
)

// fronts holds the aggregated endpoint's sessions.
type fronts struct {
	g *Gateway

	sessions mcpserver.Table[*frontSession]

	mu      sync.Mutex
	listens map[*frontListen]struct{} // open subscriptions/listen requests (2026-07-28)
}

func newFronts(g *Gateway) *fronts {
	return &fronts{g: g, listens: map[*frontListen]struct{}{}}
}

// create registers a new session: of the Streamable HTTP endpoint for an
// initialize, or of the legacy one for its GET stream (initialized later,
// front_legacy.go); nil once closed.
func (f *fronts) create(who *principal, version string, caps messages.ClientCapabilities, legacy bool) *frontSession {
	fs := newFrontSession(f.g, who, version, caps)
	idle := f.g.cfg.SessionIdleTimeout
	if legacy {
		// A legacy session lives as long as its GET stream, not by leases.
		fs.legacy, idle = true, 0
	} else {
		fs.initialized.Store(true)
	}
	fs.lease = mcpserver.NewLease(idle, func() {
		f.g.log.Debug("gateway: client session idle, ending it", "session", fs.id, "client", fs.who.name)
		f.end(fs)
	})
	fs.lease.Hold() // by the request creating it, which releases it
	if !f.sessions.Add(fs.id, fs, func() { f.g.metrics.sessionsOpen(1) }) {
		fs.cancel()
		return nil
	}
	return fs
}

// newFrontSession is a session not yet registered, without a lease.
func newFrontSession(g *Gateway, who *principal, version string, caps messages.ClientCapabilities) *frontSession {
	fs := &frontSession{
		id:         mcpserver.NewSessionID(),
		g:          g,
		who:        who,
		version:    version,
		caps:       caps,
		standalone: newStandaloneStream(),
		done:       make(chan struct{}),
		inflight:   map[string]context.CancelFunc{},
		streams:    map[int]*frontStream{},
		subs:       map[subKey]struct{}{},
		logLevel:   -1,
	}
	fs.streams[standaloneStreamID] = fs.standalone
	fs.ctx, fs.cancel = context.WithCancel(context.Background())
	return fs
}

// lookup finds a live session and counts an HTTP request in progress on
// it; release ends that.
func (f *fronts) lookup(id string) *frontSession {
	fs, _ := f.sessions.Get(id)
	if fs == nil || !fs.lease.Hold() {
		return nil
	}
	return fs
}

func (f *fronts) release(fs *frontSession) { fs.lease.Release() }

// end forgets a session (later requests for it get 404) and ends it.
func (f *fronts) end(fs *frontSession) {
	if f.sessions.Remove(fs.id, fs) {
		f.g.metrics.sessionsOpen(-1)
	}
	fs.end()
}

// all returns the live sessions.
func (f *fronts) all() []*frontSession { return f.sessions.All() }

// closeAll refuses new sessions and listens and ends the live ones.
func (f *fronts) closeAll() {
	for _, fs := range f.sessions.Close() {
		f.end(fs)
	}
	// A listen's session is its request's alone (not among all): ending
	// it ends the listen, whose POST would otherwise hold the listener's
	// shutdown until its deadline.
	for _, l := range f.openListens() {
		l.fs.end()
	}
}

// broadcast sends a list change to every session's standalone stream and
// to the listens that asked for it.
func (f *fronts) broadcast(method string) {
	frame := messages.AppendNotification(nil, method, nil)
	for _, fs := range f.all() {
		fs.standalone.push(frame)
	}
	for _, l := range f.openListens() {
		if mcpserver.ListenWants(&l.filter, method, "") {
			l.send(method, nil)
		}
	}
}

// resourceUpdated sends notifications/resources/updated to the sessions
// and listens subscribed to uri on server.
func (f *fronts) resourceUpdated(server, uri string, frame []byte) {
	k := subKey{server, uri}
	for _, fs := range f.all() {
		if fs.subscribed(k) {
			fs.standalone.push(frame)
		}
	}
	for _, l := range f.openListens() {
		if l.fs.subscribed(k) {
			l.send(messages.NotificationResourcesUpdated, mcpserver.AppendURIMember(nil, uri))
		}
	}
}

// logMessage sends a server's log message to the sessions whose level
// lets it through.
func (f *fronts) logMessage(level messages.LoggingLevel, frame []byte) {
	for _, fs := range f.all() {
		if fs.wantsLog(level) {
			fs.standalone.push(frame)
		}
	}
}

// addListen pushes the listen's acknowledgement (ack) and registers the
// listen in one step under f.mu, so that no notification reaches the
// listen before its acknowledgement and every notification the client
// can have caused after seeing it reaches the listen; false, nothing
// pushed, once closeAll ran.
func (f *fronts) addListen(l *frontListen, ack func()) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	// Checked under f.mu: closeAll closes the table before it sweeps the
	// listens under f.mu, so a listen is either swept or refused.
	if f.sessions.Closed() {
		return false
	}
	ack()
	f.listens[l] = struct{}{}
	return true
}

func (f *fronts) removeListen(l *frontListen) {
	f.mu.Lock()
	delete(f.listens, l)
	f.mu.Unlock()
}

func (f *fronts) openListens() []*frontListen {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]*frontListen, 0, len(f.listens))
	for l := range f.listens {
		out = append(out, l)
	}
	return out
}
