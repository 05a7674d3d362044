package h2stream

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
)

// post sends body to base through tr with ctx.
func post(ctx context.Context, tr http.RoundTripper, base string, body []byte) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	return tr.RoundTrip(req)
}

// A body larger than the server's windows waits for them to open: the
// client never sends past a window. The server grants 1,000 bytes, checks
// with a PING that nothing more is on its way, then opens the window.
func TestABodyPastTheServersWindowWaitsForItToOpen(t *testing.T) {
	const granted, total = 1000, 5000
	type seen struct {
		body     []byte
		violated bool
	}
	result := make(chan seen, 1)
	base := scriptedServer(t, func(p *peer) {
		id := p.nextHeaders()
		var got []byte
		readData := func(until int) bool { // false: the stream or connection ended first
			for len(got) < until {
				f, err := p.fr.ReadFrame()
				if err != nil {
					return false
				}
				if d, ok := f.(*http2.DataFrame); ok {
					got = append(got, d.Data()...)
				}
			}
			return true
		}
		if !readData(granted) {
			return
		}
		violated := len(got) > granted
		_ = p.fr.WritePing(false, [8]byte{1})
		for { // whatever DATA comes before the PING's answer was sent without a window
			f, err := p.fr.ReadFrame()
			if err != nil {
				return
			}
			if d, ok := f.(*http2.DataFrame); ok {
				got = append(got, d.Data()...)
				violated = true
			}
			if pf, ok := f.(*http2.PingFrame); ok && pf.IsAck() {
				break
			}
		}
		_ = p.fr.WriteWindowUpdate(id, total-granted)
		if !readData(total) {
			return
		}
		result <- seen{got, violated}
		p.respond(id)
		_ = p.fr.WriteData(id, true, nil)
		p.drain()
	}, http2.Setting{ID: http2.SettingInitialWindowSize, Val: granted})
	tr := newTestTransport(t, Options{})
	body := bytes.Repeat([]byte("0123456789"), total/10)
	resp, err := post(testCtx(t), tr, base, body)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	s := <-result
	if s.violated {
		t.Fatal("the client sent DATA past the stream's window")
	}
	if !bytes.Equal(s.body, body) {
		t.Fatalf("the server got %d bytes, want the %d sent", len(s.body), len(body))
	}
}

// Bodies of several megabytes in parallel, more than the connection's
// window, all arrive whole at net/http's server.
func TestLargeBodiesInParallelArriveWhole(t *testing.T) {
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := sha256.New()
		_, _ = io.Copy(h, r.Body)
		_, _ = io.WriteString(w, hex.EncodeToString(h.Sum(nil)))
	}), 0)
	tr := newTestTransport(t, Options{IdleTimeout: time.Minute})
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() { // Owner: the test. Exits when its request is answered.
			defer wg.Done()
			body := bytes.Repeat([]byte{byte('a' + i)}, 3<<20)
			resp, err := post(ctx, tr, base, body)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			got, err := io.ReadAll(resp.Body)
			sum := sha256.Sum256(body)
			if err == nil && string(got) != hex.EncodeToString(sum[:]) {
				err = errors.New("the server read another body")
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := tr.Dials(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
}

// A request waiting for the server's window gives up when its context
// ends, and resets its stream.
func TestARequestWaitingForAWindowEndsWithItsContext(t *testing.T) {
	sawHeaders := make(chan struct{})
	reset := make(chan http2.ErrCode, 1)
	base := scriptedServer(t, func(p *peer) {
		id := p.nextHeaders()
		close(sawHeaders)
		for {
			f, err := p.fr.ReadFrame()
			if err != nil {
				return
			}
			if r, ok := f.(*http2.RSTStreamFrame); ok && r.StreamID == id {
				reset <- r.ErrCode
				p.drain()
				return
			}
		}
	}, http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	tr := newTestTransport(t, Options{})
	ctx, cancel := context.WithCancel(testCtx(t))
	go func() { // Owner: the test. Exits once the server saw the request's headers.
		<-sawHeaders
		cancel()
	}()
	_, err := post(ctx, tr, base, []byte("a body the server has no window for"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v, want context.Canceled", err)
	}
	if code := <-reset; code != http2.ErrCodeCancel {
		t.Fatalf("the stream was reset with %v, want CANCEL", code)
	}
}

// Response headers late by ResponseHeaderTimeout fail their stream with
// a timeout; a stream whose headers came is not touched, and the
// connection goes on. (The timeout is a second: the answered stream's
// headers, sent at once, must beat it even on a loaded machine.)
func TestLateResponseHeadersFailOnlyTheirStream(t *testing.T) {
	proceed := make(chan struct{})
	reset := make(chan uint32, 1)
	base := scriptedServer(t, func(p *peer) {
		answered := p.nextHeaders()
		p.respond(answered)
		silent := p.nextHeaders()
		for {
			f, err := p.fr.ReadFrame()
			if err != nil {
				return
			}
			if r, ok := f.(*http2.RSTStreamFrame); ok && r.StreamID == silent {
				reset <- silent
				break
			}
		}
		<-proceed
		_ = p.fr.WriteData(answered, true, []byte("answered"))
		next := p.nextHeaders()
		p.respond(next)
		_ = p.fr.WriteData(next, true, []byte("next"))
		p.drain()
	})
	letGo := sync.OnceFunc(func() { close(proceed) })
	t.Cleanup(letGo) // before the server's cleanup, which waits for the script
	tr := newTestTransport(t, Options{ResponseHeaderTimeout: time.Second, IdleTimeout: time.Minute})
	ctx := testCtx(t)
	answered, err := get(ctx, tr, base, "/answered")
	if err != nil {
		t.Fatal(err)
	}
	defer answered.Body.Close()
	_, err = get(ctx, tr, base, "/silent")
	var ne net.Error
	if !errors.Is(err, ErrResponseHeaderTimeout) || !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("the silent stream ended with %v, want ErrResponseHeaderTimeout, a timeout", err)
	}
	<-reset
	letGo()
	if got, err := io.ReadAll(answered.Body); err != nil || string(got) != "answered" {
		t.Fatalf("the answered stream read %q, %v", got, err)
	}
	next, err := get(ctx, tr, base, "/next")
	if err != nil {
		t.Fatal(err)
	}
	defer next.Body.Close()
	if got, err := io.ReadAll(next.Body); err != nil || string(got) != "next" {
		t.Fatalf("the next stream read %q, %v", got, err)
	}
	if n := tr.Dials(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
}

// A connection left without streams closes once idle for IdleTimeout.
func TestAnIdleConnectionClosesAfterIdleTimeout(t *testing.T) {
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), 0)
	tr := newTestTransport(t, Options{IdleTimeout: 50 * time.Millisecond})
	ctx := testCtx(t)
	resp, err := get(ctx, tr, base, "/")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	for tr.openConns() > 0 {
		select {
		case <-ctx.Done():
			t.Fatal("the idle connection was not closed")
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Requests one after the other share one connection, which stays open
// between them.
func TestRequestsInARowShareOneConnection(t *testing.T) {
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}), 0)
	tr := newTestTransport(t, Options{IdleTimeout: time.Hour})
	ctx := testCtx(t)
	for range 5 {
		resp, err := post(ctx, tr, base, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
	}
	if n := tr.Dials(); n != 1 {
		t.Fatalf("%d connections dialed, want 1", n)
	}
	if n := tr.openConns(); n != 1 {
		t.Fatalf("%d connections open, want the idle one", n)
	}
	tr.CloseIdleConnections()
	if n := tr.openConns(); n != 0 {
		t.Fatalf("%d connections open after CloseIdleConnections", n)
	}
}

// readRequest reads frames until a request's body ended; it returns the
// stream id and the body, 0 when the connection ended.
func (p *peer) readRequest() (uint32, []byte) {
	var body []byte
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return 0, nil
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = p.fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			if f.StreamEnded() {
				return f.StreamID, nil
			}
		case *http2.DataFrame:
			body = append(body, f.Data()...)
			if f.StreamEnded() {
				return f.StreamID, body
			}
		}
	}
}

// A request the server refused unprocessed (REFUSED_STREAM) goes again
// with its body, read again through GetBody; without GetBody it cannot,
// and fails with the refusal.
func TestARefusedRequestGoesAgainWithItsBody(t *testing.T) {
	bodies := make(chan string, 4)
	base := scriptedServer(t, func(p *peer) {
		for {
			id, body := p.readRequest()
			if id == 0 {
				return
			}
			bodies <- string(body)
			if id == 1 || id == 5 { // the first try of each request
				_ = p.fr.WriteRSTStream(id, http2.ErrCodeRefusedStream)
				continue
			}
			p.respond(id)
			_ = p.fr.WriteData(id, true, nil)
		}
	})
	tr := newTestTransport(t, Options{IdleTimeout: time.Minute})
	ctx := testCtx(t)
	resp, err := post(ctx, tr, base, []byte("the body"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if first, again := <-bodies, <-bodies; first != "the body" || again != "the body" {
		t.Fatalf("the server got %q, then %q", first, again)
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+"/", io.NopCloser(stringsReader("no GetBody")))
	_, err = tr.RoundTrip(req)
	var rst *StreamResetError
	if !errors.As(err, &rst) || rst.Code != http2.ErrCodeRefusedStream {
		t.Fatalf("a refused request without GetBody ended with %v, want the refusal", err)
	}
	if got := <-bodies; got != "no GetBody" {
		t.Fatalf("the server got %q", got)
	}
	select {
	case got := <-bodies:
		t.Fatalf("a request without GetBody went again, with %q", got)
	default:
	}
}
