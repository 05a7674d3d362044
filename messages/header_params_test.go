package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestToolHeaderParamsFollowsSEP2243(t *testing.T) {
	params, err := ToolHeaderParams(RawMessage(`{"type":"object","properties":{
		"region":{"type":"string","x-mcp-header":"Region"},
		"priority":{"type":"integer","x-mcp-header":"Priority"},
		"verbose":{"type":"boolean","x-mcp-header":"Verbose"},
		"query":{"type":"string"}}}`))
	require.NoError(t, err)
	assert.ElementsMatch(t, []HeaderParam{{"region", "Region"}, {"priority", "Priority"}, {"verbose", "Verbose"}}, params)

	none, err := ToolHeaderParams(RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`))
	require.NoError(t, err)
	assert.Empty(t, none)

	// The invalid tools of the suite's http-invalid-tool-headers.
	for name, props := range map[string]string{
		"empty":          `{"v":{"type":"string","x-mcp-header":""}}`,
		"not a string":   `{"v":{"type":"string","x-mcp-header":7}}`,
		"object":         `{"v":{"type":"object","x-mcp-header":"Data"}}`,
		"array":          `{"v":{"type":"array","items":{"type":"string"},"x-mcp-header":"Items"}}`,
		"null":           `{"v":{"type":"null","x-mcp-header":"Nil"}}`,
		"number":         `{"v":{"type":"number","x-mcp-header":"Score"}}`,
		"duplicate":      `{"a":{"type":"string","x-mcp-header":"Region"},"b":{"type":"string","x-mcp-header":"Region"}}`,
		"duplicate case": `{"a":{"type":"string","x-mcp-header":"MyField"},"b":{"type":"string","x-mcp-header":"myfield"}}`,
		"space":          `{"v":{"type":"string","x-mcp-header":"My Region"}}`,
		"colon":          `{"v":{"type":"string","x-mcp-header":"Region:Primary"}}`,
		"non-ASCII":      `{"v":{"type":"string","x-mcp-header":"Région"}}`,
		"control":        `{"v":{"type":"string","x-mcp-header":"Region\t1"}}`,
	} {
		_, err := ToolHeaderParams(RawMessage(`{"type":"object","properties":` + props + `}`))
		var bad *InvalidHeaderAnnotationError
		assert.ErrorAs(t, err, &bad, name)
	}
}

func TestHeaderParamValuesAndTheirEncoding(t *testing.T) {
	for v, want := range map[any]string{"us-west1": "us-west1", 42: "42", int64(-3): "-3", true: "true", false: "false", 7.0: "7"} {
		got, ok := HeaderParamValue(v)
		assert.True(t, ok, "%v", v)
		assert.Equal(t, want, got)
	}
	for _, v := range []any{nil, map[string]any{}, []any{1}} {
		_, ok := HeaderParamValue(v)
		assert.False(t, ok, "%v", v)
	}
	assert.Equal(t, "us west 1", EncodeHeaderValue("us west 1"))
	assert.Equal(t, "", EncodeHeaderValue(""))
	for _, s := range []string{" padded ", "us-west1 ", "Hello, 世界", "line1\nline2", "line1\r\nline2", "\tindented", "a\tb", "=?base64?eA==?="} {
		enc := EncodeHeaderValue(s)
		assert.Regexp(t, `^=\?base64\?[A-Za-z0-9+/=]*\?=$`, enc, "%q", s)
	}
}
