package messages

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWithMetaSplicesOrMerges(t *testing.T) {
	tp := MetaField{Key: "traceparent", Value: RawMessage(`"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"`)}
	tok := MetaField{Key: "progressToken", Value: RawMessage(`7`)}
	cases := []struct {
		name, in, want string
	}{
		{"nil params", ``, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","progressToken":7}}`},
		{"null", `null`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","progressToken":7}}`},
		{"empty object", ` { } `, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","progressToken":7}}`},
		{"object", `{"name":"echo"}`, `{"_meta":{"traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","progressToken":7},"name":"echo"}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.JSONEq(t, c.want, string(WithMeta(RawMessage(c.in), tp, tok)))
		})
	}

	merged := WithMeta(RawMessage(`{"name":"x","_meta":{"progressToken":1,"keep":true}}`), tp, tok)
	var got struct {
		Name string                `json:"name"`
		Meta map[string]RawMessage `json:"_meta"`
	}
	require.NoError(t, Unmarshal(merged, &got))
	assert.Equal(t, "x", got.Name)
	assert.JSONEq(t, `7`, string(got.Meta["progressToken"]), "fields replace members of the same name")
	assert.JSONEq(t, `true`, string(got.Meta["keep"]))
	assert.Contains(t, string(got.Meta["traceparent"]), "0af7651916cd43dd8448eb211c80319c")

	assert.Equal(t, `[1,2]`, string(WithMeta(RawMessage(`[1,2]`), tp)), "not an object: unchanged")
	assert.Equal(t, `{"a":1}`, string(WithMeta(RawMessage(`{"a":1}`))), "no fields: unchanged")
}

// A value that merely ends in _meta" is no _meta member: the fields still
// land in a _meta of their own, and the value is kept.
func TestAValueEndingInMetaIsNotTakenForTheMember(t *testing.T) {
	params := RawMessage(`{"name":"x","arguments":{"k":"my_meta"}}`)
	f := MetaField{Key: "a", Value: RawMessage(`1`)}
	assert.JSONEq(t, `{"_meta":{"a":1},"name":"x","arguments":{"k":"my_meta"}}`, string(WithMeta(params, f)))

	meta, err := NewRequestMeta(Version20260728, Implementation{Name: "c", Version: "1"}, ClientCapabilities{})
	require.NoError(t, err)
	frame := AppendRequestWithMeta(nil, NumberID(1), MethodToolsCall, params, meta)
	var m struct {
		Params struct {
			Meta      map[string]any `json:"_meta"`
			Arguments map[string]any `json:"arguments"`
		} `json:"params"`
	}
	require.NoError(t, Unmarshal(frame, &m), "%s", frame)
	assert.Equal(t, Version20260728, m.Params.Meta[MetaProtocolVersion])
	assert.Equal(t, "my_meta", m.Params.Arguments["k"])
}

func TestRequestMetaWithLogLevelAddsOneMemberToACopy(t *testing.T) {
	base, err := NewRequestMeta(Version20260728, Implementation{Name: "c", Version: "1"}, ClientCapabilities{})
	require.NoError(t, err)
	before := string(base.Members())
	warn := base.WithLogLevel(LoggingLevelWarning)
	assert.Equal(t, before, string(base.Members()), "the shared meta is left alone")
	assert.Same(t, base, base.WithLogLevel(""))
	debug := warn.WithLogLevel(LoggingLevelDebug)
	assert.Equal(t, 1, strings.Count(string(debug.Members()), MetaLogLevel), "a level replaces the one before")
	frame := AppendRequestWithMeta(nil, NumberID(1), MethodToolsList, nil, debug)
	var req struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	require.NoError(t, Unmarshal(frame, &req))
	assert.Equal(t, "debug", req.Params.Meta[MetaLogLevel])
	assert.Equal(t, Version20260728, req.Params.Meta[MetaProtocolVersion])
	assert.True(t, LoggingLevelEmergency.Valid())
	assert.False(t, LoggingLevel("loud").Valid())
}
