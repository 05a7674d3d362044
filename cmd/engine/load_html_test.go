package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The HTML report says what produced it and draws calls in flight apart
// from the rates, and the open model's schedule beside them.
func TestLoadHTMLNamesItsCommandAndChartsInFlightApart(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.html")
	r := engine(t, "", "load", "--model", "open", "-r", "100", "-n", "50", "-q", "-O", "html="+out)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	html := string(b)
	assert.Contains(t, html, `<div class="cmd">$ engine load`)
	assert.Contains(t, html, "--rate 100")
	assert.Contains(t, html, " · engine ")
	assert.Contains(t, html, "Calls in flight and connected sessions")
	assert.Contains(t, html, ">scheduled</text>")
	assert.NotContains(t, html, "Throughput: calls per second, and in-flight calls")
}
