package messages

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The initialize answers the scanner must take: what servers send.
var scannedInitializeResults = []string{
	`{"capabilities":{"logging":{},"tools":{"listChanged":true}},"protocolVersion":"2025-11-25","serverInfo":{"name":"peers-echo","version":"1.0.0"}}`,
	`{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":false},"prompts":{"listChanged":true},"logging":{},"completions":{}},"serverInfo":{"name":"demo","title":"Demo","version":"1","description":"d","websiteUrl":"https://x"},"instructions":"Line one.\nLine \"two\" \u00e9 \ud83c\udf89 \/ \t\b\f\r\\"}`,
	`{"protocolVersion":"2024-11-05","capabilities":{"experimental":{"x":{"n":1.5,"l":[true,null,"s"]}},"tasks":{"list":{},"cancel":{},"requests":{"tools":{"call":{}}}}},"serverInfo":{"name":"n","version":"v","icons":[{"src":"data:x","mimeType":"image/png","sizes":["48x48"],"theme":"dark"}]},"_meta":{"k":"v"}}`,
	` { "protocolVersion" : "2025-11-25" , "capabilities" : { "tools" : null , "logging" : { "level" : "x" } , "future" : [ 1 , { } ] } , "serverInfo" : { "name" : "ünïcödé ✓" , "version" : null } , "instructions" : null , "x-ext" : 1e3 } `,
	`{"capabilities":null,"serverInfo":null,"protocolVersion":"v","tools":{"listChanged":"ignored: not a capability member"}}`,
	`{"capabilities":{"resources":{"listChanged":null,"subscribe":false},"prompts":{}}}`,
	`{}`,
}

// The ones it leaves to sonic: duplicates, escaped names, lone surrogates,
// wrong types, invalid UTF-8 and control characters, malformed JSON.
var sonicInitializeResults = []string{
	`{"protocolVersion":"a","protocolVersion":"b"}`,
	`{"capabilities":{"tools":{"listChanged":true,"listChanged":false}}}`,
	`{"capabilities":{"tools":{},"tools":{"listChanged":true}}}`,
	`{"pr\u006ftocolVersion":"a"}`,
	`{"instructions":"\ud800"}`,
	`{"instructions":"\ud83c\u0041"}`,
	`{"protocolVersion":1}`,
	`{"capabilities":{"tools":{"listChanged":"yes"}}}`,
	`{"capabilities":{"logging":true}}`,
	`{"capabilities":[]}`,
	`{"serverInfo":{"icons":{}}}`,
	`{"capabilities":{"experimental":[]}}`,
	"{\"protocolVersion\":\"\xff\"}",
	"{\"instructions\":\"a\x01\"}",
	`{"protocolVersion":"a"`,
	`{"protocolVersion":"a"} x`,
	`null`,
	`[]`,
	``,
}

func sonicInitializeResult(data []byte) (InitializeResult, error) {
	var r InitializeResult
	err := Unmarshal(data, &r)
	return r, err
}

func TestInitializeResultScannerMatchesSonic(t *testing.T) {
	for _, in := range scannedInitializeResults {
		var fast InitializeResult
		require.True(t, scanInitializeResult([]byte(in), &fast), "scanner refused %s", in)
		want, err := sonicInitializeResult([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, fast, in)
	}
	for _, in := range sonicInitializeResults {
		var fast InitializeResult
		assert.False(t, scanInitializeResult([]byte(in), &fast), "scanner took %q", in)
		got, gotErr := DecodeInitializeResult([]byte(in))
		want, err := sonicInitializeResult([]byte(in))
		assert.Equal(t, err, gotErr, in)
		assert.Equal(t, want, got, in)
	}
}

// What a handshake keeps must not alias the answer's buffer, which the
// transport may reuse.
func TestDecodeInitializeResultCopiesItsStrings(t *testing.T) {
	in := []byte(scannedInitializeResults[0])
	r, err := DecodeInitializeResult(in)
	require.NoError(t, err)
	for i := range in {
		in[i] = 'x'
	}
	assert.Equal(t, "2025-11-25", r.ProtocolVersion)
	assert.Equal(t, Implementation{Name: "peers-echo", Version: "1.0.0"}, r.ServerInfo)
}

// FuzzInitializeResultScanner: whatever the scanner takes, sonic takes too
// and decodes to the same value; the scanner never modifies its input.
func FuzzInitializeResultScanner(f *testing.F) {
	for _, in := range append(append([]string{}, scannedInitializeResults...), sonicInitializeResults...) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		var fast InitializeResult
		took := scanInitializeResult(data, &fast)
		require.Equal(t, before, data)
		if !took {
			return
		}
		want, err := sonicInitializeResult(data)
		require.NoError(t, err, "scanner took what sonic refuses: %q", data)
		require.Equal(t, want, fast, "%q", data)
	})
}

// InitializeVersion reads what Unmarshal into a struct of protocolVersion
// alone reads, and fails where it fails (what sonic decoded before failing
// is of no use to anyone).
func TestInitializeVersionMatchesSonic(t *testing.T) {
	for _, in := range append(append([]string{`{"protocolVersion":"a\u00e9"}`, `{"protocolVersion":"x","capabilities":5}`}, scannedInitializeResults...), sonicInitializeResults...) {
		var want struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		err := Unmarshal([]byte(in), &want)
		got, ok := InitializeVersion([]byte(in))
		assert.Equal(t, err == nil, ok, in)
		if ok {
			assert.Equal(t, want.ProtocolVersion, got, in)
		}
	}
}
