package mcpengine_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/internal/testkit"
	"github.com/mcpengine/mcpengine/messages"
)

// cannedServerEnv makes the test binary a canned stdio server (see
// serveCanned) for the era it names; TestMain checks it first.
const cannedServerEnv = "MCPENGINE_CANNED_SERVER_ERA"

// cannedHTTPServerEnv makes it the canned Streamable HTTP server instead
// (serveCannedHTTP).
const cannedHTTPServerEnv = "MCPENGINE_CANNED_HTTP_SERVER_ERA"

// serveCanned answers on stdio with prepared bytes, the same work in both
// eras (cannedAnswer). What the client spends per call then differs only
// by what the era asks of the client, not by the server's speed.
func serveCanned(era string) {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriterSize(os.Stdout, 64<<10)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return
		}
		m, err := decodeEnvelope(line)
		if err != nil || m.Kind != messages.KindRequest {
			continue
		}
		out.Write(cannedAnswer(era, m))
		out.WriteByte('\n')
		if in.Buffered() == 0 {
			if out.Flush() != nil {
				return
			}
		}
	}
}

// decodeEnvelope decodes a request's id and method, not its params: the
// engine writes them first, and a 2026-07-28 request's params carry its
// _meta, which a server that decoded them would take longer over. A
// slower server batches fewer answers per read, which costs the client
// more CPU per call; this server's speed must not depend on the era.
func decodeEnvelope(line []byte) (messages.Message, error) {
	if i := bytes.Index(line, []byte(`,"params":`)); i > 0 {
		line = append(line[:i:i], '}')
	}
	return messages.DecodeMessage(line)
}

// cannedAnswer is the canned servers' answer to request m: the id spliced
// into a fixed tools/call answer. The legacy server refuses the era probe
// and answers initialize; the modern one answers server/discover.
// "legacy-modernanswer" is the legacy era answered with the modern
// answer's bytes (resultType and _meta are legal extras there), to split
// the cost of reading a larger answer from the rest of what the era asks.
func cannedAnswer(era string, m messages.Message) []byte {
	answer := func(result string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID.AppendJSON(nil)) + `,"result":` + result + `}`)
	}
	switch {
	case m.Method == messages.MethodToolsCall && era == "legacy":
		return answer(`{"content":[{"type":"text","text":"hello"}]}`)
	case m.Method == messages.MethodToolsCall:
		// As the official Go SDK server answers in 2026-07-28: its
		// identity in every result's _meta.
		return answer(`{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`)
	case m.Method == messages.MethodServerDiscover && era == "modern":
		return answer(`{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"ttlMs":0,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`)
	case m.Method == messages.MethodServerDiscover:
		return []byte(`{"jsonrpc":"2.0","id":` + string(m.ID.AppendJSON(nil)) + `,"error":{"code":-32601,"message":"method not found"}}`)
	case m.Method == messages.MethodInitialize:
		return answer(`{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"canned","version":"1"}}`)
	default:
		return answer(`{}`)
	}
}

// serveCannedHTTP is serveCanned over Streamable HTTP, JSON answers only,
// on a loopback port printed as the first line of stdout; it serves until
// stdin ends. The handshake era gets a session id from initialize.
func serveCannedHTTP(era string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || err != nil {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		m, err := decodeEnvelope(body)
		if err != nil || m.Kind != messages.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		if m.Method == messages.MethodInitialize {
			w.Header().Set("Mcp-Session-Id", "canned")
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(cannedAnswer(era, m))
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	// Owned by serveCannedHTTP: ends when Close below closes the listener.
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("http://%s/mcp\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	_ = srv.Close()
}

// BenchmarkCallStdioEras: the client's cost per call in each era against
// the canned server (same server work in both), at 1 and 64 in flight:
// client-cpu-ns/op of modern over legacy is what 2026-07-28 costs the
// client (target ≤ 1.10).
func BenchmarkCallStdioEras(b *testing.B) {
	benchEras(b, func(b *testing.B, exe, era string) mcpengine.ServerConfig {
		return mcpengine.ServerConfig{Command: exe, Env: map[string]string{cannedServerEnv: era}}
	})
}

// BenchmarkCallHTTPEras is BenchmarkCallStdioEras over Streamable HTTP
// (JSON answers, one session; the server a child process): what 2026-07-28
// costs the client per call beside its larger answer is its headers
// (MCP-Protocol-Version, Mcp-Method, Mcp-Name) and per-request _meta; there
// is no session id.
func BenchmarkCallHTTPEras(b *testing.B) {
	benchEras(b, func(b *testing.B, exe, era string) mcpengine.ServerConfig {
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), cannedHTTPServerEnv+"="+era)
		return mcpengine.ServerConfig{URL: testkit.StartAddressChild(b, cmd), Type: "streamable-http"}
	})
}

// benchEras runs echo calls at each in-flight level against the canned
// server of each era that server starts.
func benchEras(b *testing.B, server func(b *testing.B, exe, era string) mcpengine.ServerConfig) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	negotiates := map[string]string{"legacy": "2025-11-25", "legacy-modernanswer": "2025-11-25", "modern": "2026-07-28"}
	for _, era := range []string{"legacy", "legacy-modernanswer", "modern"} {
		for _, n := range benchInFlightLevels {
			b.Run(fmt.Sprintf("era=%s/inflight=%d", era, n), func(b *testing.B) {
				e := benchEngine(b, mcpengine.Config{})
				s, err := e.Connect(context.Background(), mcpengine.SessionConfig{Name: "canned", Server: server(b, exe, era)})
				if err != nil {
					b.Fatal(err)
				}
				if s.ProtocolVersion() != negotiates[era] {
					b.Fatalf("negotiated %s, want %s", s.ProtocolVersion(), negotiates[era])
				}
				benchEcho(b, s, n, "client-cpu-ns/op")
			})
		}
	}
}
