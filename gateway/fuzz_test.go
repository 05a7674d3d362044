package gateway_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/gateway"
)

// FuzzGatewayRequestBodies sends arbitrary bodies to the gateway's two
// endpoints, /rpc (server_id routing) and /mcp (the aggregated MCP
// endpoint), in front of a real demo server. Whatever a client sends, the
// gateway answers with a client error or a well-formed answer: it never
// panics, never answers 500, and every JSON body it writes parses.
func FuzzGatewayRequestBodies(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}},"server_id":"demo"}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","server_id":"demo"}`,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"f","version":"1"}}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":"x","method":"resources/read","params":{"uri":"demo://resource/1"},"server_id":"nope"}`,
		`{"jsonrpc":"2.0","id":1e999,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"id":1,"method":"tools/call","params":[1,2,3],"server_id":"demo"}`,
		`[[[[[[[[[[]]]]]]]]]]`,
		"\xff\xfe{\"jsonrpc\":\"2.0\"}",
		``,
		`null`,
	} {
		f.Add(false, []byte(s))
		f.Add(true, []byte(s))
	}
	_, up := demoHTTP(f, demoserver.Options{})
	g, _ := startGateway(f, gateway.Config{
		Servers: map[string]gateway.Server{"demo": {Target: mcpengine.ServerConfig{URL: up.StreamableURL()}}},
		// A fuzzed tools/call of the sleep tool must not hold an iteration.
		ClientRequestTimeout: 2 * time.Second,
		Engine:               mcpengine.Config{RequestTimeout: 2 * time.Second},
	})
	h := g.Handler()
	f.Fuzz(func(t *testing.T, aggregated bool, body []byte) {
		path := "/rpc"
		if aggregated {
			path = "/mcp"
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req := httptest.NewRequestWithContext(ctx, http.MethodPost, path, bytes.NewReader(body))
		req.Host = "127.0.0.1" // as a local client sends it: other hosts are refused before parsing
		req.RemoteAddr = "127.0.0.1:50000"
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if testing.Verbose() {
			t.Logf("%s %d %.200s", path, rec.Code, rec.Body.Bytes())
		}
		if rec.Code >= 500 && rec.Code != http.StatusBadGateway && rec.Code != http.StatusServiceUnavailable && rec.Code != http.StatusGatewayTimeout {
			t.Fatalf("%s answered %d to %q: %s", path, rec.Code, body, rec.Body.Bytes())
		}
		if strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") && rec.Body.Len() > 0 && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s answered invalid JSON to %q: %q", path, body, rec.Body.Bytes())
		}
	})
}

// FuzzParseConfig feeds arbitrary documents to the gateway's config
// parser (an mcpServers file with a "gateway" section): an error or a
// configuration, never a panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"a":{"command":"x"}},"gateway":{"servers":{"a":{"pool":2,"prefix":"p__"}},"clients":[{"name":"c","token":"t"}]}}`))
	f.Add([]byte(`{"mcpServers":{"a":{"url":"http://127.0.0.1:1/mcp","auth":{"oauth":{"grant":"client_credentials","clientId":"id"}}}}}`))
	f.Add([]byte(`{"mcpServers":{},"gateway":{"servers":{"nope":{}}}}`))
	f.Add([]byte(`{"gateway":{"requestTimeout":"-1s"}}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		_, _ = gateway.ParseConfig(doc)
	})
}
