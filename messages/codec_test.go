package messages

import (
	"testing"
	"unicode/utf8"

	"github.com/bytedance/sonic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSonicRunsItsNativePathOnThisGo(t *testing.T) {
	assert.Equal(t, sonic.UseSonicJSON, sonic.APIKind,
		"sonic fell back to encoding/json: the codec's UTF-8 and control character guarantees below were verified on the native path only")
}

func TestUnmarshalRejectsRawControlCharactersInStrings(t *testing.T) {
	cases := map[string]string{
		"top-level string":          "\"a\x01b\"",
		"nested in RawMessage":      "{\"params\":{\"a\":\"x\x1fy\"}}",
		"in an unknown member":      "{\"other\":\"\x00\"}",
		"raw newline in a string":   "{\"params\":\"a\nb\"}",
		"raw tab in an object name": "{\"a\tb\":1}",
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			var env wireEnvelope
			assert.Error(t, Unmarshal([]byte(in), &env))
			var v any
			assert.Error(t, Unmarshal([]byte(in), &v))
			assert.False(t, Valid([]byte(in)))
		})
	}
}

func TestUnmarshalReplacesInvalidUTF8WithReplacementCharacter(t *testing.T) {
	cases := []struct {
		name, in string
		want     string // the decoded string or raw value
		raw      bool
	}{
		{"lone continuation byte in a string", "\"a\xffb\"", "a\uFFFDb", false},
		{"truncated sequence in a string", "\"\xc3\"", "\uFFFD", false},
		{"inside a RawMessage value", "{\"a\":\"x\xffy\"}", "{\"a\":\"x\uFFFDy\"}", true},
		{"inside a RawMessage object name", "{\"a\xff\":1}", "{\"a\uFFFD\":1}", true},
		{"escaped lone surrogate in a string", `"\ud800"`, "\uFFFD", false},
		{"escaped lone surrogate stays escaped in a RawMessage", `["\ud800"]`, `["\ud800"]`, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.raw {
				var r RawMessage
				require.NoError(t, Unmarshal([]byte(c.in), &r))
				assert.Equal(t, c.want, string(r))
				assert.True(t, utf8.Valid(r))
				return
			}
			var s string
			require.NoError(t, Unmarshal([]byte(c.in), &s))
			assert.Equal(t, c.want, s)
		})
	}
}

func TestDecodeMessageNeverHandsOnInvalidUTF8(t *testing.T) {
	frame := []byte("{\"jsonrpc\":\"2.0\",\"id\":\"\xfe\",\"method\":\"m\xff\",\"params\":{\"k\xc0\":\"v\xed\xa0\x80\"}}")
	m, err := DecodeMessage(frame)
	require.NoError(t, err)
	assert.True(t, utf8.ValidString(m.Method))
	assert.True(t, utf8.ValidString(m.ID.str))
	assert.True(t, utf8.Valid(m.Params))
	assert.True(t, Valid(m.Params))
}

func TestDecodedValuesDoNotAliasTheInputBuffer(t *testing.T) {
	frame := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}`)
	m, err := DecodeMessage(frame)
	require.NoError(t, err)
	for i := range frame {
		frame[i] = 'Z'
	}
	assert.Equal(t, "tools/call", m.Method)
	assert.JSONEq(t, `{"name":"x"}`, string(m.Params))
}

func TestUnmarshalMatchesMemberNamesExactly(t *testing.T) {
	var p CallToolParams
	require.NoError(t, Unmarshal([]byte(`{"Name":"wrong","name":"right","NAME":"also wrong"}`), &p))
	assert.Equal(t, "right", p.Name)
	var q CallToolParams
	require.NoError(t, Unmarshal([]byte(`{"Name":"wrong"}`), &q))
	assert.Empty(t, q.Name)
}

func TestValidFollowsRFC8259(t *testing.T) {
	cases := []struct {
		in   string
		want bool
	}{
		{`{"a":[1,2.5e3,"x",true,null]}`, true},
		{"  {\"a\":\"\\n\\t\"}\n", true},
		{`"\u00e9 é"`, true},
		{"\"\xff\"", false},
		{"\"a\tb\"", false},
		{`{"a":1`, false},
		{`{"a":1} {}`, false},
		{``, false},
		{`01`, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Valid([]byte(c.in)), "%q", c.in)
	}
}

func TestMarshalReplacesInvalidUTF8AndEscapesControlCharacters(t *testing.T) {
	b, err := Marshal(map[string]any{"s": "a\xffb\x01", "r": RawMessage("\"\xfe\"")})
	require.NoError(t, err)
	assert.True(t, Valid(b), "%q", b)
	var back map[string]string
	require.NoError(t, Unmarshal(b, &back))
	assert.Equal(t, "a\uFFFDb\x01", back["s"])
	assert.Equal(t, "\uFFFD", back["r"])
}

func TestMarshalRefusesMalformedRawMessage(t *testing.T) {
	_, err := Marshal(CallToolParams{Name: "x", Arguments: RawMessage(`{"a":`)})
	assert.Error(t, err)
}

func TestMarshalSendsNilRequiredSlicesAsEmptyArrays(t *testing.T) {
	b, err := Marshal(ListRootsResult{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"roots":[]}`, string(b))
	b, err = Marshal(CompleteResult{})
	require.NoError(t, err)
	assert.JSONEq(t, `{"completion":{"values":[]}}`, string(b))
}

// Newline-delimited transports (stdio) rely on a marshalled value having
// no raw newline, even when a caller's RawMessage is pretty-printed.
func TestMarshalCompactsCallerRawMessages(t *testing.T) {
	b, err := Marshal(&CallToolParams{Name: "x", Arguments: RawMessage("{\n  \"a\": [1,\n 2]\r\n}"),
		Meta: map[string]any{"m": RawMessage("{ \"k\" :\t1 }")}})
	require.NoError(t, err)
	assert.Equal(t, `{"name":"x","arguments":{"a":[1,2]},"_meta":{"m":{"k":1}}}`, string(b))
	b, err = Marshal(TextContent("line1\nline2"))
	require.NoError(t, err)
	assert.NotContains(t, string(b), "\n")
}
