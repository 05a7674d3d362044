package mcpengine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/transport"
	"github.com/mcpengine/mcpengine/transport/memory"
)

// BenchmarkConnect: what one more session's opening costs an engine that
// already opened one (its codecs compiled, its pools warm), when many
// connect: b.N sessions over in-memory pipes to one in-process demoserver,
// connected one after the other and kept open, with the handshake of a
// pinned 2025-11-25 (initialize, notifications/initialized) and of an
// unpinned engine (the era probe, answered from the engine's cache after
// the first session). The server runs in this process, so
// "process-cpu-ns/op" is client and server CPU per connect; compare it
// before and after a change of the client's handshake.
//
//	go test -run '^$' -bench 'BenchmarkConnect$' -benchtime 2000x -count 5 .
func BenchmarkConnect(b *testing.B) {
	for _, pin := range []string{"2025-11-25", ""} {
		name := "pinned=" + pin
		if pin == "" {
			name = "negotiated"
		}
		b.Run(name, func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			srv := demoserver.New(demoserver.Options{})
			dialer := memory.NewDialer("demo", func(c transport.Conn) { _ = srv.Serve(ctx, c) })
			e := benchEngine(b, mcpengine.Config{ProtocolVersion: pin})
			connect := func(i int) *mcpengine.Session {
				s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: fmt.Sprint("s", i), Dialer: dialer})
				if err != nil {
					b.Fatal(err)
				}
				return s
			}
			benchCloseAll(b, []*mcpengine.Session{connect(-1)}) // the one-time costs
			sessions := make([]*mcpengine.Session, 0, b.N)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := benchProcessCPU()
			for i := range b.N {
				sessions = append(sessions, connect(i))
			}
			b.ReportMetric(float64(benchProcessCPU()-cpu0)/float64(b.N), "process-cpu-ns/op")
			b.StopTimer()
			benchCloseAll(b, sessions)
		})
	}
}
