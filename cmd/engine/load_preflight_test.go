package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// A run that tools/list already shows to be wrong does not start: a tool
// the server lacks (with the nearest name offered) or arguments its
// inputSchema refuses are a usage error, not a run of failures.
func TestLoadRefusesAWorkloadTheServerRulesOut(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--call", "ech"}, `the server has no tool "ech"; did you mean "echo"?`},
		{[]string{"--call", "nosuch_tool_at_all"}, `the server has no tool "nosuch_tool_at_all" (it has `},
		{[]string{"--args", "{}"}, "do not fit the tool's inputSchema: at '': missing property 'text'"},
		{[]string{"--call", "add", "--args", `{"a":"x","b":2}`}, "at '/a': got string, want number"},
	} {
		r := engine(t, "", append([]string{"load", "-n", "5", "-q"}, c.args...)...)
		assert.Equal(t, 2, r.code, "%v: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, c.args)
		assert.Contains(t, r.stderr, "--no-preflight")
		assert.Empty(t, r.stdout, "no report: the run did not start")
	}
	// Asked to, it runs anyway and counts the server's refusals.
	r := engine(t, "", "load", "-n", "5", "-q", "--no-preflight", "--args", "{}")
	assert.Equal(t, 1, r.code, r.stderr) // every call failed: exit 1
	assert.Contains(t, r.stdout, "Failed:      5 (100.00%)")
}
