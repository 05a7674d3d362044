package messages

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type callArgsStruct struct {
	Text  string   `json:"text"`
	N     int      `json:"n,omitempty"`
	Items []string `json:"items"`
}

type callArgsMarshaler struct{}

func (callArgsMarshaler) MarshalJSON() ([]byte, error) { return []byte(`{ "a" : [1, 2] }`), nil }

// MarshalCallToolParams gives Marshal's bytes for every kind of arguments
// and every name, task and _meta (one key at most, so that map order
// cannot differ between two encodings).
func TestMarshalCallToolParamsMatchesMarshal(t *testing.T) {
	var nilMap map[string]any
	var nilStruct *callArgsStruct
	args := []any{
		nil,
		map[string]any{"text": "hello"},
		map[string]any{"s": []any{"x", 2, 1.5, true, nil, map[string]any{"k": "v"}}},
		map[string]any{},
		nilMap,
		nilStruct,
		&callArgsStruct{Text: "t"},
		callArgsStruct{Text: "é\"\\\n\x01<>&\u2028 bad:\xff", Items: []string{}},
		RawMessage(`{"raw":true}`),
		json.RawMessage(` {"spaced": [1, 2]} `),
		callArgsMarshaler{},
		[]byte("bytes"),
		"a string",
		42,
		[]int(nil),
		map[string]string{"bad": "\xff\xfe"},
	}
	names := []string{"echo", "", "tool.name-1_x", "naïve", "q\"uote", "bad\xff", "<b>&"}
	for _, a := range args {
		for _, name := range names {
			for _, extra := range []func(*CallToolParams){
				func(*CallToolParams) {},
				func(p *CallToolParams) { p.Task = &TaskMetadata{} },
				func(p *CallToolParams) { p.Meta = map[string]any{"progressToken": 1} },
			} {
				p := &CallToolParams{Name: name, Arguments: a}
				extra(p)
				want, wantErr := Marshal(p)
				got, err := MarshalCallToolParams(p)
				require.Equal(t, wantErr != nil, err != nil, "%#v", p)
				assert.Equal(t, string(want), string(got), "%#v", p)
			}
		}
	}
}

// A tools/call costs no more allocations than Marshal's.
func TestMarshalCallToolParamsAllocatesNoMoreThanMarshal(t *testing.T) {
	p := &CallToolParams{Name: "echo", Arguments: map[string]any{"text": "hello"}}
	_, err := MarshalCallToolParams(p)
	require.NoError(t, err)
	marshal := testing.AllocsPerRun(100, func() { _, _ = Marshal(p) })
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { _, _ = MarshalCallToolParams(p) }), marshal)
}

// FuzzMarshalCallToolParams: for any name and string argument,
// MarshalCallToolParams gives Marshal's bytes.
func FuzzMarshalCallToolParams(f *testing.F) {
	f.Add("echo", "hello")
	f.Add("na\xffme", "\x00\u2028<")
	f.Fuzz(func(t *testing.T, name, text string) {
		p := &CallToolParams{Name: name, Arguments: map[string]any{"text": text}}
		want, err := Marshal(p)
		require.NoError(t, err)
		got, err := MarshalCallToolParams(p)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	})
}
