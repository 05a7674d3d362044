package messages

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server/discover answers the scanner must take.
var scannedDiscoverResults = []string{
	`{"resultType":"complete","supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true},"resources":{"subscribe":true,"listChanged":true},"prompts":{"listChanged":true},"completions":{}},"instructions":"Use it.\n","ttlMs":60000,"cacheScope":"public","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"demo","version":"1"}}}`,
	`{"supportedVersions":[],"capabilities":{},"ttlMs":0,"_meta":{"other":1}}`,
	`{"supportedVersions":null,"ttlMs":-5,"_meta":{"io.modelcontextprotocol/serverInfo":null}}`,
	`{"supportedVersions":[ "a" , "b\u00e9" ],"ttlMs":null,"_meta":null,"x":[1,{"y":2}]}`,
	`{}`,
}

// The ones it leaves to sonic.
var sonicDiscoverResults = []string{
	`{"supportedVersions":["a",1]}`,
	`{"supportedVersions":{}}`,
	`{"ttlMs":1.5}`,
	`{"ttlMs":1e3}`,
	`{"ttlMs":99999999999999999999}`,
	`{"ttlMs":"5"}`,
	`{"ttlMs":1,"ttlMs":2}`,
	`{"_meta":{"io.modelcontextprotocol/serverInfo":{},"io.modelcontextprotocol/serverInfo":{}}}`,
	`{"_meta":[]}`,
	`{"supportedVersions":["a"]`,
	`null`,
	``,
}

func sonicDiscoverResult(data []byte) (DiscoverResult, error) {
	var r DiscoverResult
	err := Unmarshal(data, &r)
	return r, err
}

func TestDiscoverResultScannerMatchesSonic(t *testing.T) {
	for _, in := range scannedDiscoverResults {
		var fast DiscoverResult
		require.True(t, scanDiscoverResult([]byte(in), &fast), "scanner refused %s", in)
		want, err := sonicDiscoverResult([]byte(in))
		require.NoError(t, err, in)
		assert.Equal(t, want, fast, in)
	}
	for _, in := range sonicDiscoverResults {
		var fast DiscoverResult
		assert.False(t, scanDiscoverResult([]byte(in), &fast), "scanner took %q", in)
		got, gotErr := DecodeDiscoverResult([]byte(in))
		want, err := sonicDiscoverResult([]byte(in))
		assert.Equal(t, err, gotErr, in)
		assert.Equal(t, want, got, in)
	}
}

// FuzzDiscoverResultScanner: whatever the scanner takes, sonic takes too
// and decodes to the same value; the scanner never modifies its input.
func FuzzDiscoverResultScanner(f *testing.F) {
	for _, in := range append(append(append([]string{}, scannedDiscoverResults...), sonicDiscoverResults...), scannedInitializeResults...) {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		before := bytes.Clone(data)
		var fast DiscoverResult
		took := scanDiscoverResult(data, &fast)
		require.Equal(t, before, data)
		if !took {
			return
		}
		want, err := sonicDiscoverResult(data)
		require.NoError(t, err, "scanner took what sonic refuses: %q", data)
		require.Equal(t, want, fast, "%q", data)
	})
}
