package mcpengine_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine"
	"github.com/mcpengine/mcpengine/messages"
)

// headerToolsServer is a 2026-07-28 Streamable HTTP server (plain JSON
// answers, as the conformance suite's) whose tools annotate arguments
// with x-mcp-header, one of them invalidly; it records the headers of
// each tools/call by tool.
func headerToolsServer(t *testing.T) (string, func(tool string) http.Header) {
	var mu sync.Mutex
	calls := map[string]http.Header{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		if json.Unmarshal(body, &req) != nil || req.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		var result string
		switch req.Method {
		case messages.MethodServerDiscover:
			result = `{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"headers","version":"1"}}`
		case messages.MethodToolsList:
			result = `{"resultType":"complete","ttlMs":0,"cacheScope":"private","tools":[
				{"name":"route","inputSchema":{"type":"object","properties":{
					"region":{"type":"string","x-mcp-header":"Region"},
					"priority":{"type":"integer","x-mcp-header":"Priority"},
					"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
					"label":{"type":"string","x-mcp-header":"Label"},
					"query":{"type":"string"}}}},
				{"name":"plain","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},
				{"name":"broken","inputSchema":{"type":"object","properties":{"score":{"type":"number","x-mcp-header":"Score"}}}}]}`
		case messages.MethodToolsCall:
			mu.Lock()
			calls[req.Params.Name] = r.Header.Clone()
			mu.Unlock()
			result = `{"resultType":"complete","content":[{"type":"text","text":"ok"}]}`
		default:
			result = `{}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(ts.Close)
	return ts.URL + "/mcp", func(tool string) http.Header {
		mu.Lock()
		defer mu.Unlock()
		return calls[tool]
	}
}

// TestToolArgumentsAnnotatedWithXMCPHeaderAreMirroredIntoMcpParamHeaders:
// SEP-2243, in 2026-07-28 over Streamable HTTP. After tools/list, a call
// of an annotated tool carries Mcp-Param-<name> for each annotated
// argument present and not null (integers in decimal, booleans as
// true/false, a value that is not plain ASCII in the =?base64?…?= form),
// nothing for unannotated ones; ListTools leaves out a tool whose
// annotation is invalid. Before, no Mcp-Param header was ever sent.
func TestToolArgumentsAnnotatedWithXMCPHeaderAreMirroredIntoMcpParamHeaders(t *testing.T) {
	url, headersOf := headerToolsServer(t)
	e := newEngine(t, mcpengine.Config{})
	ctx := testCtx(t, 30*time.Second)
	s, err := e.Connect(ctx, mcpengine.SessionConfig{Name: "h", Server: mcpengine.ServerConfig{URL: url, Type: "streamable-http"}})
	require.NoError(t, err)
	require.Equal(t, mcpengine.EraModern, s.Era())

	tools, err := s.ListTools(ctx)
	require.NoError(t, err)
	names := []string{}
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	assert.Equal(t, []string{"route", "plain"}, names, "the tool with an x-mcp-header on a number is left out")

	_, err = s.CallTool(ctx, "route", map[string]any{"region": "us-west1", "priority": 42, "verbose": nil,
		"label": " Hello, 世界 ", "query": "SELECT 1"})
	require.NoError(t, err)
	h := headersOf("route")
	require.NotNil(t, h)
	assert.Equal(t, "us-west1", h.Get("Mcp-Param-Region"))
	assert.Equal(t, "42", h.Get("Mcp-Param-Priority"))
	assert.Equal(t, "=?base64?IEhlbGxvLCDkuJbnlYwg?=", h.Get("Mcp-Param-Label"))
	assert.NotContains(t, h, "Mcp-Param-Verbose", "null: left out")
	assert.NotContains(t, h, "Mcp-Param-Query", "not annotated")
	assert.Equal(t, "tools/call", h.Get("Mcp-Method"))
	assert.Equal(t, "route", h.Get("Mcp-Name"))

	// Arguments of another type are seen as the server sees them.
	type routeArgs struct {
		Region  string `json:"region"`
		Verbose bool   `json:"verbose"`
	}
	_, err = s.CallTool(ctx, "route", routeArgs{Region: "eu", Verbose: false})
	require.NoError(t, err)
	h = headersOf("route")
	assert.Equal(t, "eu", h.Get("Mcp-Param-Region"))
	assert.Equal(t, "false", h.Get("Mcp-Param-Verbose"))
	assert.NotContains(t, h, "Mcp-Param-Priority")

	// CallToolAsync alike.
	_, err = s.CallToolAsync(ctx, "route", map[string]any{"region": "ap"}).Await(ctx)
	require.NoError(t, err)
	assert.Equal(t, "ap", headersOf("route").Get("Mcp-Param-Region"))

	_, err = s.CallTool(ctx, "plain", map[string]any{"q": "x"})
	require.NoError(t, err)
	for k := range headersOf("plain") {
		assert.NotContains(t, k, "Mcp-Param-")
	}
}
