package loadgen

import (
	"testing"

	"github.com/mcpengine/mcpengine/messages"
)

// The check every tools/call result of a run goes through: the demo
// server's echo answer against echo's outputSchema.
func BenchmarkCheckToolResult(b *testing.B) {
	chk, err := newOutputCheck("echo", messages.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`))
	if err != nil {
		b.Fatal(err)
	}
	raw := messages.RawMessage(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"text":"hello"}}`)
	for _, bc := range []struct {
		name string
		q    *request
	}{{"schema", &request{check: chk}}, {"no-schema", &request{}}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if c, err := checkToolResult(bc.q, raw); c != OK {
					b.Fatal(c, err)
				}
			}
		})
	}
}
