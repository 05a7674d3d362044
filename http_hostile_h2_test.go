package mcpengine_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
)

// hostileH2 is one hostile or unusual HTTP/2 server of the table.
type hostileH2 struct {
	name   string
	script func() h2Script // a fresh script (and its state) per run
	// connectFails: the server is hostile from its first frame, so the
	// session's Connect is the caller that must fail, typed and within
	// its deadline.
	connectFails bool
	calls        int    // calls in flight at once after Connect (default 4)
	text         string // each call's argument (default a short one)
	// want says which calls must succeed: all, all but failures, or
	// (none) whichever: each succeeds or fails alone, typed.
	allSucceed bool
	failures   int
}

// goodSettings are a well-behaved server's first SETTINGS.
var goodSettings = []http2.Setting{{ID: http2.SettingMaxConcurrentStreams, Val: 250}}

// wellBehaved answers everything on every connection.
func wellBehaved(p *h2Peer) {
	p.settings(goodSettings...)
	p.serve()
}

// onFirstConnection runs bad on the server's first connection, after a
// good handshake and the session's initialization, from its first call
// on; later connections are well behaved.
func onFirstConnection(bad func(p *h2Peer, call *h2Request)) func() h2Script {
	return func() h2Script {
		return func(p *h2Peer) {
			if p.n > 0 {
				wellBehaved(p)
				return
			}
			p.settings(goodSettings...)
			if call := p.serveUntilCall(); call != nil {
				bad(p, call)
			}
		}
	}
}

// everyConnection runs script on every connection.
func everyConnection(script h2Script) func() h2Script { return func() h2Script { return script } }

var hostileH2Servers = []hostileH2{
	{
		name:         "SETTINGS MAX_FRAME_SIZE 0 in the handshake",
		script:       everyConnection(func(p *h2Peer) { p.settings(http2.Setting{ID: http2.SettingMaxFrameSize, Val: 0}); p.serve() }),
		connectFails: true,
	},
	{
		name: "SETTINGS MAX_FRAME_SIZE 0 with calls in flight",
		script: onFirstConnection(func(p *h2Peer, _ *h2Request) {
			p.settings(http2.Setting{ID: http2.SettingMaxFrameSize, Val: 0})
			p.serve()
		}),
	},
	{
		name: "SETTINGS INITIAL_WINDOW_SIZE above 2^31-1 in the handshake",
		script: everyConnection(func(p *h2Peer) {
			p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 31})
			p.serve()
		}),
		connectFails: true,
	},
	{
		name: "SETTINGS INITIAL_WINDOW_SIZE above 2^31-1 with calls in flight",
		script: onFirstConnection(func(p *h2Peer, _ *h2Request) {
			p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1 << 31})
			p.serve()
		}),
	},
	{
		// The streams above GOAWAY's last one were not processed: net/http
		// sends them again on a new connection.
		name: "GOAWAY with streams in flight",
		script: onFirstConnection(func(p *h2Peer, first *h2Request) {
			var held []*h2Request
			for len(held) < 3 {
				r := p.next()
				if r == nil {
					return
				}
				if !r.call() {
					p.answer(r)
					continue
				}
				held = append(held, r)
			}
			_ = p.fr.WriteGoAway(first.stream, http2.ErrCodeNo, nil)
			p.answer(first)
			p.drain() // the held streams are never answered here
		}),
		allSucceed: true,
	},
	{
		// The old client took such a connection out of its pool but never
		// closed it, and Engine.Close waited for it as long as the server
		// kept the TCP connection open.
		name: "GOAWAY on an idle connection left open",
		script: func() h2Script {
			return func(p *h2Peer) {
				p.settings(goodSettings...)
				if p.n > 0 {
					p.serve()
					return
				}
				for r := p.next(); r != nil; r = p.next() {
					p.answer(r)
					if r.msg.Method == messages.NotificationInitialized {
						_ = p.fr.WriteGoAway(r.stream, http2.ErrCodeNo, nil)
						p.drain() // open until the client closes it
						return
					}
				}
			}
		},
		allSucceed: true,
	},
	{
		name: "RST_STREAM REFUSED_STREAM on every call's first try",
		script: func() h2Script {
			var mu sync.Mutex
			refused := map[messages.ID]bool{}
			return func(p *h2Peer) {
				p.settings(goodSettings...)
				for r := p.next(); r != nil; r = p.next() {
					mu.Lock()
					first := r.call() && !refused[r.msg.ID]
					refused[r.msg.ID] = true
					mu.Unlock()
					if first {
						_ = p.fr.WriteRSTStream(r.stream, http2.ErrCodeRefusedStream)
						continue
					}
					p.answer(r)
				}
			}
		},
		allSucceed: true,
	},
	{
		name: "RST_STREAM CANCEL on one call",
		script: func() h2Script {
			var mu sync.Mutex
			cancelled := false
			return func(p *h2Peer) {
				p.settings(goodSettings...)
				for r := p.next(); r != nil; r = p.next() {
					mu.Lock()
					reset := r.call() && !cancelled
					cancelled = cancelled || reset
					mu.Unlock()
					if reset {
						_ = p.fr.WriteRSTStream(r.stream, http2.ErrCodeCancel)
						continue
					}
					p.answer(r)
				}
			}
		},
		failures: 1,
	},
	{
		name: "MAX_CONCURRENT_STREAMS 1 with 64 calls in flight",
		script: everyConnection(func(p *h2Peer) {
			p.settings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 1})
			p.serve()
		}),
		calls:      64,
		allSucceed: true,
	},
	{
		// The window drops to 1 byte once the session is initialized: each
		// call's body then goes a byte per DATA frame, each given back as
		// it arrives; after the second call it grows back.
		name: "a 1-byte window changed mid-connection",
		script: everyConnection(func(p *h2Peer) {
			p.settings(goodSettings...)
			p.onData = func(p *h2Peer, f *http2.DataFrame) {
				if n := uint32(len(f.Data())); n > 0 {
					_ = p.fr.WriteWindowUpdate(0, n)
					_ = p.fr.WriteWindowUpdate(f.StreamID, n)
				}
			}
			calls := 0
			for r := p.next(); r != nil; r = p.next() {
				p.answer(r)
				switch {
				case r.msg.Method == messages.NotificationInitialized:
					p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1})
				case r.call():
					if calls++; calls == 2 {
						p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 65535})
					}
				}
			}
		}),
		text:       strings.Repeat("w", 300),
		allSucceed: true,
	},
	{
		// 40 KB of header fields: a HEADERS frame and two CONTINUATIONs.
		name: "a header block that needs CONTINUATION",
		script: everyConnection(func(p *h2Peer) {
			p.settings(goodSettings...)
			for r := p.next(); r != nil; r = p.next() {
				p.answer(r, hpack.HeaderField{Name: "x-padding", Value: strings.Repeat("p", 40<<10)})
			}
		}),
		allSucceed: true,
	},
	{
		name:         "a server that never sends SETTINGS",
		script:       everyConnection(func(p *h2Peer) { p.drain() }),
		connectFails: true,
	},
	{
		// It grants windows of 2 GiB, then reads nothing more: the calls'
		// bodies fill the socket's buffers and the client's writes block.
		name: "a server that stops reading",
		script: everyConnection(func(p *h2Peer) {
			p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
			_ = p.fr.WriteWindowUpdate(0, 1<<31-1-65535)
			if p.serveUntilCall() != nil {
				<-p.done // reads nothing more
			}
		}),
		text: strings.Repeat("s", 1<<20),
	},
	{
		// As above, but the server answers each call's headers at once
		// with an event stream before it stops reading: the caller reads
		// that stream while net/http's writer is stuck on the body.
		name: "a server that answers at once, then stops reading",
		script: everyConnection(func(p *h2Peer) {
			p.settings(http2.Setting{ID: http2.SettingInitialWindowSize, Val: 1<<31 - 1})
			_ = p.fr.WriteWindowUpdate(0, 1<<31-1-65535)
			initialized := false
			p.onHeaders = func(p *h2Peer, f *http2.MetaHeadersFrame) {
				if initialized && f.PseudoValue("method") == "POST" {
					p.headers(f.StreamID, false,
						hpack.HeaderField{Name: ":status", Value: "200"},
						hpack.HeaderField{Name: "content-type", Value: "text/event-stream"})
					<-p.done // reads nothing more
				}
			}
			for r := p.next(); r != nil; r = p.next() {
				p.answer(r)
				initialized = initialized || r.msg.Method == messages.NotificationInitialized
			}
		}),
		text: strings.Repeat("s", 4<<20),
	},
}

// TestHostileHTTP2Servers runs every server of the table through an
// Engine over h2c (net/http's HTTP/2 client): each call succeeds or fails
// alone with a typed error before its deadline, Engine.Close returns by
// its ctx's deadline, and nothing of the client is left running once it
// has, while the hostile server is still up.
func TestHostileHTTP2Servers(t *testing.T) {
	const (
		connectWithin = 3 * time.Second
		callWithin    = 5 * time.Second
		closeWithin   = 5 * time.Second
		// slack is what a loaded machine may add past a deadline before
		// the caller gets its answer.
		slack = 2 * time.Second
	)
	for _, tc := range hostileH2Servers {
		t.Run(tc.name, func(t *testing.T) {
			before := goleak.IgnoreCurrent()
			url, stop := scriptedH2C(t, tc.script())
			e := mcpengine.New(mcpengine.Config{Backoff: fastBackoff})
			server := mcpengine.ServerConfig{URL: url, Type: "streamable-http", HTTP2PriorKnowledge: true}

			ctx, cancel := context.WithTimeout(context.Background(), connectWithin)
			t0 := time.Now()
			s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "hostile", Server: server})
			cancel()
			took := time.Since(t0)
			switch {
			case tc.connectFails:
				require.Error(t, err, "Connect to a hostile server succeeded")
				// A server that never answers leaves Connect its ctx's end
				// to report (engine.go, Connect), wrapped with the last
				// connection error when there was one.
				if !errors.Is(err, context.DeadlineExceeded) {
					assertTypedCallError(t, err)
				}
				assert.Less(t, took, connectWithin+slack, "Connect failed late: %v", err)
				t.Logf("Connect failed after %v: %v", took.Round(time.Millisecond), err)
			default:
				require.NoError(t, err)
				runHostileCalls(t, s, tc, callWithin, slack)
			}

			closeCtx, cancelClose := context.WithTimeout(context.Background(), closeWithin)
			t0 = time.Now()
			err = e.Close(closeCtx)
			took = time.Since(t0)
			cancelClose()
			assert.Less(t, took, closeWithin+slack, "Engine.Close returned after %v", took)
			if err != nil {
				assert.ErrorIs(t, err, context.DeadlineExceeded)
			}
			// Nothing of the client is left, the hostile server still up:
			// only the server's own goroutines remain.
			serverOnly := []goleak.Option{before,
				goleak.IgnoreAnyFunction("github.com/mcpengine/mcpengine_test.scriptedH2C.func1"),
				goleak.IgnoreAnyFunction("github.com/mcpengine/mcpengine_test.scriptedH2C.func1.1")}
			var left error
			testkit.Eventually(t, 10*time.Second, func() bool { left = goleak.Find(serverOnly...); return left == nil },
				"goroutines left after Engine.Close: %v", lazy(func() any { return left }))
			stop()
		})
	}
}

// runHostileCalls makes tc's calls at once, each with its own deadline,
// and checks what each came back with.
func runHostileCalls(t *testing.T, s *mcpengine.Session, tc hostileH2, within, slack time.Duration) {
	n := tc.calls
	if n == 0 {
		n = 4
	}
	text := tc.text
	if text == "" {
		text = "hello"
	}
	type outcome struct {
		err  error
		took time.Duration
	}
	out := make([]outcome, n)
	var wg sync.WaitGroup
	for i := range out {
		wg.Add(1)
		go func() { // Owner: this test. Exits when its call returned.
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), within)
			defer cancel()
			t0 := time.Now()
			_, err := s.CallTool(ctx, "echo", map[string]any{"text": text})
			out[i] = outcome{err, time.Since(t0)}
		}()
	}
	wg.Wait()
	failed := 0
	for i, o := range out {
		assert.Less(t, o.took, within+slack, "call %d returned after %v: %v", i, o.took, o.err)
		if o.err != nil {
			failed++
			assertTypedCallError(t, o.err)
			t.Logf("call %d failed after %v: %v", i, o.took.Round(time.Millisecond), o.err)
		}
	}
	switch {
	case tc.allSucceed:
		assert.Zero(t, failed, "calls failed")
	case tc.failures > 0:
		assert.Equal(t, tc.failures, failed, "calls failed")
	}
}

// assertTypedCallError checks that err is one of the errors the engine
// documents for a call or a Connect: never a bare string or a raw
// net/http error.
func assertTypedCallError(t *testing.T, err error) {
	t.Helper()
	var (
		timeout *mcpengine.TimeoutError
		lost    *mcpengine.ConnectionLostError
		connect *mcpengine.ConnectError
		closed  *mcpengine.ClosedError
		wire    *messages.WireError
	)
	if errors.As(err, &timeout) || errors.As(err, &lost) || errors.As(err, &connect) || errors.As(err, &closed) || errors.As(err, &wire) {
		return
	}
	t.Errorf("untyped error %T: %v", err, err)
}
