package httpcore

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mcpengine/mcpengine/messages"
	"github.com/mcpengine/mcpengine/transport"
)

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"x \"}{","version":"1"}}`

func TestModernRequestMirrorsVersionMethodAndTarget(t *testing.T) {
	for _, tc := range []struct {
		what, method, params string
		want                 Modern
	}{
		{"a tool's name", "tools/call", `{"name":"echo","arguments":{"name":"not this","list":[1,"]",{"a":null}]},` + modernMeta + `}`,
			Modern{Version: "2026-07-28", Method: "tools/call", Name: "echo"}},
		{"the name after _meta, with spaces", "prompts/get", "{ " + modernMeta + " ,\n \"name\" : \"greet\" }",
			Modern{Version: "2026-07-28", Method: "prompts/get", Name: "greet"}},
		{"a resource's uri", "resources/read", `{"uri":"file:///a b.txt",` + modernMeta + `}`,
			Modern{Version: "2026-07-28", Method: "resources/read", Name: "file:///a b.txt"}},
		{"no target for the method", "tools/list", `{"cursor":"c",` + modernMeta + `}`,
			Modern{Version: "2026-07-28", Method: "tools/list"}},
		{"a name that needs Base64", "tools/call", `{"name":"héllo",` + modernMeta + `}`,
			Modern{Version: "2026-07-28", Method: "tools/call", Name: EncodeHeaderValue("héllo")}},
		{"an escaped name (decoded, not scanned)", "tools/call", `{"name":"a\"b\u00e9",` + modernMeta + `}`,
			Modern{Version: "2026-07-28", Method: "tools/call", Name: EncodeHeaderValue("a\"bé")}},
		{"an unknown version kept as sent", "tools/call", `{"name":"e","_meta":{"io.modelcontextprotocol/protocolVersion":"2099-01-01"}}`,
			Modern{Version: "2099-01-01", Method: "tools/call", Name: "e"}},
	} {
		t.Run(tc.what, func(t *testing.T) {
			got, ok := modernRequest(tc.method, []byte(tc.params), "")
			assert.True(t, ok)
			assert.Equal(t, tc.want, got)
			assert.True(t, got.Set())
		})
	}
}

func TestModernRequestRefusesOtherRequests(t *testing.T) {
	for _, params := range []string{
		`{"name":"echo"}`,
		`{"name":"echo","_meta":{"progressToken":1}}`,
		`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":""}}`,
		`{"name":"echo","note":"\"io.modelcontextprotocol/protocolVersion\""}`,
		`{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, // cut short
	} {
		_, ok := modernRequest("tools/call", []byte(params), "")
		assert.False(t, ok, params)
	}
}

// A 2026-07-28 request as the session sends it: the version beside the
// frame (spliced into the frame's _meta, absent from Params), the name
// read from Params; nothing is read from the frame.
func TestOutgoingModernRequest(t *testing.T) {
	var o Outgoing
	OutgoingInto(&o, &transport.Message{
		Frame:   []byte(`not read`),
		Kind:    messages.KindRequest,
		ID:      messages.NumberID(7),
		Method:  "tools/call",
		Params:  []byte(`{"name":"echo"}`),
		Version: "2026-07-28",
	})
	assert.Equal(t, Modern{Version: "2026-07-28", Method: "tools/call", Name: "echo"}, o.Modern)
	assert.Equal(t, []messages.ID{messages.NumberID(7)}, o.Requests)

	o = Outgoing{}
	OutgoingInto(&o, &transport.Message{Kind: messages.KindRequest, ID: messages.NumberID(8), Method: "tools/list", Version: "2026-07-28"})
	assert.Equal(t, Modern{Version: "2026-07-28", Method: "tools/list"}, o.Modern)

	o = Outgoing{}
	OutgoingInto(&o, &transport.Message{Kind: messages.KindRequest, ID: messages.NumberID(9), Method: "tools/call", Params: []byte(`{"name":"echo"}`)})
	assert.False(t, o.Modern.Set())
}

func TestEachMemberStopsAtMalformedInput(t *testing.T) {
	for _, b := range []string{``, `[]`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":1 "b":2}`, `{"a":"x`, `{"a":{"b":1}`, `{"\u0061":1}`} {
		assert.False(t, eachMember([]byte(b), func(_, _ []byte) bool { return true }), b)
	}
	var names []string
	assert.True(t, eachMember([]byte(` { "a" : [1,{"]":"}"}] , "b":true,"c":-1.5e3,"d":null } `), func(name, value []byte) bool {
		names = append(names, string(name)+"="+string(value))
		return true
	}))
	assert.Equal(t, []string{`a=[1,{"]":"}"}]`, "b=true", "c=-1.5e3", "d=null"}, names)
	assert.True(t, eachMember([]byte(`{}`), func(_, _ []byte) bool { return true }))
}
