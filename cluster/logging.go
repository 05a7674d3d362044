package cluster

import (
	"context"
	"log/slog"
	"net/url"
	"strings"
	"sync"
	"time"
)

// quieter passes on only records at min or above: protoactor logs every
// topology poll and gossip round at info, which would drown the member's
// own lines in the same handler.
type quieter struct {
	slog.Handler
	min slog.Level
}

func (q quieter) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= q.min && q.Handler.Enabled(ctx, l)
}

func (q quieter) WithAttrs(as []slog.Attr) slog.Handler {
	return quieter{q.Handler.WithAttrs(as), q.min}
}

func (q quieter) WithGroup(name string) slog.Handler {
	return quieter{q.Handler.WithGroup(name), q.min}
}

// libraryLogger is the logger protoactor gets: the member's, at warn and
// above, unless Config.LibraryLogLevel lowers it, with its per-peer
// connection errors translated (peerNoise).
func libraryLogger(cfg *Config, log *slog.Logger) *slog.Logger {
	min := slog.LevelWarn
	if cfg.LibraryLogLevel != nil {
		min = *cfg.LibraryLogLevel
	}
	q := quieter{log.Handler(), min}
	return slog.New(newPeerNoise(q, log.Handler(), time.Now)).With("lib", "protoactor")
}

// peerQuietFor is how long a peer whose health check failed must go
// without another failure to count as back: the automanaged provider
// polls every peer each second and logs only failures.
const peerQuietFor = 5 * time.Second

// peerNoise turns protoactor's per-peer connection errors into one line
// when a peer becomes unreachable and one when it is back. Unfiltered, a
// dead member costs a "Bad connection to the node health status" error
// every second for as long as the others run, and a coordinator that
// leaves a burst of "EndpointWriter failed" errors, which bury everything
// else a worker logs. Other records go on to next unchanged.
//
// The peer is back when protoactor says its endpoint connected ("EndpointWriter
// connected", an info record, which is why Enabled lets info through) or,
// for health checks, which log nothing on success, when no failure came
// for peerQuietFor.
type peerNoise struct {
	next slog.Handler // the quieter: everything that is not peer noise
	out  slog.Handler // the member's handler, for the translated lines
	st   *peerState
}

type peerState struct {
	now func() time.Time
	mu  sync.Mutex
	// down maps a peer (host:port, and which check failed) to the time of
	// its last failure.
	down map[peerKey]time.Time
}

type peerKey struct {
	peer, via string
}

func newPeerNoise(next, out slog.Handler, now func() time.Time) *peerNoise {
	return &peerNoise{next: next, out: out, st: &peerState{now: now, down: map[peerKey]time.Time{}}}
}

func (p *peerNoise) Enabled(ctx context.Context, l slog.Level) bool {
	return l == slog.LevelInfo || p.next.Enabled(ctx, l)
}

func (p *peerNoise) WithAttrs(as []slog.Attr) slog.Handler {
	return &peerNoise{next: p.next.WithAttrs(as), out: p.out.WithAttrs(as), st: p.st}
}

func (p *peerNoise) WithGroup(name string) slog.Handler {
	return &peerNoise{next: p.next.WithGroup(name), out: p.out.WithGroup(name), st: p.st}
}

func (p *peerNoise) Handle(ctx context.Context, r slog.Record) error {
	p.backByQuiet(ctx, r.Time)
	switch via, peer, errText := classifyPeerRecord(r); via {
	case "":
		if !p.next.Enabled(ctx, r.Level) {
			return nil
		}
		return p.next.Handle(ctx, r)
	case viaConnected:
		if p.st.up(peerKey{peer, viaRemote}) {
			return p.emit(ctx, r.Time, slog.LevelInfo, "cluster: peer reachable again", peer, "remote", "")
		}
		return nil
	default:
		if p.st.failed(peerKey{peer, via}) {
			return p.emit(ctx, r.Time, slog.LevelWarn, "cluster: peer unreachable (further failures not logged until it is back)", peer, via, errText)
		}
		return nil
	}
}

// backByQuiet reports the peers whose health checks stopped failing.
func (p *peerNoise) backByQuiet(ctx context.Context, t time.Time) {
	for _, k := range p.st.quiet() {
		_ = p.emit(ctx, t, slog.LevelInfo, "cluster: peer reachable again", k.peer, k.via, "")
	}
}

func (p *peerNoise) emit(ctx context.Context, t time.Time, l slog.Level, msg, peer, via, errText string) error {
	if !p.out.Enabled(ctx, l) {
		return nil
	}
	r := slog.NewRecord(t, l, msg, 0)
	r.AddAttrs(slog.String("peer", peer), slog.String("check", via))
	if errText != "" {
		r.AddAttrs(slog.String("err", errText))
	}
	return p.out.Handle(ctx, r)
}

// failed records a failure; true for the first since the peer was last
// reachable.
func (s *peerState) failed(k peerKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, was := s.down[k]
	s.down[k] = s.now()
	return !was
}

// up forgets a failed peer; true if it was down.
func (s *peerState) up(k peerKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, was := s.down[k]
	delete(s.down, k)
	return was
}

// quiet removes and returns the peers whose health checks have not failed
// for peerQuietFor.
func (s *peerState) quiet() []peerKey {
	s.mu.Lock()
	defer s.mu.Unlock()
	var back []peerKey
	now := s.now()
	for k, last := range s.down {
		if k.via == viaHealth && now.Sub(last) >= peerQuietFor {
			back = append(back, k)
			delete(s.down, k)
		}
	}
	return back
}

const (
	viaHealth    = "health"    // the automanaged provider's health poll
	viaRemote    = "remote"    // the remote endpoint's gRPC connection
	viaConnected = "connected" // the remote endpoint connected
)

// classifyPeerRecord says whether r is one of protoactor's per-peer
// connection records, for which peer, and its error.
func classifyPeerRecord(r slog.Record) (via, peer, errText string) {
	switch {
	case strings.HasSuffix(r.Message, "node health status"):
		via = viaHealth
	case r.Message == "EndpointWriter connected":
		via = viaConnected
	case strings.HasPrefix(r.Message, "EndpointWriter failed to connect"),
		strings.HasPrefix(r.Message, "EndpointWriter failed to create receive stream"),
		strings.HasPrefix(r.Message, "EndpointWriter failed to send connect request"),
		strings.HasPrefix(r.Message, "EndpointWriter failed to receive connect response"):
		via = viaRemote
	default:
		return "", "", ""
	}
	r.Attrs(func(a slog.Attr) bool {
		switch a.Key {
		case "address":
			peer = a.Value.String()
		case "autoManMemberUrl":
			peer = a.Value.String()
			if u, err := url.Parse(peer); err == nil && u.Host != "" {
				peer = u.Host
			}
		case "error":
			errText = a.Value.String()
		}
		return true
	})
	if peer == "" {
		return "", "", "" // not what we know: leave it as it is
	}
	return via, peer, errText
}
