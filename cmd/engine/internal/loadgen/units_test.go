package loadgen

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

func TestParseStages(t *testing.T) {
	start, st, err := ParseStages("10s:100, 30s:500,10s:0")
	require.NoError(t, err)
	assert.Zero(t, start)
	assert.Equal(t, []Stage{{10 * time.Second, 100}, {30 * time.Second, 500}, {10 * time.Second, 0}}, st)
	start, st, err = ParseStages("50,1m:100/s")
	require.NoError(t, err)
	assert.Equal(t, 50.0, start)
	assert.Equal(t, []Stage{{time.Minute, 100}}, st)
	assert.Equal(t, "50,1m0s:100", StagesString(start, st))
	for _, bad := range []string{"", "10s", "10:100", "10s:-1", "10s:x", "0s:10", "10s:1,20"} {
		_, _, err := ParseStages(bad)
		assert.Error(t, err, bad)
	}
}

func TestProfileSchedule(t *testing.T) {
	// Constant 100/s for 1s: events at 0, 10ms, 20ms, …, 990ms.
	p := newProfile([]segment{{dur: time.Second, from: 100, to: 100}})
	for _, k := range []int64{0, 1, 50, 99} {
		at, ok := p.timeOf(k)
		require.True(t, ok)
		assert.InDelta(t, float64(k)*10, float64(at)/float64(time.Millisecond), 1e-6, "k=%d", k)
	}
	_, ok := p.timeOf(100)
	assert.False(t, ok, "the 101st event is after the end")
	assert.InDelta(t, 100, p.countAt(time.Second), 1e-9)

	// A ramp 0 → 200/s over 1s then down: 100 events up, 100 down; event
	// times invert the integral.
	p = newProfile([]segment{{dur: time.Second, from: 0, to: 200}, {dur: time.Second, from: 200, to: 0}})
	assert.InDelta(t, 200, p.countAt(2*time.Second), 1e-9)
	assert.InDelta(t, 100, p.level(500*time.Millisecond), 1e-9)
	prev := time.Duration(-1)
	for k := int64(0); k < 200; k++ {
		at, ok := p.timeOf(k)
		require.True(t, ok, "k=%d", k)
		assert.Greater(t, at, prev)
		assert.InDelta(t, float64(k), p.countAt(at), 1e-6, "k=%d", k)
		prev = at
	}
	assert.InDelta(t, 200, p.level(time.Second), 1e-9)

	// Forever at 10/s.
	p = newProfile([]segment{{dur: forever, from: 10, to: 10}})
	at, ok := p.timeOf(1000)
	require.True(t, ok)
	assert.Equal(t, 100*time.Second, at)
	assert.Equal(t, forever, p.end)
}

// TestTimelineFoldsTheClosingSliver: the calls of a run's last few
// milliseconds join the latest point, whether it is complete or still
// filling, without counting as an interval of their own.
func TestTimelineFoldsTheClosingSliver(t *testing.T) {
	for _, limit := range []int{100, 4} { // 4: the points merge in pairs, one is still filling
		tl := newTimeline(1, limit)
		for i := range 3 {
			tl.add(Point{T: float64(i + 1), Seconds: 1, Calls: 10})
		}
		tl.addSliver(Point{T: 3.01, Seconds: 0.01, Calls: 2})
		tl.add(Point{T: 4, Seconds: 1, Calls: 10})
		tl.finish()
		var calls int64
		for _, p := range tl.Points {
			calls += p.Calls
		}
		assert.EqualValues(t, 42, calls, "limit %d: the sliver's calls are kept", limit)
		assert.Len(t, tl.Points, map[int]int{100: 4, 4: 2}[limit], "limit %d: the sliver is no point of its own", limit)
	}
	tl := newTimeline(1, 100)
	tl.addSliver(Point{T: 0.01, Seconds: 0.01, Calls: 2})
	tl.finish()
	assert.Len(t, tl.Points, 1, "a sliver that is the whole run is its only point")
}

func TestTimelineStaysBounded(t *testing.T) {
	tl := newTimeline(1, 10)
	for i := range 1000 {
		tl.add(Point{T: float64(i + 1), Seconds: 1, Calls: 10, P50US: 100, P99US: int64(i), MaxUS: int64(i)})
	}
	tl.finish()
	assert.LessOrEqual(t, len(tl.Points), 10)
	var calls int64
	var secs float64
	for _, p := range tl.Points {
		calls += p.Calls
		secs += p.Seconds
	}
	assert.EqualValues(t, 10000, calls, "merging keeps the totals")
	assert.Equal(t, 1000.0, secs)
	last := tl.Points[len(tl.Points)-1]
	assert.Equal(t, 1000.0, last.T)
	assert.EqualValues(t, 999, last.MaxUS)
	assert.Equal(t, 10.0, last.CallsPerSecond)
	assert.Equal(t, 128.0, tl.IntervalSeconds)
}

func td(n int64) *TemplateData {
	return &TemplateData{N: n, Session: 3, SessionName: "load-3", Row: map[string]any{"name": `Ada "the" Countess`, "n": 7.0}}
}

func TestRequestTemplates(t *testing.T) {
	c, err := compileWorkload(&Workload{Requests: []Request{
		{Tool: "add", Args: `{"a": {{.N}}, "b": {{.Row.n}}, "s": {{.Session}}}`},
		{Tool: "echo", Args: map[string]any{"text": "{{.Row.name}} #{{.N}}", "k": []any{1.0, "{{.SessionName}}"}}},
		{URI: "demo://resource/{{add .N 1}}"},
		{Prompt: "greet", Args: map[string]any{"name": "{{.Row.name}}", "n": 3.0}},
		{Method: messages.MethodPing},
		{Tool: "echo", Args: `{"text":"static"}`},
		{Tool: "echo", Args: `{"text": {{json .Row.name}}, "r": {{randInt 5 5}}, "u": "{{uuid}}"}`},
	}})
	require.NoError(t, err)
	build := func(i int) map[string]any {
		b, err := c.reqs[i].build(td(41))
		require.NoError(t, err)
		var m map[string]any
		if len(b) > 0 {
			require.NoError(t, json.Unmarshal(b, &m), string(b))
		}
		return m
	}
	assert.Equal(t, map[string]any{"name": "add", "arguments": map[string]any{"a": 41.0, "b": 7.0, "s": 3.0}}, build(0))
	assert.Equal(t, map[string]any{"name": "echo", "arguments": map[string]any{"text": `Ada "the" Countess #41`, "k": []any{1.0, "load-3"}}}, build(1))
	assert.Equal(t, map[string]any{"uri": "demo://resource/42"}, build(2))
	assert.Equal(t, map[string]any{"name": "greet", "arguments": map[string]any{"name": `Ada "the" Countess`, "n": "3"}}, build(3))
	assert.Nil(t, build(4))
	assert.True(t, c.reqs[5].isStatic)
	m := build(6)["arguments"].(map[string]any)
	assert.Equal(t, `Ada "the" Countess`, m["text"])
	assert.Equal(t, 5.0, m["r"])
	assert.Len(t, m["u"], 36)
	assert.Equal(t, "tools/call add", c.reqs[0].Name)

	// A template that renders invalid JSON is caught per call.
	c, err = compileWorkload(&Workload{Requests: []Request{{Tool: "echo", Args: `{"text": {{.Row.name}}}`}}})
	require.NoError(t, err)
	_, err = c.reqs[0].build(td(0))
	assert.ErrorContains(t, err, "invalid JSON")
	// A missing field is an error, not "<no value>".
	c, err = compileWorkload(&Workload{Requests: []Request{{Tool: "echo", Args: `{"text": "{{.Row.nope}}"}`}}})
	require.NoError(t, err)
	_, err = c.reqs[0].build(td(0))
	assert.Error(t, err)

	for _, bad := range []Request{
		{Tool: "echo", Args: `{nope`},
		{Tool: "echo", Args: `[1]`},
		{Tool: "echo", Args: `{"text": "{{.N"}`},
		{Method: messages.MethodToolsCall},
		{Tool: "echo", Weight: -1},
		{Tool: "echo", Args: `{}`, GenArgs: true},
	} {
		_, err := compileWorkload(&Workload{Requests: []Request{bad}})
		assert.Error(t, err, "%+v", bad)
	}
}

func TestWeightedPick(t *testing.T) {
	c, err := compileWorkload(&Workload{Requests: []Request{
		{Method: "a", Weight: 3}, {Method: "b", Weight: 1}, {Method: "c", Weight: 0.0001},
	}})
	require.NoError(t, err)
	n := map[string]int{}
	for range 40_000 {
		n[c.pick().req.Method]++
	}
	assert.InDelta(t, 30_000, n["a"], 600)
	assert.InDelta(t, 10_000, n["b"], 600)
	assert.Less(t, n["c"], 30)
}

func TestScenario(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "rows.csv"), []byte("\ufeffname,n\nAda,1\nGrace,2\n"), 0o600))
	path := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(path, []byte(`
data: rows.csv
requests:
  - call: echo
    args: {text: "hi {{.Row.name}}"}
    weight: 70
  - call: add
    args: '{"a": {{.Row.n}}, "b": 2}'
  - read: demo://resource/{{randInt 1 9}}
  - prompt: greet
    args: {name: Ada}
  - list: tools
  - list: templates
  - ping
  - method: completion/complete
    params: {ref: {type: ref/prompt, name: greet}, argument: {name: name, value: A}}
  - call: add
    gen_args: true
    name: generated
`), 0o600))
	w, err := LoadScenario(path)
	require.NoError(t, err)
	require.Len(t, w.Requests, 9)
	assert.Len(t, w.Rows, 2)
	assert.Equal(t, "Ada", w.Rows[0]["name"], "the BOM is dropped")
	assert.Equal(t, 70.0, w.Requests[0].Weight)
	assert.Equal(t, messages.MethodResourcesTemplatesList, w.Requests[5].Method)
	assert.Equal(t, messages.MethodPing, w.Requests[6].Method)
	assert.True(t, w.Requests[8].GenArgs)

	res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Sessions: 2, Concurrency: 2, Count: 300, Workload: w})
	require.NoError(t, err)
	assert.EqualValues(t, 300, res.Calls)
	assert.Zero(t, res.Failed, "%v", res.FirstErrors)
	assert.Len(t, res.Methods, 9)

	for _, bad := range []string{
		"requests: [{call: echo, wieght: 3}]",
		"requests: [{call: echo, read: x}]",
		"requests: [{list: gadgets}]",
		"requests: []",
		"",
		"reqests: [{call: echo}]",
	} {
		_, err := ParseScenario([]byte(bad))
		assert.Error(t, err, bad)
	}
}

func TestLoadData(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rows.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("{\"a\":1}\n\n{\"a\":\"x\"}\n"), 0o600))
	rows, err := LoadData(p)
	require.NoError(t, err)
	assert.Equal(t, []map[string]any{{"a": 1.0}, {"a": "x"}}, rows)
	require.NoError(t, os.WriteFile(p, []byte("[1]\n"), 0o600))
	_, err = LoadData(p)
	assert.ErrorContains(t, err, "line 1")
	_, err = LoadData(filepath.Join(dir, "x.txt"))
	assert.Error(t, err)
}

// Generated arguments satisfy the tool's inputSchema.
func TestGeneratedArgsMatchInputSchema(t *testing.T) {
	schemas := []string{
		`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`,
		`{"type":"object","properties":{"a":{"type":"number"},"b":{"type":"number","minimum":5,"maximum":6}},"required":["a","b"]}`,
		`{"type":"object","properties":{"ms":{"type":"integer","minimum":0,"maximum":3}},"required":["ms"]}`,
		`{"type":"object","properties":{"level":{"type":"string","enum":["debug","info"]},"tags":{"type":"array","items":{"type":"string","minLength":2,"maxLength":4},"minItems":1,"maxItems":3},"id":{"type":"string","format":"uuid"},"flag":{"type":["boolean","null"]}},"required":["level","tags"]}`,
		`{"type":"object","properties":{"p":{"$ref":"#/$defs/point"}},"required":["p"],"$defs":{"point":{"type":"object","properties":{"x":{"type":"integer","exclusiveMinimum":0}},"required":["x"]}}}`,
		`{"type":"object","properties":{"v":{"oneOf":[{"type":"string","const":"a"},{"type":"integer","minimum":10,"maximum":10}]}},"required":["v"]}`,
	}
	for _, s := range schemas {
		g, err := newArgGen(messages.RawMessage(s))
		require.NoError(t, err)
		c := jsonschema.NewCompiler()
		doc, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		require.NoError(t, err)
		require.NoError(t, c.AddResource("mem:///s.json", doc))
		sch, err := c.Compile("mem:///s.json")
		require.NoError(t, err)
		for range 50 {
			b := g.generate()
			v, err := jsonschema.UnmarshalJSON(strings.NewReader(string(b)))
			require.NoError(t, err)
			require.NoError(t, sch.Validate(v), "schema %s, generated %s", s, b)
		}
	}
}

func TestGenArgsAgainstTheDemoServer(t *testing.T) {
	for _, tool := range []string{"echo", "add", "log", "notify"} {
		res, err := Run(t.Context(), Config{
			Target: demoTarget(demoserver.Options{}), Count: 50,
			Workload: &Workload{Requests: []Request{{Tool: tool, GenArgs: true}}},
		})
		require.NoError(t, err, tool)
		assert.EqualValues(t, 50, res.OK, "%s: %v", tool, res.FirstErrors)
	}
	_, err := Run(t.Context(), Config{
		Target: demoTarget(demoserver.Options{}), Count: 1,
		Workload: &Workload{Requests: []Request{{Tool: "nope", GenArgs: true}}},
	})
	assert.ErrorContains(t, err, `the server has no tool "nope"`)
}

func TestBrokenTemplateFailsBeforeTheRun(t *testing.T) {
	_, err := Run(t.Context(), Config{
		Target: demoTarget(demoserver.Options{}), Count: 1,
		Workload: &Workload{Requests: []Request{{Tool: "echo", Args: `{"text": {{.Session}}x}`}}},
	})
	assert.ErrorContains(t, err, "invalid JSON")
}

func testResult() *Result {
	return &Result{
		Calls: 1000, OK: 990, Failed: 10, ErrorRate: 0.01, CallsPerSecond: 500,
		Errors:    ErrorCounts{Tool: 6, Timeout: 4},
		Latency:   Latency{P50: 2 * time.Millisecond, P99: 150 * time.Millisecond, Max: time.Second, Count: 1000},
		Service:   Latency{P50: time.Millisecond, P99: 9 * time.Millisecond, Count: 1000},
		Handshake: Latency{P50: 3 * time.Millisecond, Count: 4},
	}
}

func TestThresholds(t *testing.T) {
	r := testResult()
	for _, tc := range []struct {
		expr string
		pass bool
	}{
		{"p99<200ms", true},
		{"p99 < 100ms", false},
		{"p99<=150ms", true},
		{"error_rate<1%", false},
		{"error_rate<=0.01", true},
		{"errors<11", true},
		{"tool_errors==6", true},
		{"timeout_error_rate<0.5%", true},
		{"rps>=500", true},
		{"calls_per_s>600", false},
		{"service_p99<10ms", true},
		{"p99.9<1s", true},
		{"handshake_p50<5ms", true},
	} {
		th, err := ParseThreshold(tc.expr)
		require.NoError(t, err, tc.expr)
		got := th.Check(r)
		assert.Equal(t, tc.pass, got.Pass, "%s: %+v", tc.expr, got)
	}
	th, err := ParseThreshold("late<1")
	require.NoError(t, err)
	got := th.Check(r)
	assert.False(t, got.Pass, "a metric the run did not measure fails")
	assert.NotEmpty(t, got.Note)

	for _, tc := range []struct{ expr, msg string }{
		{"p99<200", "needs a unit"},
		{"p98<200ms", "unknown metric"},
		{"eror_rate<1%", `did you mean "error_rate"`},
		{"p99 200ms", "METRIC OP VALUE"},
		{"p99=<200ms", "METRIC OP VALUE"},
		{"error_rate<150%", "percentage"},
		{"error_rate<2", "fraction"},
		{"p99<fast", "not a duration"},
	} {
		_, err := ParseThreshold(tc.expr)
		assert.ErrorContains(t, err, tc.msg, tc.expr)
	}
	m, err := LookupMetric("error_rate")
	require.NoError(t, err)
	assert.True(t, m.Errors)
}

func TestCompare(t *testing.T) {
	base, cur := testResult(), testResult()
	d, err := Compare(base, cur, CompareOptions{})
	require.NoError(t, err)
	for _, x := range d {
		assert.False(t, x.Regression, x.Metric)
	}
	cur.Latency.P99 = 170 * time.Millisecond // +13%
	cur.CallsPerSecond = 470                 // -6%
	cur.ErrorRate = 0.0105                   // +0.05pp
	d, err = Compare(base, cur, CompareOptions{})
	require.NoError(t, err)
	reg := map[string]bool{}
	for _, x := range d {
		reg[x.Metric] = x.Regression
	}
	assert.True(t, reg["p99"])
	assert.False(t, reg["calls_per_s"], "within 10%")
	assert.False(t, reg["error_rate"], "within 0.1pp")
	d, err = Compare(base, cur, CompareOptions{Tolerance: 0.05, ErrorTolerance: 0.0001, Checks: []string{"rps", "error_rate"}})
	require.NoError(t, err)
	reg = map[string]bool{}
	for _, x := range d {
		reg[x.Metric] = x.Regression
	}
	assert.True(t, reg["calls_per_s"])
	assert.True(t, reg["error_rate"])
	assert.False(t, reg["p99"], "not judged")
	_, err = Compare(base, cur, CompareOptions{Checks: []string{"p98"}})
	assert.Error(t, err)
	cur.Model = "open"
	assert.NotEmpty(t, Comparable(base, cur))
}

func TestProcessTreeSampling(t *testing.T) {
	if _, ok := sampleTree(); !ok {
		t.Skip("no /proc")
	}
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	require.NoError(t, cmd.Start())
	s, ok := sampleTree()
	require.True(t, ok)
	assert.GreaterOrEqual(t, s.Processes, 1)
	require.NoError(t, cmd.Wait())
	after, ok := sampleTree()
	require.True(t, ok)
	assert.Greater(t, after.CPUSeconds, s.CPUSeconds, "a reaped child's CPU still counts")
}

func TestFormatting(t *testing.T) {
	assert.Equal(t, "1.50ms", FormatValue(UnitDuration, 1500))
	assert.Equal(t, "1.00%", FormatValue(UnitRatio, 0.01))
	assert.Equal(t, "1.5 MiB", FormatBytes(1.5*(1<<20)))
	v, err := parseValue(UnitBytes, "50MB")
	require.NoError(t, err)
	assert.Equal(t, 50e6, v)
}
