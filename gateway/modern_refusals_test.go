package gateway_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/gateway"
	"github.com/mcpengine/mcpengine/messages"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// The aggregated endpoint's refusals of 2026-07-28 requests: without
// _meta, -32602 with the request's id (before: a null id and "missing
// Mcp-Session-Id header"); removed and unknown methods, 404 with -32601
// (before: 200); a missing resource, -32602 with data.uri (before:
// -32002), from the gateway itself and from a handshake-era upstream.
func TestGatewayModernRefusals(t *testing.T) {
	_, gw := startGateway(t, gateway.Config{Servers: map[string]gateway.Server{"a": {Target: engineServe("--era", "legacy")}}})

	for name, params := range map[string]string{
		"no params": ``, "no _meta": `,"params":{}`, "no caps": `,"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`,
	} {
		status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":41,"method":"ping"`+params+`}`,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "ping")
		assert.Equal(t, http.StatusBadRequest, status, name)
		assert.Equal(t, int64(messages.CodeInvalidParams), decodeError(t, body).Code, name)
		assert.Equal(t, "41", string(member(t, body, "id")), name)
	}

	for _, method := range []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe", "no/such-method"} {
		status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":42,"method":"`+method+`","params":{"uri":"demo://resource/1",`+modernMeta+`}}`,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", method)
		assert.Equal(t, http.StatusNotFound, status, method)
		assert.Equal(t, int64(messages.CodeMethodNotFound), decodeError(t, body).Code, method)
		assert.Equal(t, "42", string(member(t, body, "id")), method)
	}

	for _, uri := range []string{"nobody://offers/this", "demo://resource/999999"} {
		status, body, _ := post(t, gw.MCPURL(), "", `{"jsonrpc":"2.0","id":43,"method":"resources/read","params":{"uri":"`+uri+`",`+modernMeta+`}}`,
			"Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "resources/read", "Mcp-Name", uri)
		require.Equal(t, http.StatusOK, status, uri)
		e := decodeError(t, body)
		assert.Equal(t, int64(messages.CodeInvalidParams), e.Code, "%s: %s", uri, body)
		assert.JSONEq(t, `{"uri":"`+uri+`"}`, string(e.Data), uri)
	}
}
