package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendDecodedFrameAcceptsEachValidShapeInPlace(t *testing.T) {
	cases := []struct {
		name  string
		frame string
		want  Message
	}{
		{"request with number id", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"c"}}`,
			Message{Kind: KindRequest, ID: NumberID(7), Method: "tools/list", Params: RawMessage(`{"cursor":"c"}`)}},
		{"request with string id", `{"jsonrpc":"2.0","id":"7","method":"ping"}`,
			Message{Kind: KindRequest, ID: StringID("7"), Method: "ping"}},
		{"request with escaped string id", `{"jsonrpc":"2.0","id":"a\"\u00e9","method":"ping"}`,
			Message{Kind: KindRequest, ID: StringID("a\"é"), Method: "ping"}},
		{"request with negative id", `{"jsonrpc":"2.0","id":-3,"method":"ping"}`,
			Message{Kind: KindRequest, ID: NumberID(-3), Method: "ping"}},
		{"request with smallest id", `{"jsonrpc":"2.0","id":-9223372036854775808,"method":"ping"}`,
			Message{Kind: KindRequest, ID: NumberID(-1 << 63), Method: "ping"}},
		{"request with largest id", `{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping"}`,
			Message{Kind: KindRequest, ID: NumberID(1<<63 - 1), Method: "ping"}},
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
		{"non-ASCII method name", `{"jsonrpc":"2.0","method":"x/é𝄞"}`,
			Message{Kind: KindNotification, Method: "x/é𝄞"}},
		{"members in any order with whitespace", " {\n \"method\" : \"ping\" ,\t\"id\" : 1 , \"jsonrpc\" : \"2.0\" } ",
			Message{Kind: KindRequest, ID: NumberID(1), Method: "ping"}},
		{"success response", `{"jsonrpc":"2.0","id":"a","result":{"tools":[]}}`,
			Message{Kind: KindResponse, ID: StringID("a"), Result: RawMessage(`{"tools":[]}`)}},
		{"success response with empty result", `{"jsonrpc":"2.0","id":2,"result":{}}`,
			Message{Kind: KindResponse, ID: NumberID(2), Result: RawMessage(`{}`)}},
		{"success response with null result", `{"jsonrpc":"2.0","id":2,"result":null}`,
			Message{Kind: KindResponse, ID: NumberID(2), Result: RawMessage(`null`)}},
		{"success response with spaced result", `{"jsonrpc":"2.0","id":2,"result": { "a" : [ 1 , -2.5e+3 , true , false , null , "\u00e9\n" ] } }`,
			Message{Kind: KindResponse, ID: NumberID(2), Result: RawMessage(`{ "a" : [ 1 , -2.5e+3 , true , false , null , "\u00e9\n" ] }`)}},
		{"error response", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no such method"}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: -32601, Message: "no such method"}}},
		{"error response with escaped message", `{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"no \"such\"\nmethod"}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: -32601, Message: "no \"such\"\nmethod"}}},
		{"error response with data", `{"jsonrpc":"2.0","id":3,"error":{"code":-32002,"message":"nf","data":{"uri":"x"}}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: -32002, Message: "nf", Data: RawMessage(`{"uri":"x"}`)}}},
		{"error response with null data", `{"jsonrpc":"2.0","id":3,"error":{"code":1,"message":"m","data":null}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: 1, Message: "m"}}},
		{"error response with unknown members", `{"jsonrpc":"2.0","id":3,"error":{"x":[{}],"code":1,"Code":"2","message":"m"}}`,
			Message{Kind: KindResponse, ID: NumberID(3), Error: &WireError{Code: 1, Message: "m"}}},
		{"error response with null id", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`,
			Message{Kind: KindResponse, ID: ID{kind: idNull}, Error: &WireError{Code: -32700, Message: "parse error"}}},
		{"error response without id (2025-11-25)", `{"jsonrpc":"2.0","error":{"code":-32700,"message":"parse error"}}`,
			Message{Kind: KindResponse, ID: ID{kind: idNull}, Error: &WireError{Code: -32700, Message: "parse error"}}},
		{"error code with exponent-free negative zero", `{"jsonrpc":"2.0","id":1,"error":{"code":-0,"message":""}}`,
			Message{Kind: KindResponse, ID: NumberID(1), Error: &WireError{Code: 0, Message: ""}}},
		{"unknown members are ignored", `{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"x":[1]},"Method":"no","extra":1}`,
			Message{Kind: KindRequest, ID: NumberID(1), Method: "ping"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frame := []byte(c.frame)
			_, _, inPlace := decodeFrameInPlace(frame, MaxMessageBytes)
			assert.True(t, inPlace, "the fast path should decode this frame")
			msgs, errs := AppendDecodedFrame(nil, frame)
			require.Empty(t, errs)
			require.Len(t, msgs, 1)
			assertSameMessage(t, c.want, msgs[0])
			requireSameDecoding(t, frame)
			for _, raw := range rawMembers(msgs[0]) {
				assert.True(t, aliases(raw, frame), "%s should alias the frame", raw)
				assert.Equal(t, len(raw), cap(raw), "appending to a raw member must not write into the frame")
			}
		})
	}
}

func TestAppendDecodedFrameRejectsEachInvalidShapeLikeDecodeFrame(t *testing.T) {
	cases := []struct{ name, frame, reason string }{
		{"jsonrpc missing", `{"id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"jsonrpc 1.0", `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"jsonrpc as a number", `{"jsonrpc":2.0,"id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"jsonrpc escaped", `{"jsonrpc":"2\u002e0","id":1,"method":"ping"}`, `jsonrpc must be "2.0"`},
		{"member names in the wrong case", `{"JSONRPC":"2.0","ID":1,"METHOD":"ping"}`, `jsonrpc must be "2.0"`},
		{"method in the wrong case", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, "exactly one of result and error"},
		{"result and error", `{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`, "exactly one of result and error"},
		{"result with null error", `{"jsonrpc":"2.0","id":1,"result":{},"error":null}`, "exactly one of result and error"},
		{"neither result nor error", `{"jsonrpc":"2.0","id":1}`, "exactly one of result and error"},
		{"request carrying a result", `{"jsonrpc":"2.0","id":1,"method":"m","result":{}}`, "cannot carry result or error"},
		{"request carrying an error", `{"jsonrpc":"2.0","id":1,"method":"m","error":null}`, "cannot carry result or error"},
		{"error code as a string", `{"jsonrpc":"2.0","id":1,"error":{"code":"-32601","message":"m"}}`, "code must be an integer"},
		{"error code with a fraction", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601.5,"message":"m"}}`, "code must be an integer"},
		{"error code with an exponent", `{"jsonrpc":"2.0","id":1,"error":{"code":1e3,"message":"m"}}`, "code must be an integer"},
		{"error code missing", `{"jsonrpc":"2.0","id":1,"error":{"message":"m"}}`, "code must be an integer"},
		{"error code null", `{"jsonrpc":"2.0","id":1,"error":{"code":null,"message":"m"}}`, "code must be an integer"},
		{"error code beyond int64", `{"jsonrpc":"2.0","id":1,"error":{"code":99999999999999999999,"message":"m"}}`, "code must be an integer"},
		{"error code just beyond int64", `{"jsonrpc":"2.0","id":1,"error":{"code":9223372036854775808,"message":"m"}}`, "code must be an integer"},
		{"error message as a number", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":5}}`, "message must be a string"},
		{"error message null", `{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":null}}`, "message must be a string"},
		{"error message missing", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, "message must be a string"},
		{"error as a string", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, "error must be an object"},
		{"error as an array", `{"jsonrpc":"2.0","id":1,"error":[]}`, "error must be an object"},
		{"error null", `{"jsonrpc":"2.0","id":1,"error":null}`, "error must be an object"},
		{"id as an object", `{"jsonrpc":"2.0","id":{},"method":"ping"}`, "id must be an integer or a string"},
		{"id as a bool", `{"jsonrpc":"2.0","id":true,"result":{}}`, "id must be an integer or a string"},
		{"id with a fraction", `{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "id must be an integer or a string"},
		{"id with an exponent", `{"jsonrpc":"2.0","id":1e2,"method":"ping"}`, "id must be an integer or a string"},
		{"id beyond int64", `{"jsonrpc":"2.0","id":9223372036854775808,"method":"ping"}`, "id must be an integer or a string"},
		{"id below int64", `{"jsonrpc":"2.0","id":-9223372036854775809,"method":"ping"}`, "id must be an integer or a string"},
		{"null id on a request", `{"jsonrpc":"2.0","id":null,"method":"ping"}`, "request id must not be null"},
		{"null id on a success response", `{"jsonrpc":"2.0","id":null,"result":{}}`, "non-null id"},
		{"result without id", `{"jsonrpc":"2.0","result":{}}`, "neither method nor id"},
		{"nothing but jsonrpc", `{"jsonrpc":"2.0"}`, "neither method nor id"},
		{"method as a number", `{"jsonrpc":"2.0","id":1,"method":5}`, "method must be a string"},
		{"method null", `{"jsonrpc":"2.0","id":1,"method":null}`, "method must be a string"},
		{"empty method", `{"jsonrpc":"2.0","id":1,"method":""}`, "non-empty string"},
		{"params as a string", `{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`, "params must be an object or an array"},
		{"params as a number", `{"jsonrpc":"2.0","method":"m","params":1}`, "params must be an object or an array"},
		{"params as a bool", `{"jsonrpc":"2.0","method":"m","params":false}`, "params must be an object or an array"},
		{"not an object", `"ping"`, "malformed JSON"},
		{"an array where an object belongs", `[1]`, "malformed JSON"},
		{"truncated", `{"jsonrpc":"2.0","id":1,"method":"pi`, "malformed JSON"},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, "malformed JSON"},
		{"two objects", `{"jsonrpc":"2.0","id":1,"method":"ping"}{}`, "malformed JSON"},
		{"raw control character", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\x01\"}", "malformed JSON"},
		{"raw control character deep down", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":[\"\x1f\"]}}", "malformed JSON"},
		{"raw control character in a skipped member", "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{},\"x\":\"\x00\"}", "malformed JSON"},
		{"json null", `null`, `jsonrpc must be "2.0"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			frame := []byte(c.frame)
			msgs, errs := AppendDecodedFrame(nil, frame)
			assert.Empty(t, msgs)
			require.Len(t, errs, 1)
			var ime *InvalidMessageError
			require.True(t, errors.As(errs[0], &ime), "got %v", errs[0])
			assert.Contains(t, ime.Reason, c.reason)
			requireSameDecoding(t, frame)
		})
	}
}

func TestAppendDecodedFrameAppendsToDst(t *testing.T) {
	first := Message{Kind: KindNotification, Method: "first"}
	dst := append(make([]Message, 0, 4), first)
	msgs, errs := AppendDecodedFrame(dst, []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`))
	require.Empty(t, errs)
	require.Len(t, msgs, 2)
	assert.Equal(t, first, msgs[0])
	assert.Equal(t, NumberID(1), msgs[1].ID)
	assert.Same(t, &dst[:2][0], &msgs[0], "no new backing array when dst has room")

	// A batch goes the slow way and still appends after what is there.
	msgs, errs = AppendDecodedFrame(dst, []byte(`[{"jsonrpc":"2.0","id":1,"result":{}},7,{"jsonrpc":"2.0","method":"n"}]`))
	require.Len(t, errs, 1)
	require.Len(t, msgs, 3)
	assert.Equal(t, first, msgs[0])
	assert.Equal(t, "n", msgs[2].Method)

	// Nothing to append: dst comes back as it was.
	msgs, errs = AppendDecodedFrame(dst, []byte(` `))
	require.Len(t, errs, 1)
	assert.Equal(t, dst, msgs)
}

func TestAppendDecodedFrameKnownMethodsAreTheConstants(t *testing.T) {
	for _, method := range []string{MethodPing, MethodToolsCall, MethodRootsList, NotificationProgress,
		NotificationToolsListChanged, NotificationElicitationComplete, MethodSamplingCreateMessage} {
		frame := []byte(`{"jsonrpc":"2.0","method":"` + method + `"}`)
		msgs, errs := AppendDecodedFrame(nil, frame)
		require.Empty(t, errs)
		require.Len(t, msgs, 1)
		assert.Equal(t, unsafe.StringData(method), unsafe.StringData(msgs[0].Method), method)
	}
}

// TestAppendDecodedFrameAgreesWithDecodeFrame is the differential test: on
// every frame of the corpus, and on every truncation and one-byte change of
// the valid ones, both decoders return the same messages and errors.
func TestAppendDecodedFrameAgreesWithDecodeFrame(t *testing.T) {
	corpus := differentialCorpus(t)
	fast := 0
	for _, frame := range corpus {
		if requireSameDecoding(t, frame) {
			fast++
		}
	}
	assert.Greater(t, fast, len(corpus)/4, "the fast path decoded too few of the corpus frames")

	// One byte of each class the scanner treats differently.
	mutations := []byte{0x1f, '\f', '"', '\\', ',', '}', '.', 0xff}
	for _, frame := range corpus {
		if !Valid(frame) || len(frame) > 200 {
			continue
		}
		for n := range len(frame) {
			requireSameDecoding(t, frame[:n])
		}
		mutated := make([]byte, len(frame))
		for i := range frame {
			for _, c := range mutations {
				copy(mutated, frame)
				mutated[i] = c
				requireSameDecoding(t, mutated)
			}
		}
	}
}

// Every valid scalar value, each in its own string: sonic must leave all of
// them alone (no U+FFFD replacement), or aliasing the frame would differ.
func TestAppendDecodedFrameAgreesOnEveryRune(t *testing.T) {
	var text []byte
	for r := rune(0x20); r <= utf8.MaxRune; r++ {
		if r == '"' || r == '\\' || !utf8.ValidRune(r) {
			continue
		}
		text = utf8.AppendRune(text, r)
	}
	frame := []byte(`{"jsonrpc":"2.0","id":1,"result":"` + string(text) + `","other":"` + string(text) + `"}`)
	require.True(t, requireSameDecoding(t, frame), "the fast path should take valid UTF-8")
}

func TestAppendDecodedFrameRefusesDeepNestingToTheFastPath(t *testing.T) {
	arrays := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	// Objects and arrays alternating, so the bit stack is read back at every level.
	mixed := func(depth int) string {
		return strings.Repeat(`[{"a":`, depth/2) + "1" + strings.Repeat("}]", depth/2)
	}
	for _, depth := range []int{maxScanDepth - 2, maxScanDepth, maxScanDepth + 2, 5000, 200_000} {
		for _, result := range []string{arrays(depth), mixed(depth)} {
			frame := []byte(`{"jsonrpc":"2.0","id":1,"result":` + result + `}`)
			_, _, inPlace := decodeFrameInPlace(frame, MaxMessageBytes)
			assert.Equal(t, depth <= maxScanDepth, inPlace, "depth %d", depth)
			assert.NotPanics(t, func() { AppendDecodedFrame(nil, frame) })
			requireSameDecoding(t, frame)
		}
	}
}

func TestParseJSONIntMatchesParseInt(t *testing.T) {
	for _, s := range []string{"0", "-0", "7", "-7", "9223372036854775807", "9223372036854775808",
		"-9223372036854775808", "-9223372036854775809", "18446744073709551615", "18446744073709551616",
		"99999999999999999999", "1000000000000000000", "-1000000000000000000", "10000000000000000000",
		"", "-", "1.5", "1e3", "\"1\"", "true", "null", "1-", "--1"} {
		want, err := strconv.ParseInt(s, 10, 64)
		got, ok := parseJSONInt([]byte(s))
		assert.Equal(t, err == nil, ok, "%q", s)
		if err == nil {
			assert.Equal(t, want, got, "%q", s)
		}
	}
}

func TestSkipValueAcceptsOnlyValidJSON(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`{"a":[1,2.5e3,-0.1E-2,"x",true,false,null,{},[],{"":""}]}`, true},
		{`"\u00e9\uD834\uDD1E\ud800\"\\\/\b\f\n\r\t é 𝄞"`, true},
		{"[ 1 ,\n\t2\r]", true},
		{`0`, true},
		{`-0`, true},
		{`01`, false},
		{`1.`, false},
		{`.5`, false},
		{`-`, false},
		{`1e`, false},
		{`1e+`, false},
		{`+1`, false},
		{`NaN`, false},
		{`tru`, false},
		{`nul`, false},
		{`[1,]`, false},
		{`{"a":1,}`, false},
		{`{"a" 1}`, false},
		{`{a:1}`, false},
		{`[1 2]`, false},
		{`{"a":1]`, false},
		{`[1}`, false},
		{`"\x"`, false},
		{`"\u12"`, false},
		{`"\u12G4"`, false},
		{"\"a\x01\"", false},
		{"\"\xff\"", false},
		{"\"\xed\xa0\x80\"", false},
		{"[1,\f2]", false},
		{`'a'`, false},
		{``, false},
		{`[`, false},
		{`"`, false},
	}
	for _, c := range cases {
		end, ok := skipValue([]byte(c.in), 0)
		assert.Equal(t, c.want, ok && end == len(c.in), "%q", c.in)
		assert.Equal(t, c.want, strictlyValid([]byte(c.in)), "%q (the oracle)", c.in)
	}
}

func TestAppendDecodedFrameAllocatesNothingForAResponse(t *testing.T) {
	frames := map[string]string{
		"tools/call result":   `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`,
		"progress":            `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5}}`,
		"large result":        largeResponse(),
		"request, known name": `{"jsonrpc":"2.0","id":3,"method":"roots/list"}`,
	}
	for name, frame := range frames {
		t.Run(name, func(t *testing.T) {
			b := []byte(frame)
			dst := make([]Message, 0, 1)
			allocs := testing.AllocsPerRun(100, func() {
				msgs, errs := AppendDecodedFrame(dst[:0], b)
				if len(msgs) != 1 || errs != nil {
					panic("frame did not decode")
				}
			})
			assert.Zero(t, allocs)
		})
	}
}

// requireSameDecoding fails the test unless AppendDecodedFrame and
// DecodeFrame agree on frame (byte for byte in raw members, text for text
// in errors) and AppendDecodedFrame left frame alone. It reports whether
// the fast path decoded the frame.
func requireSameDecoding(t testing.TB, frame []byte) bool {
	t.Helper()
	before := bytes.Clone(frame)
	want, wantErrs := DecodeFrame(before)
	got, gotErrs := AppendDecodedFrame(nil, frame)
	if !bytes.Equal(before, frame) {
		t.Fatalf("AppendDecodedFrame modified the frame %q", before)
	}
	if len(want) != len(got) || len(wantErrs) != len(gotErrs) {
		t.Fatalf("frame %q: DecodeFrame gave %d messages and %v, AppendDecodedFrame %d and %v",
			frame, len(want), wantErrs, len(got), gotErrs)
	}
	for i := range want {
		if msg := messageDifference(want[i], got[i]); msg != "" {
			t.Fatalf("frame %q, message %d: %s\n  DecodeFrame        %+v\n  AppendDecodedFrame %+v", frame, i, msg, want[i], got[i])
		}
	}
	for i := range wantErrs {
		if wantErrs[i].Error() != gotErrs[i].Error() {
			t.Fatalf("frame %q, error %d: DecodeFrame %q, AppendDecodedFrame %q", frame, i, wantErrs[i], gotErrs[i])
		}
		var ime *InvalidMessageError
		if !errors.As(gotErrs[i], &ime) {
			t.Fatalf("frame %q: error %v is not an InvalidMessageError", frame, gotErrs[i])
		}
	}
	_, _, inPlace := decodeFrameInPlace(frame, MaxMessageBytes)
	if inPlace && !strictlyValid(frame) {
		t.Fatalf("the fast path took a frame that is not valid JSON: %q", frame)
	}
	return inPlace
}

// messageDifference names the first field in which two messages differ, ""
// when they are the same. Raw members must be byte-identical and present or
// absent alike.
func messageDifference(a, b Message) string {
	switch {
	case a.Kind != b.Kind:
		return "kind"
	case a.ID != b.ID:
		return "id"
	case a.Method != b.Method:
		return "method"
	case !sameRaw(a.Params, b.Params):
		return "params"
	case !sameRaw(a.Result, b.Result):
		return "result"
	case (a.Error == nil) != (b.Error == nil):
		return "error presence"
	case a.Error == nil:
		return ""
	case a.Error.Code != b.Error.Code:
		return "error code"
	case a.Error.Message != b.Error.Message:
		return "error message"
	case !sameRaw(a.Error.Data, b.Error.Data):
		return "error data"
	case !sameRaw(a.Error.Raw, b.Error.Raw):
		return "error raw"
	}
	return ""
}

// strictlyValid is the oracle for the scanner: RFC 8259 grammar (escapes
// included, which sonic's Valid does not check) and valid UTF-8.
func strictlyValid(b []byte) bool { return json.Valid(b) && utf8.Valid(b) }

func sameRaw(a, b RawMessage) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func rawMembers(m Message) []RawMessage {
	var out []RawMessage
	for _, r := range []RawMessage{m.Params, m.Result} {
		if r != nil {
			out = append(out, r)
		}
	}
	if m.Error != nil {
		out = append(out, m.Error.Raw)
		if m.Error.Data != nil {
			out = append(out, m.Error.Data)
		}
	}
	return out
}

// aliases reports whether raw lies inside frame's memory.
func aliases(raw, frame []byte) bool {
	if len(raw) == 0 || len(frame) == 0 {
		return false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(frame)))
	p := uintptr(unsafe.Pointer(unsafe.SliceData(raw)))
	return p >= start && p+uintptr(len(raw)) <= start+uintptr(len(frame))
}

// differentialCorpus is valid and invalid frames of every kind, plus every
// seed of both fuzz targets.
func differentialCorpus(t *testing.T) [][]byte {
	frames := []string{
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hello"}]}}`,
		`{"jsonrpc":"2.0","id":"7","result":{"content":[],"isError":true,"structuredContent":{"a":[1,2,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"progressToken":"p"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7,"progress":0.5,"total":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}`,
		`{"jsonrpc":"2.0","id":"abc","error":{"code":-32601,"message":"Method not found","data":{"method":"x"}}}`,
		`{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32700,"message":"e","data":[]},"x":1}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":1e999999,"b":-1e-400,"c":123456789012345678901234567890,"d":-0.0e+0,"e":1E5}}`,
		`{"jsonrpc":"2.0","id":-9223372036854775808,"error":{"code":-9223372036854775808,"message":"","data":1e400}}`,
		`{"jsonrpc":"2.0","id":"\ud83c\udf89\u0000\"\\","method":"\ud800x\/y","params":{"s":"\u2028"}}`,
		`{"jsonrpc":"2.0","id":"\ud800","method":"\udc00","params":["\uDBFF\uDFFF","\ud800\u0041"]}`,
		`{"jsonrpc":"2.0","id":"é","method":"é𝄞\uFFFD","params":{"é":"𝄞 ￾ ￿ 􏿿  "}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":null,"result":null}`,
		`{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":[]}`,
		`{"jsonrpc":"2.0","id":1,"id":"1","method":"a","method":"b","params":{}}`,
		`{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"result":{"a":1}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"code":2,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m","message":"n","data":1,"data":null}}`,
		`{"jsonrpc":"2.0","\u0069d":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"r\u0065sult":{}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"c\u006fde":1,"message":"m"}}`,
		`{"JSONRPC":"2.0","Id":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		"\r\n\t {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}} \r\n",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\x00",
		"\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\f\"result\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\v\"result\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\xc2\xa0\"result\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":\"\xff\xfe\",\"method\":\"m\xc3\",\"params\":{\"k\xed\xa0\x80\":\"\xf4\x90\x80\x80\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\xc0\xaf\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\xe0\x80\xaf\"}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"ok\"},\"x\":\"\xff\"}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\xff\":1}}",
		"{\"jsonrpc\":\"2.0\",\"method\":\"a\x00b\",\"params\":{}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"a\":\"\t\"}}",
		`{"jsonrpc":"2.0","id":1,"result":{"a":01}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":1.}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":.5}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":+1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":-}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":1e}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":NaN}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":Infinity}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":tru}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":nulll}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":1,}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a" 1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{a:1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{'a':1}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":"\x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":"\u12"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":"\u12G4"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"a":{1]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}` + `,}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}]`,
		`{"jsonrpc":"2.0","id":01,"result":{}}`,
		`{"jsonrpc":"2.0","id":-0,"result":{}}`,
		`{"jsonrpc":"2.0","id":0,"result":{}}`,
		`{"jsonrpc":"2.0","id":"","result":{}}`,
		`{"jsonrpc":"2.0","id":[1],"result":{}}`,
		`{"jsonrpc":"2.0","id":false,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"result":{},"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"m","params":true}`,
		`{"jsonrpc":"2.0","id":1,"method":""}`,
		`{"jsonrpc":"2.0","id":1,"method":"\u0000"}`,
		`{"jsonrpc":"2.0","id":null,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":null,"result":{}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0"}`,
		`{}`,
		`{ }`,
		`{`,
		`}`,
		`[]`,
		`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"notifications/tools/list_changed"},{"jsonrpc":"1.0","id":2,"result":{}},3]`,
		`[{"jsonrpc":"2.0","method":"a"},`,
		`null`,
		`"ping"`,
		`7`,
		``,
		" \r\n\t",
		"hello, server",
		"\x00\x01\x02\xff",
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		largeResponse(),
	}
	out := make([][]byte, 0, len(frames))
	for _, f := range frames {
		out = append(out, []byte(f))
	}
	for _, dir := range []string{"testdata/fuzz/FuzzDecodeFrame", "testdata/fuzz/FuzzAppendDecodedFrame"} {
		entries, err := os.ReadDir(dir)
		require.NoError(t, err)
		for _, e := range entries {
			b, err := os.ReadFile(filepath.Join(dir, e.Name()))
			require.NoError(t, err)
			out = append(out, fuzzSeed(t, b))
		}
	}
	return out
}

// fuzzSeed reads a `go test fuzz v1` file holding one []byte value.
func fuzzSeed(t *testing.T, file []byte) []byte {
	lines := strings.SplitN(string(file), "\n", 2)
	require.Len(t, lines, 2)
	require.Equal(t, "go test fuzz v1", lines[0])
	lit := strings.TrimSpace(lines[1])
	require.True(t, strings.HasPrefix(lit, "[]byte(") && strings.HasSuffix(lit, ")"), "%s", lit)
	s, err := strconv.Unquote(lit[len("[]byte(") : len(lit)-1])
	require.NoError(t, err)
	return []byte(s)
}

// largeResponse is a ~2 KB tools/call result with text, escapes, non-ASCII
// and structured content.
func largeResponse() string {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","id":4242,"result":{"content":[`)
	for i := range 8 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":"Line ` + strconv.Itoa(i) +
			`: the quick brown fox jumps over the lazy dog \u2014 \"quoted\" and tabbed\t text, café 𝄞 ✓ ` +
			strings.Repeat("lorem ipsum dolor sit amet ", 5) + `"}`)
	}
	b.WriteString(`],"structuredContent":{"rows":[{"id":1,"score":0.97,"tags":["a","b"]},{"id":2,"score":-1.5e-3,"tags":[]}],"ok":true,"next":null},"isError":false}}`)
	return b.String()
}
