package loadgen

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

func TestParseThink(t *testing.T) {
	for _, c := range []struct {
		in   string
		want Think
	}{
		{"200ms", Think{Min: 200 * time.Millisecond}},
		{"100ms..1s", Think{Min: 100 * time.Millisecond, Max: time.Second}},
		{" 0s .. 5ms ", Think{Max: 5 * time.Millisecond}},
	} {
		got, err := ParseThink(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, got, c.in)
	}
	for _, bad := range []string{"", "soon", "1s..", "-1s", "2s..1s"} {
		_, err := ParseThink(bad)
		assert.Error(t, err, bad)
	}
	th := Think{Min: time.Millisecond, Max: 3 * time.Millisecond}
	for range 1000 {
		d := th.draw()
		require.GreaterOrEqual(t, d, th.Min)
		require.LessOrEqual(t, d, th.Max)
	}
}

func TestExtractionPicks(t *testing.T) {
	var doc any
	require.NoError(t, messages.Unmarshal([]byte(`{"tools":[{"name":"a","n":1},{"name":"b","n":2},{"name":"c","n":3}]}`), &doc))
	take := func(path, pick string) (any, bool) {
		x, err := compileExtraction(Extraction{Var: "v", Path: path, Pick: pick})
		require.NoError(t, err)
		return x.take(doc)
	}
	v, ok := take("$.tools[*].name", "")
	assert.True(t, ok)
	assert.Equal(t, "a", v)
	v, _ = take("$.tools[*].name", "last")
	assert.Equal(t, "c", v)
	v, _ = take("$.tools[*].name", "all")
	assert.Equal(t, []any{"a", "b", "c"}, v)
	v, _ = take("$.tools[?(@.n > 1)].name", "random")
	assert.Contains(t, []any{"b", "c"}, v)
	_, ok = take("$.prompts[0]", "")
	assert.False(t, ok, "no match is no value")

	for _, e := range []Extraction{{Var: "1x", Path: "$.a"}, {Var: "x", Path: ""}, {Var: "x", Path: "$.["}, {Var: "x", Path: "$.a", Pick: "any"}} {
		_, err := compileExtraction(e)
		assert.Error(t, err, "%+v", e)
	}
}

// judge classifies an answer: a tool error is the class tool unless the
// step expects it; a wrong isError, text or value is the class check;
// an extraction that matches nothing too.
func TestStepJudgeClassifiesAnswers(t *testing.T) {
	yes, no := true, false
	const echoOK = `{"content":[{"type":"text","text":"Echo: hi 42"}],"structuredContent":{"n":3}}`
	const toolErr = `{"content":[{"type":"text","text":"boom"}],"isError":true}`
	for _, c := range []struct {
		name    string
		step    Step
		raw     string
		want    Class
		wantErr string
	}{
		{"passes", Step{Request: Request{Tool: "t"}, Extract: []Extraction{{Var: "n", Path: "$.structuredContent.n"}},
			Check: Check{IsError: &no, Contains: []string{"hi"}, Matches: []string{`\d+$`}, Exists: []string{"n"}, Equals: map[string]any{"n": 3.0}}}, echoOK, OK, ""},
		{"is an integer 3 equal to 3.0", Step{Request: Request{Tool: "t"}, Extract: []Extraction{{Var: "n", Path: "$.structuredContent.n"}},
			Check: Check{Equals: map[string]any{"n": 3}}}, echoOK, OK, ""},
		{"tool error", Step{Request: Request{Tool: "t"}}, toolErr, ToolError, "boom"},
		{"tool error expected", Step{Request: Request{Tool: "t"}, Check: Check{IsError: &yes, Contains: []string{"boom"}}}, toolErr, OK, ""},
		{"tool error unexpected", Step{Request: Request{Tool: "t"}, Check: Check{IsError: &no}}, toolErr, CheckFailed, "check is_error false"},
		{"success unexpected", Step{Request: Request{Tool: "t"}, Check: Check{IsError: &yes}}, echoOK, CheckFailed, "check is_error true"},
		{"text missing", Step{Request: Request{Tool: "t"}, Check: Check{Contains: []string{"bye"}}}, echoOK, CheckFailed, `check contains "bye"`},
		{"no match", Step{Request: Request{Tool: "t"}, Check: Check{Matches: []string{`^bye`}}}, echoOK, CheckFailed, `check matches "^bye"`},
		{"extraction matches nothing", Step{Request: Request{Tool: "t"}, Extract: []Extraction{{Var: "x", Path: "$.nope"}}}, echoOK, CheckFailed, "extract x: $.nope matched nothing"},
		{"value differs", Step{Request: Request{Tool: "t"}, Extract: []Extraction{{Var: "n", Path: "$.structuredContent.n"}},
			Check: Check{Equals: map[string]any{"n": 4}}}, echoOK, CheckFailed, "check equals n: got 3, want 4"},
		{"resource text", Step{Request: Request{URI: "u"}, Check: Check{Contains: []string{"Item 7"}}},
			`{"contents":[{"uri":"u","text":"Item 7"}]}`, OK, ""},
		{"prompt text", Step{Request: Request{Prompt: "p"}, Check: Check{Matches: []string{"Hello, Ada"}}},
			`{"messages":[{"role":"user","content":{"type":"text","text":"Hello, Ada!"}}]}`, OK, ""},
		{"other methods: the JSON", Step{Request: Request{Method: "tools/list"}, Check: Check{Contains: []string{`"name":"echo"`}}},
			`{"tools":[{"name":"echo"}]}`, OK, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			st, err := compileStep(c.step, nil)
			require.NoError(t, err)
			vars := map[string]any{}
			class, err := st.judge(messages.RawMessage(c.raw), vars)
			assert.Equal(t, c.want, class, "%v", err)
			if c.wantErr == "" {
				assert.NoError(t, err)
			} else {
				assert.ErrorContains(t, err, c.wantErr)
			}
		})
	}
}

func TestStepTemplatesNameTheirVariables(t *testing.T) {
	q, err := compileRequest(Request{Tool: "t", Args: map[string]any{
		"a": "{{.Vars.x}}", "b": []any{"{{if .Vars.y}}{{json .Vars.z}}{{end}}"}, "c": "{{.Row.name}}",
	}})
	require.NoError(t, err)
	names, uses := q.varRefs()
	assert.True(t, uses)
	assert.ElementsMatch(t, []string{"x", "y", "z"}, names)

	q, err = compileRequest(Request{URI: `{{index .Vars "u"}}`})
	require.NoError(t, err)
	names, uses = q.varRefs()
	assert.True(t, uses, "index .Vars is a use the names cannot show")
	assert.Empty(t, names)

	q, err = compileRequest(Request{Tool: "t", Args: `{"n": {{.N}}}`})
	require.NoError(t, err)
	_, uses = q.varRefs()
	assert.False(t, uses)
}

func TestScenarioFlows(t *testing.T) {
	w, err := ParseScenario([]byte(`
requests:
  - ping
flows:
  - name: f
    weight: 3
    think: 10ms..20ms
    abort_on_fail: true
    steps:
      - name: l
        list: tools
        extract:
          a: $.tools[0].name
          b: {path: "$.tools[*].name", pick: all}
      - call: echo
        args: {text: "{{.Vars.a}}"}
        think: 1s
        check: {contains: x, matches: [a, b], is_error: false, schema: true, exists: a, equals: {a: echo}}
      - complete: {resource: "demo://item/{id}", argument: id, value: "1"}
`))
	require.NoError(t, err)
	require.Len(t, w.Requests, 1)
	require.Len(t, w.Flows, 1)
	f := w.Flows[0]
	assert.Equal(t, "f", f.Name)
	assert.InDelta(t, 3, f.Weight, 0)
	assert.True(t, f.AbortOnFail)
	assert.Equal(t, Think{Min: 10 * time.Millisecond, Max: 20 * time.Millisecond}, f.Think)
	require.Len(t, f.Steps, 3)
	assert.Equal(t, []Extraction{{Var: "a", Path: "$.tools[0].name"}, {Var: "b", Path: "$.tools[*].name", Pick: "all"}}, f.Steps[0].Extract)
	c := f.Steps[1].Check
	assert.Equal(t, []string{"x"}, c.Contains)
	assert.Equal(t, []string{"a", "b"}, c.Matches)
	assert.Equal(t, []string{"a"}, c.Exists)
	assert.True(t, c.Schema)
	require.NotNil(t, c.IsError)
	assert.False(t, *c.IsError)
	assert.Equal(t, &Think{Min: time.Second}, f.Steps[1].Think)
	assert.Equal(t, messages.MethodCompletionComplete, f.Steps[2].Method)
	assert.Equal(t, map[string]any{"ref": map[string]any{"type": "ref/resource", "uri": "demo://item/{id}"},
		"argument": map[string]any{"name": "id", "value": "1"}}, f.Steps[2].Args)
	require.NoError(t, w.Validate())

	c2, err := compileWorkload(w)
	require.NoError(t, err)
	assert.Equal(t, 1, c2.mix)
	assert.Len(t, c2.reqs, 4, "the ping, then the flow's three steps")
	assert.Equal(t, "tools/call echo", c2.reqs[2].Name)
	assert.Equal(t, Think{Min: time.Second}, c2.flows[0].steps[1].think, "the step's pause replaces the flow's")
	assert.Equal(t, f.Think, c2.flows[0].steps[0].think)

	for _, bad := range []string{
		"flows:\n  - name: f\n",
		"flows:\n  - name: f\n    steps:\n      - call: echo\n        weight: 2\n",
		"flows:\n  - name: f\n    steps:\n      - call: echo\n        gen_args: true\n",
		"flows:\n  - name: f\n    steps: [ping]\n  - name: f\n    steps: [ping]\n",
		"flows:\n  - steps:\n      - complete: {prompt: greet}\n",
	} {
		w, err := ParseScenario([]byte(bad))
		if err == nil {
			err = w.Validate()
		}
		assert.Error(t, err, bad)
	}
}

// In the open model one arrival is one iteration of the flow: the
// schedule counts iterations (each sent once), and each step is sent
// once per iteration.
func TestOpenModelArrivalIsOneIteration(t *testing.T) {
	w, err := ParseScenario([]byte("flows:\n  - name: f\n    steps: [ping, {list: tools}, ping]\n"))
	require.NoError(t, err)
	res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Rate: 200, Count: 40, Concurrency: 4, Workload: w})
	require.NoError(t, err)
	require.NotNil(t, res.Schedule)
	assert.EqualValues(t, 40, res.Schedule.Sent)
	require.Len(t, res.Flows, 1)
	assert.EqualValues(t, 40, res.Flows[0].Iterations)
	assert.EqualValues(t, 120, res.Calls)
	for _, s := range res.Flows[0].Steps {
		assert.EqualValues(t, 40, s.Calls, s.Name)
	}
}

func TestScopedThresholds(t *testing.T) {
	r := testResult()
	step := func(flow, name string, calls, failed int64, p99 time.Duration) MethodResult {
		return MethodResult{Name: name, Flow: flow, Calls: calls, OK: calls - failed, Failed: failed,
			ErrorRate: ratio(failed, calls), Errors: ErrorCounts{Check: failed}, Latency: Latency{Count: calls, P99: p99, Max: p99}}
	}
	r.Flows = []FlowResult{
		{Name: "a", Iterations: 10, OK: 9, Failed: 1, ErrorRate: 0.1, Latency: Latency{Count: 10, P95: 2 * time.Second},
			Steps: []MethodResult{step("a", "search", 10, 1, 150*time.Millisecond), step("a", "read", 9, 0, time.Second)}},
		{Name: "b", Iterations: 5, OK: 5, Steps: []MethodResult{step("b", "search", 5, 0, 300*time.Millisecond)}},
	}
	for _, c := range []struct {
		expr string
		pass bool
		note string
	}{
		{"step:read p99<2s", true, ""},
		{"step:read p99<500ms", false, ""},
		{"step:a/search p99<200ms", true, ""},
		{"step:b/search p99<200ms", false, ""},
		{"step:a/search check_errors==1", true, ""},
		{"flow:a p95<=2s", true, ""},
		{"flow:a error_rate<5%", false, ""},
		{"flow:b calls==5", true, ""},
		{`step:"a/read" calls>=9`, true, ""},
		{"step:search p99<1s", false, "several flows have a step"},
		{"step:nope p99<1s", false, `no step "nope"`},
		{"flow:nope p99<1s", false, `no flow "nope"`},
		{"request:nope p99<1s", false, `no request "nope"`},
	} {
		th, err := ParseThreshold(c.expr)
		require.NoError(t, err, c.expr)
		tr := th.Check(r)
		assert.Equal(t, c.pass, tr.Pass, "%s: %+v", c.expr, tr)
		assert.Contains(t, tr.Note, c.note, c.expr)
		assert.Equal(t, c.expr, tr.Expr)
	}
	for _, bad := range []string{"step:x handshake_p99<1s", "flow:x server_cpu_pct<50", "step:x", "step: p99<1s"} {
		_, err := ParseThreshold(bad)
		assert.Error(t, err, bad)
	}
}

// compare shows each flow and step both runs have, and judges one when
// --check names it.
func TestCompareShowsFlowsAndSteps(t *testing.T) {
	run := func(p99 time.Duration) *Result {
		r := testResult()
		r.Flows = []FlowResult{{Name: "a", Iterations: 10, OK: 10, Latency: Latency{Count: 10, P50: time.Second, P99: time.Second},
			Steps: []MethodResult{{Name: "tools/call echo", Flow: "a", Calls: 10, OK: 10, Latency: Latency{Count: 10, P50: p99 / 2, P99: p99}}}}}
		return r
	}
	ds, err := Compare(run(100*time.Millisecond), run(200*time.Millisecond), CompareOptions{Checks: []string{`step:"a/tools/call echo" p99`}})
	require.NoError(t, err)
	byName := map[string]Delta{}
	for _, d := range ds {
		byName[d.Metric] = d
	}
	require.Contains(t, byName, "flow:a p99")
	assert.False(t, byName["flow:a p99"].Checked)
	d := byName[`step:"a/tools/call echo" p99`]
	assert.True(t, d.Checked)
	assert.True(t, d.Regression, "%+v", d)
	assert.False(t, byName[`step:"a/tools/call echo" p50`].Regression, "shown, not judged")

	_, err = Compare(run(1), run(1), CompareOptions{Checks: []string{"step:x handshake_p50"}})
	assert.Error(t, err)
}
