package mcpengine_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/mcpengine/mcpengine"
)

// BenchmarkCallToolAsyncStdio: tools/call echo through CallToolAsync and
// Await, one call in flight, against an engine serve subprocess: the
// Future's path, decode included, beside BenchmarkCallStdio's blocking
// one.
func BenchmarkCallToolAsyncStdio(b *testing.B) {
	e := benchEngine(b, mcpengine.Config{})
	ctx := context.Background()
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "stdio", Server: engineServe()})
	if err != nil {
		b.Fatal(err)
	}
	call := func() {
		res, err := s.CallToolAsync(ctx, "echo", map[string]any{"text": "hello"}).Await(ctx)
		if err != nil || len(res.Content) != 1 || res.Content[0].Text != "hello" {
			b.Fatalf("echo: %+v %v", res, err)
		}
	}
	for range 1000 {
		call()
	}
	runtime.GC()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		call()
	}
}
