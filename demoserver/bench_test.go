package demoserver

import (
	"testing"

	"github.com/mcpengine/mcpengine/messages"
)

// BenchmarkEchoRoundTrip measures one tools/call echo round trip through
// the test pipe and the test client, one call at a time.
func BenchmarkEchoRoundTrip(b *testing.B) {
	c, _ := start(b, Options{})
	params := messages.RawMessage(`{"name":"echo","arguments":{"text":"hello, benchmark"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if m := c.call(messages.MethodToolsCall, params); m.Error != nil {
			b.Fatal(m.Error)
		}
	}
}

// BenchmarkEchoRoundTripParallel keeps many calls in flight (pipelined), as
// a client engine does under load; the writer coalesces the responses.
func BenchmarkEchoRoundTripParallel(b *testing.B) {
	c, _ := start(b, Options{})
	params := messages.RawMessage(`{"name":"echo","arguments":{"text":"hello, benchmark"}}`)
	b.ReportAllocs()
	b.SetParallelism(16)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if m := c.call(messages.MethodToolsCall, params); m.Error != nil {
				b.Error(m.Error)
				return
			}
		}
	})
}

// BenchmarkPingRoundTrip measures the smallest request.
func BenchmarkPingRoundTrip(b *testing.B) {
	c, _ := start(b, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if m := c.call(messages.MethodPing, nil); m.Error != nil {
			b.Fatal(m.Error)
		}
	}
}

// BenchmarkEchoServerOnly measures the server's side of an echo without a
// transport: decode, dispatch, handle, encode.
func BenchmarkEchoServerOnly(b *testing.B) {
	srv := New(Options{})
	s := newSession(srv, nil)
	s.ctx = b.Context()
	s.initialized.Store(true)
	frame := []byte(`{"jsonrpc":"2.0","id":12345,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, benchmark"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.handleFrame(frame); err != nil {
			b.Fatal(err)
		}
		s.w.mu.Lock()
		for _, f := range s.w.queue {
			s.w.free = append(s.w.free, f[:0])
		}
		s.w.queue = s.w.queue[:0]
		s.w.mu.Unlock()
	}
}
