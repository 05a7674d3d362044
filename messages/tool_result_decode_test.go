package messages

import (
	"bytes"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The answers the scanner must take: what handshake-era and 2026-07-28
// servers send for text tools.
var scannedToolResults = []string{
	`{"content":[{"type":"text","text":"hello"}]}`,
	`{"resultType":"complete","content":[{"type":"text","text":"hello"}],"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"canned","version":"1"}}}`,
	`{"content":[{"text":"a","type":"text"},{"type":"text","text":""}],"isError":true}`,
	`{"content":[{"type":"text","text":"caf\u00e9 \"quoted\"\n"}],"isError":false}`,
	`{"content":[{"type":"text","text":"ünïcödé ✓ 🎉"}],"structuredContent":{"n":[1,2,{"x":null}]}}`,
	` { "content" : [ ] , "x-extension" : [true, {"y": -1.5e3}] } `,
	`{"content":null}`,
	`{}`,
}

// The ones it must leave to sonic: other block kinds, anything it does not
// mirror exactly, and input sonic refuses.
var sonicToolResults = []string{
	`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}`,
	`{"content":[{"type":"text","text":"a","annotations":{"priority":1}}]}`,
	`{"content":[{"type":"text","text":"a","type":"text"}]}`,
	`{"content":[{"type":"text"}]}`,
	`{"content":[{"type":"text","text":1}]}`,
	`{"content":[{"t\u0079pe":"text","text":"a"}]}`,
	`{"content":[{"type":"text","text":"a"}],"content":[]}`,
	`{"content":{}}`,
	`{"structuredContent":null}`,
	`{"structuredContent":[1]}`,
	`{"_meta":null}`,
	`{"isError":null}`,
	"{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}",
	"{\"content\":[{\"type\":\"text\",\"text\":\"\x01\"}]}",
	`{"content":[{"type":"text","text":"a"}]`,
	`{"content":[{"type":"text","text":"a"}]} x`,
	`[]`,
	``,
}

func sonicCallToolResult(data []byte) (CallToolResult, error) {
	var r CallToolResult
	err := Unmarshal(data, &r)
	return r, err
}

func TestCallToolResultScannerMatchesSonic(t *testing.T) {
	for _, in := range scannedToolResults {
		var fast CallToolResult
		require.True(t, decodeCallToolResultInPlace([]byte(in), &fast), "scanner refused %s", in)
		want, err := sonicCallToolResult([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, fast, in)
	}
	for _, in := range sonicToolResults {
		var fast CallToolResult
		require.False(t, decodeCallToolResultInPlace([]byte(in), &fast), "scanner took %q", in)
		assert.True(t, fast.isZero(), "a refused decode must leave the result zero: %q", in)
		var owned CallToolResult
		ownedErr := UnmarshalOwned([]byte(in), &owned)
		want, err := sonicCallToolResult([]byte(in))
		assert.Equal(t, err != nil, ownedErr != nil, "%q: sonic %v, owned %v", in, err, ownedErr)
		if err == nil {
			assert.Equal(t, want, owned, in)
		}
	}
}

// The point of the scanner: a 2026-07-28 text answer costs one allocation
// (the content slice), its text and _meta aliasing the frame.
func TestCallToolResultScannerAliasesTheFrame(t *testing.T) {
	frame := []byte(scannedToolResults[1])
	var r CallToolResult
	allocs := testing.AllocsPerRun(100, func() {
		r = CallToolResult{}
		require.NoError(t, UnmarshalOwned(frame, &r))
	})
	assert.Equal(t, 1.0, allocs)
	text := unsafe.StringData(r.Content[0].Text)
	assert.True(t, uintptr(unsafe.Pointer(text)) >= uintptr(unsafe.Pointer(&frame[0])) &&
		uintptr(unsafe.Pointer(text)) < uintptr(unsafe.Pointer(&frame[0]))+uintptr(len(frame)), "text is a copy")
	assert.Equal(t, len(r.Meta), cap(r.Meta), "an append to Meta must never write into the frame")
	name, ok := r.Meta.Lookup("io.modelcontextprotocol/serverInfo")
	assert.True(t, ok)
	assert.JSONEq(t, `{"name":"canned","version":"1"}`, string(name))
}

// A result already holding something is merged into by sonic; the scanner
// leaves that to sonic.
func TestCallToolResultScannerLeavesAUsedResultToSonic(t *testing.T) {
	r := CallToolResult{IsError: true}
	require.NoError(t, UnmarshalOwned([]byte(`{"content":[]}`), &r))
	assert.True(t, r.IsError)
	assert.NotNil(t, r.Content)
}

// FuzzCallToolResultScanner: whatever the scanner takes, sonic takes too
// and decodes to the same value; the scanner never modifies its input.
func FuzzCallToolResultScanner(f *testing.F) {
	for _, in := range append(append([]string{}, scannedToolResults...), sonicToolResults...) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		var fast CallToolResult
		took := decodeCallToolResultInPlace(data, &fast)
		require.Equal(t, before, data)
		if !took {
			require.True(t, fast.isZero())
			return
		}
		want, err := sonicCallToolResult(data)
		require.NoError(t, err, "scanner took what sonic refuses: %q", data)
		require.Equal(t, want, fast, "%q", data)
	})
}
