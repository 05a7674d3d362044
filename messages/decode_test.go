package messages

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeMessageAcceptsEachValidShape(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  Message
	}{
		{"request with number id", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}`,
			Message{Kind: KindRequest, ID: NumberID(7), Method: "tools/list", Params: RawMessage(`{"cursor":"c"}`)}},
		{"request with string id", `{"jsonrpc":"2.0","id":"7","method":"ping"}`,
			Message{Kind: KindRequest, ID: StringID("7"), Method: "ping"}},
		{"request with negative id", `{"jsonrpc":"2.0","id":-3,"method":"ping"}`,
			Message{Kind: KindRequest, ID: NumberID(-3), Method: "ping"}},
		{"request with empty string id", `{"jsonrpc":"2.0","id":"","method":"ping"}`,
			Message{Kind: KindRequest, ID: StringID(""), Method: "ping"}},
		{"request with array params", `{"jsonrpc":"2.0","id":1,"method":"m","params":[1,2]}`,
			Message{Kind: KindRequest, ID: NumberID(1), Method: "m", Params: RawMessage(`[1,2]`)}},
		{"request with null params", `{"jsonrpc":"2.0","id":1,"method":"m","params":null}`,
			Message{Kind: KindRequest, ID: NumberID(1), Method: "m"}},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			Message{Kind: KindNotification, Method: "notifications/initialized"}},
		{"escaped method name", `{"jsonrpc":"2.0","method":"notifications\/tools\/list_changed"}`,
			Message{Kind: KindNotification, Method: "notifications/tools/list_changed"}},
		{"members in any order with whitespace", " {\n \"method\" : \"ping\" ,\t\"id\" : 1 , \"jsonrpc\" : \"2.0\" } ",
			Message{Kind: KindRequest, ID: NumberID(1), Method: "ping"}},
		{"success response", `{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}`,
			Message{Kind: KindResponse, ID: StringID("a"), Result: RawMessage(`{"tools":[]}`)}},
		{"success response with empty result", `{"jsonrpc":"2.0","id":2,"result":{}}`,
			Message{Kind: KindResponse, ID: NumberID(2), Result: RawMessage(`{}`)}},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no such method"}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: -32601, Message: "no such method"}}},
		{"error response with data", `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"nf","data":{"uri":"x"}}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: -32002, Message: "nf", Data: RawMessage(`{"uri":"x"}`)}}},
		{"error response with null data", `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m","data":null}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: 1, Message: "m"}}},
		{"error response with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			Message{Kind: KindResponse, ID: ID{kind: idNull}, Error: &WireError{Code: -32700, Message: "parse error"}}},
		{"error response without id (2025-11-25)", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`,
			Message{Kind: KindResponse, ID: ID{kind: idNull}, Error: &WireError{Code: -32700, Message: "parse error"}}},
		{"error code with exponent-free negative zero", `{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":""}}`,
			Message{Kind: KindResponse, ID: NumberID(1), Error: &WireError{Code: 0, Message: ""}}},
		{"unknown members are ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"x":[1]}}`,
			Message{Kind: KindRequest, ID: NumberID(1), Method: "ping"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := DecodeMessage([]byte(c.frame))
			require.NoError(t, err)
			assertSameMessage(t, c.want, got)
		})
	}
}

func TestDecodeMessageRejectsEachInvalidShape(t *testing.T) {
	cases := []struct{ name, frame, reason string }{
		{"jsonrpc missing", `{"id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"jsonrpc as a number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"member names in the wrong case", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, `jsonrpc must be "2.0"`},
		{"method in the wrong case", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, "exactly one of result and error"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, "exactly one of result and error"},
		{"result with null error", `{"jsonrpc":"2.0","id":1,"result":{},"error":null}`, "exactly one of result and error"},
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, "exactly one of result and error"},
		{"request carrying a result", `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, "cannot carry result or error"},
		{"error code as a string", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"m"}}`, "code must be an integer"},
		{"error code with a fraction", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"m"}}`, "code must be an integer"},
		{"error code with an exponent", `{"jsonrpc":"2.0","id":1,"error":{"code":1e3,"message":"m"}}`, "code must be an integer"},
		{"error code missing", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, "code must be an integer"},
		{"error code beyond int64", `{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999,"message":"m"}}`, "code must be an integer"},
		{"error message as a number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":5}}`, "message must be a string"},
		{"error message missing", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, "message must be a string"},
		{"error as a string", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, "error must be an object"},
		{"error null", `{"jsonrpc":"2.0","id":1,"error":null}`, "error must be an object"},
		{"id as an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "id must be an integer or a string"},
		{"id as a bool", `{"jsonrpc":"2.0","id":true,"result":{}}`, "id must be an integer or a string"},
		{"id with a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "id must be an integer or a string"},
		{"id with an exponent", `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, "id must be an integer or a string"},
		{"id beyond int64", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, "id must be an integer or a string"},
		{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "request id must not be null"},
		{"null id on a success response", `{"jsonrpc":"2.0","id":null,"result":{}}`, "non-null id"},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, "neither method nor id"},
		{"method as a number", `{"jsonrpc":"2.0","id":1,"method":5}`, "method must be a string"},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, "non-empty string"},
		{"params as a string", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, "params must be an object or an array"},
		{"params as a number", `{"jsonrpc":"2.0","method":"m","params":1}`, "params must be an object or an array"},
		{"not an object", `"ping"`, "malformed JSON"},
		{"an array where an object belongs", `[1]`, "malformed JSON"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"pi`, "malformed JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, "malformed JSON"},
		{"raw control character", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\x01\"}", "malformed JSON"},
		{"json null", `null`, `jsonrpc must be "2.0"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := DecodeMessage([]byte(c.frame))
			var ime *InvalidMessageError
			require.True(t, errors.As(err, &ime), "got %v", err)
			assert.Contains(t, ime.Reason, c.reason)
		})
	}
}

func TestIDKeepsItsJSONType(t *testing.T) {
	num, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":7,"result":{}}`))
	require.NoError(t, err)
	str, err := DecodeMessage([]byte(`{"jsonrpc":"2.0","id":"7","result":{}}`))
	require.NoError(t, err)

	assert.NotEqual(t, num.ID, str.ID, "7 and \"7\" are different ids")
	assert.False(t, num.ID.IsString())
	assert.True(t, str.ID.IsString())
	assert.Equal(t, `{"jsonrpc":"2.0","id":7,"result":{}}`, string(AppendResult(nil, num.ID, num.Result)))
	assert.Equal(t, `{"jsonrpc":"2.0","id":"7","result":{}}`, string(AppendResult(nil, str.ID, str.Result)))

	for _, id := range []ID{NumberID(7), StringID("7"), NumberID(-1 << 63), StringID("é\"\\")} {
		b, err := Marshal(id)
		require.NoError(t, err)
		var back ID
		require.NoError(t, Unmarshal(b, &back))
		assert.Equal(t, id, back, "%s", b)
	}
}

func TestDecodeFrameEmptyAndGarbage(t *testing.T) {
	cases := map[string]string{
		"empty":           "",
		"only whitespace": " \r\n\t",
		"garbage":         "hello, server",
		"binary":          "\x00\x01\x02\xff",
		"lone brace":      "{",
		"empty batch":     "[]",
		"malformed batch": `[{"jsonrpc":"2.0","method":"a"},`,
	}
	for name, frame := range cases {
		t.Run(name, func(t *testing.T) {
			msgs, errs := DecodeFrame([]byte(frame))
			assert.Empty(t, msgs)
			require.Len(t, errs, 1)
			var ime *InvalidMessageError
			assert.ErrorAs(t, errs[0], &ime)
		})
	}
}

func TestDecodeFrameRefusesOversizedFrames(t *testing.T) {
	frame := make([]byte, MaxMessageBytes+1)
	copy(frame, `{"jsonrpc":"2.0","method":"x","params":{"p":"`)
	msgs, errs := DecodeFrame(frame)
	assert.Empty(t, msgs)
	require.Len(t, errs, 1)
	assert.Contains(t, errs[0].Error(), "byte limit")
}

// The limit is the session's, not a constant: a frame the transport let
// through under a larger configured limit decodes, and a smaller one is
// enforced, on both decoding paths.
func TestFrameLimitIsTheOneGiven(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("x", 200) + `"}}`)
	batch := []byte("[" + string(frame) + "]")
	for _, f := range [][]byte{frame, batch} {
		msgs, errs, _ := AppendDecodedFrameLimit(nil, f, 100)
		assert.Empty(t, msgs)
		require.Len(t, errs, 1)
		assert.Contains(t, errs[0].Error(), "exceeds the 100-byte limit")

		msgs, errs, _ = AppendDecodedFrameLimit(nil, f, len(f))
		assert.Empty(t, errs)
		require.Len(t, msgs, 1)

		msgs, errs = DecodeFrameLimit(f, 0) // zero: the default
		assert.Empty(t, errs)
		require.Len(t, msgs, 1)
	}
	head, tail := `{"jsonrpc":"2.0","id":1,"result":{"p":"`, `"}}`
	big := []byte(head + strings.Repeat("x", MaxMessageBytes+1-len(head)-len(tail)) + tail)
	msgs, errs, _ := AppendDecodedFrameLimit(nil, big, MaxMessageBytes+1)
	assert.Empty(t, errs, "above the default, within the limit given")
	require.Len(t, msgs, 1)
}

func TestDecodeFrameBatchKeepsValidMembersInOrderAndReportsInvalidOnes(t *testing.T) {
	frame := `[
		{"jsonrpc":"2.0","id":1,"result":{"a":1}},
		{"jsonrpc":"1.0","id":2,"result":{}},
		{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}},
		42,
		{"jsonrpc":"2.0","id":"x","method":"roots/list"},
		{"jsonrpc":"2.0","id":3,"result":{},"error":{"code":1,"message":"m"}},
		[{"jsonrpc":"2.0","method":"nested"}]
	]`
	msgs, errs := DecodeFrame([]byte(frame))
	require.Len(t, msgs, 3)
	assert.Equal(t, KindResponse, msgs[0].Kind)
	assert.Equal(t, NumberID(1), msgs[0].ID)
	assert.Equal(t, KindNotification, msgs[1].Kind)
	assert.Equal(t, NotificationProgress, msgs[1].Method)
	assert.Equal(t, KindRequest, msgs[2].Kind)
	assert.Equal(t, StringID("x"), msgs[2].ID)
	assert.Len(t, errs, 4)
	for _, err := range errs {
		var ime *InvalidMessageError
		assert.ErrorAs(t, err, &ime)
	}
}

func TestDecodeFrameSingleMessage(t *testing.T) {
	msgs, errs := DecodeFrame([]byte("\n{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n"))
	assert.Empty(t, errs)
	require.Len(t, msgs, 1)
	assert.Equal(t, MethodPing, msgs[0].Method)
}

func TestDecodeFrameSurvivesDeepNesting(t *testing.T) {
	for _, depth := range []int{100, 10_000, 200_000} {
		deep := strings.Repeat("[", depth) + strings.Repeat("]", depth)
		frame := `{"jsonrpc":"2.0","id":1,"result":{"x":` + deep + `}}`
		assert.NotPanics(t, func() { DecodeFrame([]byte(frame)) })
		assert.NotPanics(t, func() { DecodeFrame([]byte(deep)) })
	}
}

func TestInvalidMessageErrorShowsOnlyTheStartOfTheFrame(t *testing.T) {
	_, err := DecodeMessage([]byte(`{"jsonrpc":"1.0","pad":"` + strings.Repeat("x", 1000) + `"}`))
	require.Error(t, err)
	assert.Less(t, len(err.Error()), 300)
}

// assertSameMessage compares messages with raw members compared as JSON.
func assertSameMessage(t *testing.T, want, got Message) {
	t.Helper()
	assert.Equal(t, want.Kind, got.Kind, "kind")
	assert.Equal(t, want.ID, got.ID, "id")
	assert.Equal(t, want.Method, got.Method, "method")
	assertRawEqual(t, want.Params, got.Params, "params")
	assertRawEqual(t, want.Result, got.Result, "result")
	if want.Error == nil || got.Error == nil {
		assert.Equal(t, want.Error == nil, got.Error == nil, "error presence")
		return
	}
	assert.Equal(t, want.Error.Code, got.Error.Code)
	assert.Equal(t, want.Error.Message, got.Error.Message)
	assertRawEqual(t, want.Error.Data, got.Error.Data, "error data")
}

func assertRawEqual(t *testing.T, want, got RawMessage, what string) {
	t.Helper()
	if want == nil || got == nil {
		assert.Equal(t, want == nil, got == nil, "%s presence: want %s got %s", what, want, got)
		return
	}
	assert.JSONEq(t, string(want), string(got), what)
}
