package mcpengine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// cannedServerEnv makes the test binary a canned stdio server (see
// serveCanned) for the era it names; TestMain checks it first.
const cannedServerEnv = "MCPENGINE_CANNED_SERVER_ERA"

// serveCanned answers on stdio with prepared bytes, the same work in both
// eras: the id is spliced into a fixed tools/call answer. The legacy
// server refuses the era probe and answers initialize; the modern one
// answers server/discover. What the client spends per call then differs
// only by what the era asks of the client, not by the server's speed.
// "legacy-modernanswer" is the legacy era answered with the modern
// answer's bytes (resultType and _meta are legal extras there), to split
// the cost of reading a larger answer from the rest of what the era asks.
func serveCanned(era string) {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	answer := func(id messages.RawMessage, result string) {
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(id)
		out.WriteString(`,"result":`)
		out.WriteString(result)
		out.WriteString("}\n")
	}
	call := `{"content":[{"type":"text","text":"hello"}]}`
	if era != "legacy" {
		// As the official Go SDK server answers in 2026-07-28: its
		// identity in every result's _meta.
		call = `{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`
	}
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return
		}
		m, err := messages.DecodeMessage(line)
		if err != nil || m.Kind != messages.KindRequest {
			continue
		}
		switch {
		case m.Method == messages.MethodToolsCall:
			answer(m.ID.AppendJSON(nil), call)
		case m.Method == messages.MethodServerDiscover && era == "modern":
			answer(m.ID.AppendJSON(nil), `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`)
		case m.Method == messages.MethodServerDiscover:
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID.AppendJSON(nil)) + `,"error":{"code":-32601,"message":"method not found"}}` + "\n")
		case m.Method == messages.MethodInitialize:
			answer(m.ID.AppendJSON(nil), `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`)
		default:
			answer(m.ID.AppendJSON(nil), `{}`)
		}
		if in.Buffered() == 0 {
			if out.Flush() != nil {
				return
			}
		}
	}
}

// BenchmarkCallStdioEras: the client's cost per call in each era against
// the canned server (same server work in both), at 1 and 64 in flight:
// client-cpu-ns/op of modern over legacy is what 2026-07-28 costs the
// client (target ≤ 1.10).
func BenchmarkCallStdioEras(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	for _, era := range []string{"legacy", "legacy-modernanswer", "modern"} {
		for _, n := range benchInFlightLevels {
			b.Run(fmt.Sprintf("era=%s/inflight=%d", era, n), func(b *testing.B) {
				e := benchEngine(b, mcpengine.Config{})
				s, err := e.Connect(context.Background(), mcpengine.SessionConfig{Name: "canned", Server: mcpengine.ServerConfig{
					Command: exe, Env: map[string]string{cannedServerEnv: era}}})
				if err != nil {
					b.Fatal(err)
				}
				if want := map[string]string{"legacy": "2025-11-25", "legacy-modernanswer": "2025-11-25", "modern": "2026-07-28"}[era]; s.ProtocolVersion() != want {
					b.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), want)
				}
				benchEcho(b, s, n, "client-cpu-ns/op")
			})
		}
	}
}
