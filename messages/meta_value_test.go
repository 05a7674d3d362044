package messages

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const resultWithServerInfo = `{"content":[{"type":"text","text":"hello"}],"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"peer","version":"1.8.0"},"n":2}}`

func TestResultMetaIsKeptAsReceivedAndDecodedOnRequest(t *testing.T) {
	var r CallToolResult
	require.NoError(t, UnmarshalOwned([]byte(resultWithServerInfo), &r))
	assert.JSONEq(t, `{"io.modelcontextprotocol/serverInfo":{"name":"peer","version":"1.8.0"},"n":2}`, string(r.Meta))

	m, err := r.Meta.Map()
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"name": "peer", "version": "1.8.0"}, m[MetaServerInfo])

	raw, ok := r.Meta.Lookup("n")
	assert.True(t, ok)
	assert.JSONEq(t, `2`, string(raw))
	_, ok = r.Meta.Lookup("absent")
	assert.False(t, ok)

	var info ResultMeta
	require.NoError(t, r.Meta.Decode(&info))
	assert.Equal(t, &Implementation{Name: "peer", Version: "1.8.0"}, info.ServerInfo)
}

func TestResultMetaAbsentOrNullIsZeroAndOmitted(t *testing.T) {
	for _, in := range []string{`{"content":[]}`, `{"content":[],"_meta":null}`} {
		var r CallToolResult
		require.NoError(t, Unmarshal([]byte(in), &r), in)
		assert.True(t, r.Meta.IsZero(), in)
		m, err := r.Meta.Map()
		assert.NoError(t, err)
		assert.Nil(t, m)
		out, err := Marshal(&r)
		require.NoError(t, err)
		assert.JSONEq(t, `{"content":[]}`, string(out), in)
	}
}

func TestResultMetaThatIsNotAnObjectIsRefused(t *testing.T) {
	for _, in := range []string{`{"content":[],"_meta":[1]}`, `{"content":[],"_meta":"x"}`, `{"content":[],"_meta":3}`} {
		var r CallToolResult
		assert.Error(t, Unmarshal([]byte(in), &r), in)
	}
}

func TestMetaOfEncodesIntoTheResult(t *testing.T) {
	meta, err := MetaOf(map[string]any{"k": "v"})
	require.NoError(t, err)
	out, err := Marshal(&CallToolResult{Content: []ContentBlock{}, Meta: meta})
	require.NoError(t, err)
	assert.JSONEq(t, `{"content":[],"_meta":{"k":"v"}}`, string(out))

	empty, err := MetaOf(nil)
	require.NoError(t, err)
	assert.True(t, empty.IsZero())
}

// The point of keeping _meta raw: a result whose _meta nobody reads costs
// one copy of its text, not a map per nested object.
func TestResultMetaCostsOneAllocationWhenNotRead(t *testing.T) {
	with := []byte(resultWithServerInfo)
	without := []byte(`{"content":[{"type":"text","text":"hello"}],"resultType":"complete"}`)
	count := func(b []byte) float64 {
		return testing.AllocsPerRun(200, func() {
			var r CallToolResult
			if err := UnmarshalOwned(b, &r); err != nil {
				t.Fatal(err)
			}
		})
	}
	assert.LessOrEqual(t, count(with), count(without)+1)
}
