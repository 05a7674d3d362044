package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flowReport is the part of the JSON report a flow fills in.
type flowReport struct {
	Calls  int64            `json:"calls"`
	OK     int64            `json:"ok"`
	Errors map[string]int64 `json:"errors"`
	Flows  []struct {
		Name       string            `json:"name"`
		Iterations int64             `json:"iterations"`
		OK         int64             `json:"ok"`
		Failed     int64             `json:"failed"`
		Aborted    int64             `json:"aborted"`
		Errors     map[string]int64  `json:"errors"`
		First      map[string]string `json:"first_errors"`
		Latency    map[string]int64  `json:"latency_us"`
		Steps      []struct {
			Name    string            `json:"name"`
			Flow    string            `json:"flow"`
			Calls   int64             `json:"calls"`
			OK      int64             `json:"ok"`
			Errors  map[string]int64  `json:"errors"`
			First   map[string]string `json:"first_errors"`
			Latency map[string]int64  `json:"latency_us"`
		} `json:"steps"`
	} `json:"flows"`
	Thresholds []struct {
		Expr string `json:"expr"`
		Pass bool   `json:"pass"`
	} `json:"thresholds"`
}

func parseFlowReport(t *testing.T, s string) flowReport {
	t.Helper()
	var fr flowReport
	require.NoError(t, json.Unmarshal([]byte(s), &fr), s)
	return fr
}

// The example flow runs against the demo server the engine starts (engine
// serve over stdio): every iteration lists the tools, calls echo with the
// name it extracted, completes a prompt argument and gets the prompt with
// the completion, lists the resources and reads the text one it found,
// every check passing; the JSON report counts each step once per
// iteration, and a threshold on one step is judged on that step.
func TestLoadFlowAgainstTheDemoServer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := ok(t, "load", "--scenario", "../../docs/flows/demo.yaml", "-n", "30", "-s", "2", "-c", "2",
		"--threshold", "step:say p99<30s", "--threshold", "flow:agent error_rate==0",
		"-O", "json", "-O", "csv="+filepath.Join(dir, "r.csv"), "-O", "prom="+filepath.Join(dir, "r.prom"),
		"-O", "html="+filepath.Join(dir, "r.html"), "-O", "text="+filepath.Join(dir, "r.txt"))
	fr := parseFlowReport(t, r.stdout)
	require.Len(t, fr.Flows, 1)
	f := fr.Flows[0]
	assert.Equal(t, "agent", f.Name)
	assert.EqualValues(t, 30, f.Iterations, "-n counts iterations")
	assert.EqualValues(t, 30, f.OK, "%v", f.First)
	steps := []string{"discover", "say", "suggest", "greet", "find", "read"}
	require.Len(t, f.Steps, len(steps))
	for i, s := range f.Steps {
		assert.Equal(t, steps[i], s.Name)
		assert.Equal(t, "agent", s.Flow)
		assert.EqualValues(t, 30, s.Calls, s.Name)
		assert.EqualValues(t, 30, s.OK, "%s: %v", s.Name, s.First)
		assert.Positive(t, s.Latency["p50"], s.Name)
	}
	assert.EqualValues(t, 30*len(steps), fr.Calls, "the steps are the run's calls")
	// An iteration holds five pauses of at least 5ms each (the histogram
	// may round its minimum down by a few tens of µs).
	assert.GreaterOrEqual(t, f.Latency["min"], int64(24_900))
	require.Len(t, fr.Thresholds, 2)
	for _, th := range fr.Thresholds {
		assert.True(t, th.Pass, th.Expr)
	}

	// Every other format has the flow and its steps.
	text, err := os.ReadFile(filepath.Join(dir, "r.txt"))
	require.NoError(t, err)
	assert.Contains(t, string(text), "Flow agent:  30 iterations, 0 failed")
	assert.Regexp(t, `(?m)^ +say +30 +0 +0 `, string(text))
	rows := readCSV(t, filepath.Join(dir, "r.csv"))
	kinds := map[string]int{}
	for _, row := range rows[1:] {
		kinds[row[len(row)-2]]++
	}
	assert.Equal(t, map[string]int{"run": 1, "flow": 1, "step": 6}, kinds)
	prom, err := os.ReadFile(filepath.Join(dir, "r.prom"))
	require.NoError(t, err)
	assert.Contains(t, string(prom), `mcpengine_load_step_calls_total{flow="agent",step="say",class="ok"} 30`)
	assert.Contains(t, string(prom), `mcpengine_load_flow_iterations_total{flow="agent",class="ok"} 30`)
	html, err := os.ReadFile(filepath.Join(dir, "r.html"))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Flow agent</h2>")
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	require.NoError(t, err)
	return rows
}

// A check that fails is the class "check", not a transport or protocol
// error: the step fails, the iteration fails with it, and with
// abort_on_fail the steps after it are not sent. Calls failed, so the
// exit status is 1.
func TestLoadFlowFailedCheckEndsTheIteration(t *testing.T) {
	t.Parallel()
	scen := writeScenario(t, `
flows:
  - name: strict
    abort_on_fail: true
    steps:
      - name: say
        call: echo
        args: {text: hello}
        check: {contains: goodbye}
      - name: never
        method: ping
`)
	r := engine(t, "", "load", "--scenario", scen, "-n", "10", "-s", "1", "-c", "1", "-O", "json")
	assert.Equal(t, 1, r.code, r.stderr)
	fr := parseFlowReport(t, r.stdout)
	require.Len(t, fr.Flows, 1)
	f := fr.Flows[0]
	assert.EqualValues(t, 10, f.Failed)
	assert.EqualValues(t, 10, f.Aborted)
	assert.EqualValues(t, 10, f.Errors["check"])
	assert.EqualValues(t, 10, f.Steps[0].Errors["check"])
	assert.Zero(t, f.Steps[0].Errors["transport"]+f.Steps[0].Errors["rpc"])
	assert.Contains(t, f.Steps[0].First["check"], `check contains "goodbye"`)
	assert.Zero(t, f.Steps[1].Calls, "the iteration ended at the failed step")
	assert.EqualValues(t, 10, fr.Errors["check"])

	// Without abort_on_fail the rest of the iteration still runs, and a
	// threshold on the failing step crosses (exit 3).
	require.NoError(t, os.WriteFile(scen, []byte(strings.Replace(mustRead(t, scen), "abort_on_fail: true", "abort_on_fail: false", 1)), 0o600))
	r = engine(t, "", "load", "--scenario", scen, "-n", "10", "-s", "1", "-c", "1", "-O", "json", "--threshold", "step:say check_errors==0")
	assert.Equal(t, 3, r.code, r.stderr)
	fr = parseFlowReport(t, r.stdout)
	assert.EqualValues(t, 10, fr.Flows[0].Steps[1].OK, "the ping after the failed step")
	assert.Zero(t, fr.Flows[0].Aborted)
}

func writeScenario(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "flow.yaml")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

func mustRead(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// A flow file with a mistake is a usage error (exit 2) before any server
// starts, and the message names the flow, the step and the field.
func TestLoadFlowMistakesNameTheStepAndField(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ flow, want string }{
		{"  - name: f\n    steps:\n      - call: echo\n        chek: {contains: x}\n",
			`flow "f" step 1: line 4: field chek not found`},
		{"  - name: f\n    steps:\n      - list: tools\n      - name: say\n        call: echo\n        args: {text: \"{{.Vars.tool}}\"}\n",
			`flow "f" step 2 (say): args: .Vars.tool is not extracted by an earlier step`},
		{"  - name: f\n    steps:\n      - name: l\n        list: tools\n        extract: {t: \"$.tools[\"}\n",
			`flow "f" step 1 (l): extract.t: JSONPath "$.tools["`},
		{"  - name: f\n    steps:\n      - name: s\n        call: echo\n        args: {text: x}\n        check: {matches: \"(\"}\n",
			`flow "f" step 1 (s): check.matches: error parsing regexp`},
		{"  - name: f\n    think: 2s..1s\n    steps:\n      - ping\n",
			`flow "f": think: the range 2s..1s ends before it starts`},
		{"  - name: f\n    steps:\n      - name: p\n        method: ping\n        check: {is_error: true}\n",
			`flow "f" step 1 (p): check.is_error: applies to tools/call, not ping`},
		{"  - name: f\n    steps:\n      - name: r\n        call: echo\n        args: {text: \"{{randInt 1}}\"}\n",
			`flow "f" step 1 (r): argument template: at randInt: wrong number of args for randInt`},
		{"  - name: f\n    steps:\n      - name: e\n        call: echo\n        args: {text: x}\n        check: {equals: {nope: 1}}\n",
			`flow "f" step 1 (e): check.equals: nope is not extracted`},
	} {
		scen := writeScenario(t, "flows:\n"+c.flow)
		r := engine(t, "", "load", "--scenario", scen, "-n", "5")
		assert.Equal(t, 2, r.code, "%s: %s", c.want, r.stderr)
		assert.Contains(t, r.stderr, c.want)
		assert.NotContains(t, r.stderr, "loadgen.", "no Go types in the message")
		assert.Empty(t, r.stdout)
	}

	// Preflight names the step whose tool the server does not have.
	scen := writeScenario(t, "flows:\n  - name: f\n    steps:\n      - name: x\n        call: ecko\n        args: {text: hi}\n")
	r := engine(t, "", "load", "--scenario", scen, "-n", "5")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `flow "f" step "x": the server has no tool "ecko"; did you mean "echo"?`)
	// And the literal arguments that do not fit the tool's inputSchema.
	scen = writeScenario(t, "flows:\n  - name: f\n    steps:\n      - name: x\n        call: echo\n        args: {txt: hi}\n")
	r = engine(t, "", "load", "--scenario", scen, "-n", "5")
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, `flow "f" step "x": its arguments {"txt":"hi"} do not fit the tool's inputSchema`)
}

// The example flow for the official TypeScript reference server runs
// against it as a real Node subprocess: the echo carries the description
// extracted from tools/list, the structured content validates against
// its outputSchema and holds the expected value, the resource reads.
func TestLoadFlowAgainstServerEverything(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	entry, _ := filepath.Abs("../../testdata/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
	if _, err := os.Stat(entry); err != nil {
		t.Skip("testdata/node is not installed: run `make node-deps`")
	}
	r := ok(t, "load", "--stdio", node+" "+entry+" stdio", "--scenario", "../../docs/flows/everything.yaml",
		"-n", "20", "-s", "1", "-c", "2", "-O", "json")
	fr := parseFlowReport(t, r.stdout)
	require.Len(t, fr.Flows, 1)
	f := fr.Flows[0]
	assert.EqualValues(t, 20, f.Iterations)
	assert.EqualValues(t, 20, f.OK, "%v", f.First)
	steps := []string{"discover", "echo", "weather", "templates", "read"}
	require.Len(t, f.Steps, len(steps))
	for i, s := range f.Steps {
		assert.Equal(t, steps[i], s.Name)
		assert.EqualValues(t, 20, s.Calls, s.Name)
		assert.EqualValues(t, 20, s.OK, "%s: %v", s.Name, s.First)
	}
}
