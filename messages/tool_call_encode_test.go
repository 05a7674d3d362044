package messages

import (
	"encoding/json"
	"math"
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

// The arguments appendArgs writes are sonic's bytes: every kind of value
// it takes, one key per map so that the order cannot differ.
func TestAppendArgsMatchesSonic(t *testing.T) {
	var nilMap map[string]any
	var nilSlice []any
	values := []any{
		nil, "", "plain", "é🎉\u2028\ufeff<>&", "\x00\x01\b\f\n\r\t\x1f\x7f\"\\/",
		"bad \xff \xed\xa0\x80 \xe2\x82 end", true, false,
		0.0, math.Copysign(0, -1), 1.0, -1.5, 0.1, 1e-6, 9.99e-7, 1e-7, 1e20, 1e21, 123456789012345678.0, math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5e-300,
		0, -7, math.MaxInt64, int64(math.MinInt64),
		nilMap, map[string]any{}, nilSlice, []any{}, []any{"a", 1.5, nil, []any{map[string]any{"k\n": false}}},
	}
	for _, v := range values {
		for _, wrapped := range []any{v, map[string]any{"k": v}, []any{v, v}} {
			want, err := Marshal(wrapped)
			require.NoError(t, err, "%#v", wrapped)
			got, ok := appendArgs(nil, wrapped, 0)
			require.True(t, ok, "%#v", wrapped)
			assert.Equal(t, string(want), string(got), "%#v", wrapped)
		}
	}
	for _, v := range []any{math.NaN(), math.Inf(1), float32(1), uint(1), map[string]string{}, []string{}, struct{}{}} {
		_, ok := appendArgs(nil, map[string]any{"k": v}, 0)
		assert.False(t, ok, "%#v", v)
	}
	deep := any("leaf")
	for range maxArgsDepth + 1 {
		deep = []any{deep}
	}
	_, ok := appendArgs(nil, deep, 0)
	assert.False(t, ok)
}

// FuzzAppendArgs: for any string, float and int, appendArgs writes
// sonic's bytes (or refuses what sonic refuses).
func FuzzAppendArgs(f *testing.F) {
	f.Add("hello", 1.5, int64(3))
	f.Add("\xed\xa0\x80\x00", 1e-7, int64(-1))
	f.Fuzz(func(t *testing.T, s string, x float64, n int64) {
		for _, v := range []any{s, x, n, map[string]any{s: []any{x, n}}} {
			want, err := Marshal(v)
			got, ok := appendArgs(nil, v, 0)
			if err != nil {
				require.False(t, ok, "%#v: sonic refuses it", v)
				continue
			}
			require.True(t, ok, "%#v", v)
			require.Equal(t, string(want), string(got), "%#v", v)
		}
	})
}
