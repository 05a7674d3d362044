package messages

import (
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oddStrings are method names and string ids that need escaping.
var oddStrings = []string{
	"",
	"plain",
	`quote " and backslash \`,
	"slash / and unicode é 日本 🎉",
	"controls \x00 \x01 \x1f \n \r \t \b \f",
	"html <script>&</script>",
	"line separators \u2028 \u2029",
	"invalid utf8 \xff \xc3",
	"del \x7f",
}

func TestAppendRequestDecodesBackEqual(t *testing.T) {
	for _, s := range oddStrings {
		for _, id := range []ID{NumberID(0), NumberID(-42), NumberID(1<<63 - 1), StringID(s)} {
			for _, params := range []RawMessage{nil, RawMessage(`{}`), RawMessage(`{"name":"x","arguments":{"a":[1,"b"]}}`)} {
				frame := AppendRequest(nil, id, s+"m", params)
				require.True(t, Valid(frame), "%q", frame)
				got, err := DecodeMessage(frame)
				require.NoError(t, err, "%q", frame)
				assertSameMessage(t, Message{Kind: KindRequest, ID: sanitizedID(id), Method: sanitize(s + "m"), Params: params}, got)
			}
		}
	}
}

func TestAppendNotificationDecodesBackEqual(t *testing.T) {
	for _, s := range oddStrings {
		frame := AppendNotification(nil, s+"n", RawMessage(`{"progressToken":1,"progress":0.5}`))
		require.True(t, Valid(frame), "%q", frame)
		got, err := DecodeMessage(frame)
		require.NoError(t, err)
		assertSameMessage(t, Message{Kind: KindNotification, Method: sanitize(s + "n"), Params: RawMessage(`{"progressToken":1,"progress":0.5}`)}, got)
	}
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		string(AppendNotification(nil, NotificationInitialized, nil)))
}

func TestAppendResultDecodesBackEqual(t *testing.T) {
	for _, s := range oddStrings {
		id := StringID(s)
		frame := AppendResult(nil, id, RawMessage(`{"roots":[]}`))
		require.True(t, Valid(frame), "%q", frame)
		got, err := DecodeMessage(frame)
		require.NoError(t, err)
		assertSameMessage(t, Message{Kind: KindResponse, ID: sanitizedID(id), Result: RawMessage(`{"roots":[]}`)}, got)
	}
}

func TestAppendResultSendsNilResultAsEmptyObject(t *testing.T) {
	assert.Equal(t, `{"jsonrpc":"2.0","id":3,"result":{}}`, string(AppendResult(nil, NumberID(3), nil)))
}

func TestAppendErrorDecodesBackEqual(t *testing.T) {
	for _, s := range oddStrings {
		for _, e := range []*WireError{
			{Code: CodeMethodNotFound, Message: s},
			{Code: -1 << 63, Message: s, Data: RawMessage(`{"detail":"x"}`)},
			{Code: CodeURLElicitationRequired, Message: "", Data: RawMessage(`"str"`)},
		} {
			for _, id := range []ID{NumberID(9), StringID(s), {kind: idNull}} {
				frame := AppendError(nil, id, e)
				require.True(t, Valid(frame), "%q", frame)
				got, err := DecodeMessage(frame)
				require.NoError(t, err, "%q", frame)
				want := &WireError{Code: e.Code, Message: sanitize(e.Message), Data: e.Data}
				assertSameMessage(t, Message{Kind: KindResponse, ID: sanitizedID(id), Error: want}, got)
			}
		}
	}
}

func TestAppendReusesTheCallersBuffer(t *testing.T) {
	buf := make([]byte, 0, 256)
	out := AppendRequest(buf, NumberID(1), MethodPing, nil)
	assert.Equal(t, &buf[:1][0], &out[:1][0], "appended in place")
	out = AppendNotification(out[:0], NotificationInitialized, nil)
	assert.Equal(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`, string(out))
}

func TestAppendWithMarshalledParamsMatchesTheSchemaShape(t *testing.T) {
	params, err := Marshal(&CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hi"}})
	require.NoError(t, err)
	frame := AppendRequest(nil, NumberID(5), MethodToolsCall, params)
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`, string(frame))
}

// sanitize is what a string becomes on the wire: invalid UTF-8 replaced.
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	out := make([]rune, 0, len(s))
	for _, r := range s {
		out = append(out, r)
	}
	return string(out)
}

func sanitizedID(id ID) ID {
	if id.IsString() {
		return StringID(sanitize(id.str))
	}
	return id
}

// A received error goes back out exactly as it came: escapes, member order
// and unknown members included (the gateway relays errors this way).
func TestAReceivedErrorIsRelayedByteForByte(t *testing.T) {
	obj := `{"message":"caf\u00e9 \/ r\u00e9sum\u00e9","code":-32602,"data":{"b":1, "a":[2]},"x-extra":true}`
	m, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7,"error":` + obj + `}`))
	require.NoError(t, err)
	require.NotNil(t, m.Error)
	assert.Equal(t, "café / résumé", m.Error.Message)
	assert.Equal(t, `{"jsonrpc":"2.0","id":"relay-1","error":`+obj+`}`, string(AppendError(nil, StringID("relay-1"), m.Error)))

	built := &WireError{Code: CodeInternalError, Message: "local"}
	assert.Equal(t, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"local"}}`, string(AppendError(nil, NumberID(1), built)))
}
