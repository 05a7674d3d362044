package loadgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
)

const agentFlow = `
flows:
  - name: agent
    think: 1ms..3ms
    steps:
      - name: discover
        list: tools
        extract:
          tool: "$.tools[?(@.name == 'echo')].name"
          names: {path: "$.tools[*].name", pick: all}
        check: {exists: [tool], equals: {tool: echo}}
      - name: say
        call: echo
        args: {text: "{{.Vars.tool}} #{{.N}}"}
        extract: {said: $.structuredContent.text}
        check: {is_error: false, contains: "echo #", matches: '^echo #\d+$', schema: true}
      - name: suggest
        complete: {prompt: greet, argument: name, value: A}
        extract: {who: "$.completion.values[0]"}
      - name: greet
        prompt: greet
        args: {name: "{{.Vars.who}}"}
        check: {contains: Alice}
      - name: find
        list: resources
        extract: {uri: "$.resources[?(@.mimeType == 'text/plain')].uri"}
      - name: read
        read: "{{.Vars.uri}}"
        check: {matches: .}
`

// A flow runs its steps in order once per iteration: every step counts
// once per iteration, values extracted from one answer reach the next
// request (the echo says the tool name the list gave; the prompt greets
// the name the completion gave), and every check passes.
func TestFlowRunsStepsInOrderWithExtractionAndChecks(t *testing.T) {
	w, err := ParseScenario([]byte(agentFlow))
	require.NoError(t, err)
	res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Sessions: 2, Concurrency: 2, Count: 20, Workload: w})
	require.NoError(t, err)
	require.Len(t, res.Flows, 1)
	f := res.Flows[0]
	assert.Equal(t, "agent", f.Name)
	assert.EqualValues(t, 20, f.Iterations)
	assert.EqualValues(t, 20, f.OK, "%+v", f.FirstErrors)
	require.Len(t, f.Steps, 6)
	for i, name := range []string{"discover", "say", "suggest", "greet", "find", "read"} {
		s := f.Steps[i]
		assert.Equal(t, name, s.Name)
		assert.Equal(t, "agent", s.Flow)
		assert.EqualValues(t, 20, s.Calls, name)
		assert.EqualValues(t, 20, s.OK, "%s: %v", name, s.FirstErrors)
	}
	assert.EqualValues(t, 120, res.Calls, "the steps are the run's calls")
	assert.Empty(t, res.Methods, "no request of the mix")
	// Each iteration paused at least 1ms five times (the histogram may
	// round its minimum down by a few µs).
	assert.GreaterOrEqual(t, f.Latency.Min, 4990*time.Microsecond)
}

// The data file's row is the iteration's: every step of one iteration
// sees the same row, beside the values extracted so far.
func TestFlowStepsShareTheIterationsRow(t *testing.T) {
	w, err := ParseScenario([]byte(`
flows:
  - name: rows
    steps:
      - name: first
        call: echo
        args: {text: "{{.Row.name}}"}
        extract: {said: $.structuredContent.text}
      - name: second
        call: echo
        args: {text: "{{.Row.name}} {{.Vars.said}}"}
        extract: {again: $.structuredContent.text}
        check: {matches: '^(Ada Ada|Grace Grace)$'}
`))
	require.NoError(t, err)
	w.Rows = []map[string]any{{"name": "Ada"}, {"name": "Grace"}}
	res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Sessions: 1, Concurrency: 3, Count: 30, Workload: w})
	require.NoError(t, err)
	require.Len(t, res.Flows, 1)
	assert.EqualValues(t, 30, res.Flows[0].OK, "%v", res.Flows[0].FirstErrors)
	assert.EqualValues(t, 30, res.Flows[0].Steps[1].OK)
}
