package h2stream

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// peer is the server side of one connection of a scripted HTTP/2 server:
// for what net/http's server cannot be made to do (a GOAWAY below a
// stream it has open, silence).
type peer struct {
	t    *testing.T
	n    int // which connection of the server: 0, 1, ...
	fr   *http2.Framer
	hbuf bytes.Buffer
	henc *hpack.Encoder
}

// scriptedServer accepts connections, completes the HTTP/2 handshake on
// each (its first SETTINGS carry settings) and runs script on it; it
// returns the base URL.
func scriptedServer(t *testing.T, script func(p *peer), settings ...http2.Setting) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() { // Owner: the test. Exits when the listener is closed (cleanup).
		defer wg.Done()
		for n := 0; ; n++ {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() { // Owner: the test. Exits when the script returns or the connection is closed (cleanup).
				defer wg.Done()
				p := &peer{t: t, n: n, fr: http2.NewFramer(c, c)}
				p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
				p.henc = hpack.NewEncoder(&p.hbuf)
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
					return
				}
				if p.fr.WriteSettings(settings...) != nil {
					return
				}
				script(p)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return "http://" + ln.Addr().String()
}

// nextHeaders reads frames until a request's HEADERS, acknowledging the
// client's SETTINGS on the way; it returns the stream id, 0 when the
// connection ended.
func (p *peer) nextHeaders() uint32 {
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return 0
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = p.fr.WriteSettingsAck()
			}
		case *http2.MetaHeadersFrame:
			return f.StreamID
		}
	}
}

// respond sends 200 headers on stream id.
func (p *peer) respond(id uint32) {
	p.hbuf.Reset()
	_ = p.henc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
	_ = p.henc.WriteField(hpack.HeaderField{Name: "content-type", Value: "text/event-stream"})
	_ = p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: p.hbuf.Bytes(), EndHeaders: true})
}

// drain reads and drops frames until the connection ends.
func (p *peer) drain() {
	for {
		if _, err := p.fr.ReadFrame(); err != nil {
			return
		}
	}
}

func TestGoAwayFailsOnlyTheStreamsAboveItsLastAndThoseGoAgain(t *testing.T) {
	base := scriptedServer(t, func(p *peer) {
		if p.n > 0 { // the retried request
			id := p.nextHeaders()
			p.respond(id)
			_ = p.fr.WriteData(id, true, []byte("second"))
			p.drain()
			return
		}
		first := p.nextHeaders()
		p.respond(first)
		second := p.nextHeaders()
		if second == 0 {
			return
		}
		_ = p.fr.WriteGoAway(first, http2.ErrCodeNo, nil)
		_ = p.fr.WriteData(first, true, []byte("first"))
		p.drain()
	})
	tr := newTestTransport(t, Options{})
	ctx := testCtx(t)
	a, err := get(ctx, tr, base, "/a")
	if err != nil {
		t.Fatal(err)
	}
	defer a.Body.Close()
	b, err := get(ctx, tr, base, "/b")
	if err != nil {
		t.Fatalf("the stream above GOAWAY's last id was not sent again: %v", err)
	}
	defer b.Body.Close()
	if got, err := io.ReadAll(b.Body); err != nil || string(got) != "second" {
		t.Fatalf("the request sent again read %q, %v", got, err)
	}
	if got, err := io.ReadAll(a.Body); err != nil || string(got) != "first" {
		t.Fatalf("the stream below GOAWAY's last id read %q, %v", got, err)
	}
	if n := tr.dials.Load(); n != 2 {
		t.Fatalf("%d connections dialed, want 2", n)
	}
}

func TestASilentServerFailsItsStreamsAfterAnUnansweredPing(t *testing.T) {
	base := scriptedServer(t, func(p *peer) {
		p.respond(p.nextHeaders())
		p.drain() // reads, never answers
	})
	tr := newTestTransport(t, Options{PingAfter: 20 * time.Millisecond, PingTimeout: 20 * time.Millisecond})
	resp, err := get(testCtx(t), tr, base, "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if !errors.Is(err, ErrPingTimeout) || !isConnError(err) {
		t.Fatalf("the stream of a silent server ended with %v, want a *ConnError of ErrPingTimeout", err)
	}
}

func TestAServerThatAnswersPingsKeepsItsStreams(t *testing.T) {
	pinged := make(chan struct{}, 1)
	base := scriptedServer(t, func(p *peer) {
		id := p.nextHeaders()
		p.respond(id)
		for {
			f, err := p.fr.ReadFrame()
			if err != nil {
				return
			}
			if pf, ok := f.(*http2.PingFrame); ok && !pf.IsAck() {
				_ = p.fr.WritePing(true, pf.Data)
				select {
				case pinged <- struct{}{}:
				default:
					_ = p.fr.WriteData(id, true, []byte("done")) // second ping answered: end
				}
			}
		}
	})
	tr := newTestTransport(t, Options{PingAfter: 10 * time.Millisecond, PingTimeout: 5 * time.Second})
	resp, err := get(testCtx(t), tr, base, "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil || string(got) != "done" {
		t.Fatalf("read %q, %v", got, err)
	}
}

func TestLargeRequestHeadersGoAsContinuation(t *testing.T) {
	var got string
	base, _ := h2cServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("X-Big")
		w.WriteHeader(http.StatusNoContent)
	}), 0)
	tr := newTestTransport(t, Options{})
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodGet, base+"/", nil)
	big := string(bytes.Repeat([]byte("abcdefgh"), 5000)) // 40 KB: more than one frame
	req.Header.Set("X-Big", big)
	resp, err := tr.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if got != big {
		t.Fatalf("the server saw %d bytes of the header, want %d", len(got), len(big))
	}
}
