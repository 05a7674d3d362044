package mcpengine_test

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/mcpengine/mcpengine/messages"
)

// h2Peer is the server side of one connection of a scripted h2c server
// (prior knowledge): HTTP/2 spoken frame by frame with x/net's Framer and
// hpack, for what no well-behaved server does (invalid SETTINGS, a GOAWAY
// below streams in flight, silence, resets, tiny windows). One goroutine
// runs a connection's script; it alone reads and writes the framer.
type h2Peer struct {
	n    int // which connection of the server: 0, 1, ...
	conn net.Conn
	// done is closed when the server stops: a script that holds its
	// connection without reading waits for it.
	done <-chan struct{}
	fr   *http2.Framer
	hbuf bytes.Buffer
	henc *hpack.Encoder
	// partial are the requests whose body has not ended yet, by stream.
	partial map[uint32]*h2Request
	// onData, when set, sees every DATA frame as it arrives (a window
	// script gives the client its window back).
	onData func(p *h2Peer, f *http2.DataFrame)
	// onHeaders, when set, sees every request's HEADERS as they arrive,
	// before its body.
	onHeaders func(p *h2Peer, f *http2.MetaHeadersFrame)
}

// h2Request is one request the peer read whole.
type h2Request struct {
	stream uint32
	method string
	body   []byte
	msg    messages.Message // the JSON-RPC envelope of a POST's body
}

// h2Script runs one connection after the client's preface was read; it
// sends the server's SETTINGS itself (or never).
type h2Script func(p *h2Peer)

// scriptedH2C starts a loopback listener whose every accepted connection
// runs script, and returns the MCP endpoint's URL. The server (listener,
// connections, scripts) is gone once stop returns; the test's cleanup
// calls it too.
func scriptedH2C(t *testing.T, script h2Script) (url string, stop func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	wg.Add(1)
	go func() { // Owner: the test. Exits when the listener is closed (stop).
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
			go func() { // Owner: the test. Exits when the script returns or stop closes the connection.
				defer wg.Done()
				defer c.Close()
				p := &h2Peer{n: n, conn: c, done: done, fr: http2.NewFramer(c, c), partial: map[uint32]*h2Request{}}
				p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
				p.fr.MaxHeaderListSize = 1 << 20
				p.henc = hpack.NewEncoder(&p.hbuf)
				preface := make([]byte, len(http2.ClientPreface))
				if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
					return
				}
				script(p)
			}()
		}
	}()
	stop = sync.OnceFunc(func() {
		close(done)
		_ = ln.Close()
		mu.Lock()
		for _, c := range conns {
			_ = c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	t.Cleanup(stop)
	return "http://" + ln.Addr().String() + "/mcp", stop
}

// settings sends the server's SETTINGS frame.
func (p *h2Peer) settings(s ...http2.Setting) { _ = p.fr.WriteSettings(s...) }

// next reads frames until a request is whole (its END_STREAM), taking
// care of the connection on the way: SETTINGS are acknowledged, PINGs
// answered. It returns nil once the connection ended.
func (p *h2Peer) next() *h2Request {
	for {
		f, err := p.fr.ReadFrame()
		if err != nil {
			return nil
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				_ = p.fr.WriteSettingsAck()
			}
		case *http2.PingFrame:
			if !f.IsAck() {
				_ = p.fr.WritePing(true, f.Data)
			}
		case *http2.MetaHeadersFrame:
			if p.onHeaders != nil {
				p.onHeaders(p, f)
			}
			r := &h2Request{stream: f.StreamID, method: f.PseudoValue("method")}
			if f.StreamEnded() {
				return r
			}
			p.partial[f.StreamID] = r
		case *http2.DataFrame:
			if p.onData != nil {
				p.onData(p, f)
			}
			r := p.partial[f.StreamID]
			if r == nil {
				continue
			}
			r.body = append(r.body, f.Data()...)
			if f.StreamEnded() {
				delete(p.partial, f.StreamID)
				r.msg, _ = decodeEnvelope(r.body)
				return r
			}
		case *http2.RSTStreamFrame:
			delete(p.partial, f.StreamID)
		}
	}
}

// call reports whether r is a tools/call.
func (r *h2Request) call() bool { return r.msg.Method == messages.MethodToolsCall }

// answer answers r as the canned legacy server does: a JSON answer to a
// request, 202 to a notification or response, 405 to a GET, 200 to a
// DELETE. Extra header fields go with the answer's headers.
func (p *h2Peer) answer(r *h2Request, extra ...hpack.HeaderField) {
	switch {
	case r.method != "POST":
		status := "405"
		if r.method == "DELETE" {
			status = "200"
		}
		p.headers(r.stream, true, append([]hpack.HeaderField{{Name: ":status", Value: status}}, extra...)...)
	case r.msg.Kind != messages.KindRequest:
		p.headers(r.stream, true, append([]hpack.HeaderField{{Name: ":status", Value: "202"}}, extra...)...)
	default:
		body := cannedAnswer("legacy", r.msg)
		fields := []hpack.HeaderField{
			{Name: ":status", Value: "200"},
			{Name: "content-type", Value: "application/json"},
			{Name: "content-length", Value: strconv.Itoa(len(body))},
		}
		if r.msg.Method == messages.MethodInitialize {
			fields = append(fields, hpack.HeaderField{Name: "mcp-session-id", Value: "scripted"})
		}
		p.headers(r.stream, false, append(fields, extra...)...)
		_ = p.fr.WriteData(r.stream, true, body)
	}
}

// headers sends a header block on stream, split into HEADERS and
// CONTINUATION frames of at most the protocol's initial frame size
// (16 KiB) when it is larger.
func (p *h2Peer) headers(stream uint32, end bool, fields ...hpack.HeaderField) {
	p.hbuf.Reset()
	for _, f := range fields {
		_ = p.henc.WriteField(f)
	}
	block := p.hbuf.Bytes()
	const frame = 16 << 10
	first := block[:min(len(block), frame)]
	block = block[len(first):]
	_ = p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: stream, BlockFragment: first, EndStream: end, EndHeaders: len(block) == 0})
	for len(block) > 0 {
		part := block[:min(len(block), frame)]
		block = block[len(part):]
		_ = p.fr.WriteContinuation(stream, len(block) == 0, part)
	}
}

// serve answers every request until the connection ends.
func (p *h2Peer) serve() {
	for r := p.next(); r != nil; r = p.next() {
		p.answer(r)
	}
}

// drain reads and drops frames until the connection ends, answering
// nothing (not even a PING).
func (p *h2Peer) drain() {
	for {
		if _, err := p.fr.ReadFrame(); err != nil {
			return
		}
	}
}

// serveUntilCall answers the handshake (initialize, its notification)
// and returns the first tools/call, unanswered; nil when the connection
// ended first.
func (p *h2Peer) serveUntilCall() *h2Request {
	for r := p.next(); r != nil; r = p.next() {
		if r.call() {
			return r
		}
		p.answer(r)
	}
	return nil
}
