package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A flow file run by three engine worker processes: the coordinator's
// report has the flow's iterations and steps summed over the members, as
// the one-host report has them, in JSON, text and HTML, and a threshold
// on the flow is judged on the merged figures.
func TestLoadJoinMergesFlows(t *testing.T) {
	srv := startServe(t, "http")
	_, join := startLoadWorkers(t, 3)
	scenario, err := filepath.Abs("../../docs/flows/demo.yaml") // read on each member
	require.NoError(t, err)
	dir := t.TempDir()
	r := engine(t, "", "load", "--join", join, "--url", srv.url, "--scenario", scenario, "-n", "30", "-s", "3", "-c", "2",
		"--interval", "200ms", "--threshold", "flow:agent error_rate==0", "--threshold", "step:say p99<30s",
		"-O", "json", "-O", "text="+filepath.Join(dir, "r.txt"), "-O", "html="+filepath.Join(dir, "r.html"))
	require.Equal(t, 0, r.code, "stdout: %s\nstderr: %s", r.stdout, r.stderr)
	fr := parseFlowReport(t, r.stdout)

	require.Len(t, fr.Flows, 1)
	f := fr.Flows[0]
	assert.Equal(t, "agent", f.Name)
	assert.EqualValues(t, 30, f.Iterations, "-n counts iterations, over every member")
	assert.EqualValues(t, 30, f.OK, "%v", f.First)
	// An iteration holds five pauses of at least 5ms each, on every
	// member: the merged minimum says so too.
	assert.GreaterOrEqual(t, f.Latency["min"], int64(24_900))
	assert.GreaterOrEqual(t, f.Latency["p99"], f.Latency["p50"])
	steps := []string{"discover", "say", "suggest", "greet", "find", "read"}
	require.Len(t, f.Steps, len(steps))
	for i, s := range f.Steps {
		assert.Equal(t, steps[i], s.Name)
		assert.EqualValues(t, 30, s.Calls, s.Name)
		assert.EqualValues(t, 30, s.OK, "%s: %v", s.Name, s.First)
		assert.Positive(t, s.Latency["p50"], s.Name)
	}
	assert.EqualValues(t, 30*len(steps), fr.Calls, "the steps are the run's calls")
	require.Len(t, fr.Thresholds, 2)
	for _, th := range fr.Thresholds {
		assert.True(t, th.Pass, th.Expr)
	}
	assert.NotContains(t, r.stdout, "not merged")

	text, err := os.ReadFile(filepath.Join(dir, "r.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(text), "Flow agent:  30 iterations, 0 failed")
	assert.Regexp(t, `(?m)^ +say +30 +0 +0 `, string(text))
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Flow agent</h2>")
}
