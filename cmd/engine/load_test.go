package main

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen/report"
)

func TestLoadCount(t *testing.T) {
	t.Parallel()
	r := ok(t, "load", "-n", "200", "-s", "2", "-c", "4")
	assert.Regexp(t, `(?m)^Calls: +200 in .+ = \d+ calls/s$`, r.stdout)
	assert.Regexp(t, `(?m)^Succeeded: +200 \(100\.00%\)$`, r.stdout)
	for _, p := range []string{"p50", "p90", "p95", "p99", "p99.9", "max"} {
		assert.Regexp(t, `(?m)^  `+regexpQuote(p)+` +\S+`, r.stdout)
	}
	assert.Contains(t, r.stdout, "Histogram:")
	assert.Regexp(t, `(?m)^Connect: +2 sessions ready in .+; each connect: start .+, discover .+ \(medians\)$`, r.stdout)
	assert.Regexp(t, `(?m)^Server: +2 processes; CPU `, r.stdout, "stdio servers are sampled")

	r = ok(t, "load", "-n", "200", "-s", "2", "-c", "4", "--json")
	var res struct {
		Schema   string           `json:"schema"`
		Model    string           `json:"model"`
		Calls    int64            `json:"calls"`
		OK       int64            `json:"ok"`
		Failed   int64            `json:"failed"`
		Sessions int              `json:"sessions"`
		Errors   map[string]int64 `json:"errors"`
		Latency  map[string]int64 `json:"latency_us"`
		Connect  map[string]int64 `json:"connect_us"`
		Rate     float64          `json:"calls_per_s"`
		Procs    map[string]any   `json:"processes"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Equal(t, "mcpengine.load/v1", res.Schema)
	assert.Equal(t, "closed", res.Model)
	assert.EqualValues(t, 200, res.Calls)
	assert.EqualValues(t, 200, res.OK)
	assert.Zero(t, res.Failed)
	assert.Equal(t, 2, res.Sessions)
	assert.Len(t, res.Errors, 7)
	assert.Positive(t, res.Rate)
	prev := int64(0)
	for _, k := range []string{"p50", "p90", "p95", "p99", "p99_9", "max"} {
		require.Contains(t, res.Latency, k)
		assert.GreaterOrEqual(t, res.Latency[k], prev, k)
		prev = res.Latency[k]
	}
	assert.Positive(t, res.Connect["total"])
	assert.EqualValues(t, 2, res.Connect["count"])
	assert.NotNil(t, res.Procs)
	assert.Empty(t, r.stderr, "no progress or header around JSON on stdout")
}

func TestLoadCountsIsErrorAsFailure(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "load", "-n", "50", "-s", "1", "-c", "2", "--call", "fail", "--json")
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "engine: 50 of 50 calls failed\n", r.stderr)
	var res struct {
		OK     int64            `json:"ok"`
		Errors map[string]int64 `json:"errors"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	assert.Zero(t, res.OK)
	assert.EqualValues(t, 50, res.Errors["tool"])

	r = engine(t, "", "load", "-n", "50", "-s", "1", "--call", "fail")
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "tool errors (result isError: true)")
	assert.Contains(t, r.stdout, "first: tool result has isError: true: failed on purpose")
}

func TestLoadPingForDuration(t *testing.T) {
	t.Parallel()
	r := ok(t, "load", "-z", "300ms", "-s", "1", "-c", "2", "--method", "ping")
	assert.Contains(t, r.stdout, "Request:     ping\n")
	assert.Regexp(t, `(?m)^Failed: +0 `, r.stdout)
	assert.True(t, strings.HasPrefix(r.stderr, "load: closed model, 1 sessions x 2 calls in flight (2) against embedded demo server"), r.stderr)
}

// The closed model with one call in flight per session against a server
// that takes 20ms per call follows the server: every call waits the delay,
// a session sends its next call only after the answer to the last (so its
// calls never overlap and it makes at most one per 20ms of the run), and
// never more than one call per session is in flight. How many calls a
// loaded machine manages in the second is not asserted: that is speed.
func TestLoadClosedModelFollowsDelay(t *testing.T) {
	t.Parallel()
	const delay = 20 * time.Millisecond
	r := ok(t, "load", "-s", "2", "-c", "1", "-z", "1s", "--method", "ping", "--demo-args", "--delay "+delay.String(), "-O", "json")
	var res struct {
		Seconds float64 `json:"duration_s"`
		Calls   int64   `json:"calls"`
		Failed  int64   `json:"failed"`
		Service struct {
			Min int64 `json:"min"`
		} `json:"service_us"`
		PerSession []struct {
			Calls int64 `json:"calls"`
		} `json:"per_session"`
		Timeline struct {
			Points []struct {
				InFlight int64 `json:"in_flight"`
			} `json:"points"`
		} `json:"timeline"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
	require.Zero(t, res.Failed)
	require.Len(t, res.PerSession, 2)
	t.Logf("closed model, C=1, --delay %v: %d calls in %.3fs, fastest %dµs", delay, res.Calls, res.Seconds, res.Service.Min)

	// Every call waited for the server's delay (the histogram's minimum
	// is rounded down, never up).
	assert.GreaterOrEqual(t, res.Service.Min, delay.Microseconds())
	// One call at a time per session, each at least the fastest one long,
	// all within the measured window (which starts before the first call
	// and ends with the last answer).
	window := int64(res.Seconds * 1e6)
	for i, s := range res.PerSession {
		assert.Positive(t, s.Calls, "session %d", i)
		assert.LessOrEqual(t, s.Calls*res.Service.Min, window,
			"session %d: %d calls of at least %dµs each cannot fit in %dµs one at a time", i, s.Calls, res.Service.Min, window)
	}
	require.NotEmpty(t, res.Timeline.Points)
	for _, p := range res.Timeline.Points {
		assert.LessOrEqual(t, p.InFlight, int64(2), "2 sessions x 1 call in flight")
	}
}

func TestLoadOpenModelStall(t *testing.T) {
	t.Parallel()
	// One session, one slot, call 100 stalls it for a second: the 100
	// calls due in the next half second wait at least 500ms each (a
	// quarter of the 400), while only that one call takes a second to
	// serve (a 400th: below the service p99).
	r := ok(t, "load", "-s", "1", "-c", "1", "-r", "200", "-z", "2s", "--call", "sleep",
		"--args", `{"ms": {{if eq .N 100}}1000{{else}}0{{end}}}`, "--threshold", "p99>500ms", "--threshold", "service_p99<1s")
	assert.Contains(t, r.stdout, "Load:        open model, 200 calls/s in total; at most 1 in flight on each of 1 sessions")
	assert.Regexp(t, `(?m)^            latency    service$`, r.stdout)
	// The rate sent is 400 over the run's wall time, which a loaded
	// machine stretches: the count is the behaviour, not the rate.
	assert.Regexp(t, `(?m)^Schedule: +400 calls due, 400 sent \([\d.]+/s\), \d+ late`, r.stdout)
	assert.Contains(t, r.stdout, "pass  p99>500ms")
	assert.Contains(t, r.stdout, "pass  service_p99<1s")
	assert.Contains(t, r.stdout, "Warning:     ")
}

func TestLoadThresholdsAndExitCodes(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "load", "-n", "100", "-s", "1", "--threshold", "p99<1ns")
	assert.Equal(t, exitThreshold, r.code)
	assert.Regexp(t, `^engine: threshold crossed: p99<1ns \(p99 = .+\)\n$`, r.stderr[strings.LastIndex(r.stderr[:len(r.stderr)-1], "\n")+1:])
	assert.Contains(t, r.stdout, "FAIL  p99<1ns")

	// Failed calls with a threshold on errors: the threshold decides.
	r = engine(t, "", "load", "-n", "50", "-s", "1", "--call", "fail", "--threshold", "error_rate<=100%", "-q")
	assert.Equal(t, 0, r.code, r.stderr)
	r = engine(t, "", "load", "-n", "50", "-s", "1", "--call", "fail", "--threshold", "tool_error_rate<1%", "-q")
	assert.Equal(t, exitThreshold, r.code, r.stderr)
	// A threshold that does not judge errors leaves failed calls failing.
	r = engine(t, "", "load", "-n", "50", "-s", "1", "--call", "fail", "--threshold", "p99<10s", "-q")
	assert.Equal(t, 1, r.code, r.stderr)

	// Misspelled thresholds are usage errors, before anything runs.
	for _, bad := range []string{"p98<1s", "error_rat<1%", "p99<200", "p99 200ms", "late<1x"} {
		r = engine(t, "", "load", "-n", "10", "--threshold", bad)
		assert.Equal(t, 2, r.code, "%s: %s", bad, r.stderr)
		assert.Contains(t, r.stderr, "threshold")
		assert.Empty(t, r.stdout)
	}
}

func TestLoadOutputs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := func(n string) string { return filepath.Join(dir, n) }
	r := ok(t, "load", "-n", "300", "-s", "2", "-c", "2", "-q",
		"-O", "json="+path("r.json"), "-O", "csv="+path("r.csv"), "-O", "prom="+path("r.prom"), "-O", "html="+path("r.html"))
	assert.Contains(t, r.stdout, "Calls:       300", "text still goes to stdout")

	var res map[string]any
	b, err := os.ReadFile(path("r.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &res))
	for _, k := range []string{"schema", "model", "workload", "calls", "ok", "failed", "error_rate", "errors", "latency_us", "service_us",
		"connect_us", "handshake_us", "percentiles", "histogram", "hdr", "methods", "per_session", "timeline", "processes", "client"} {
		assert.Contains(t, res, k)
	}

	f, err := os.Open(path("r.csv"))
	require.NoError(t, err)
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	require.NoError(t, err)
	require.Len(t, rows, 3, "header, all calls, one request kind")
	assert.Equal(t, report.CSVHeader, rows[0])
	assert.Equal(t, "*", rows[1][0])
	assert.Equal(t, "300", rows[1][3])

	b, err = os.ReadFile(path("r.prom"))
	require.NoError(t, err)
	prom := string(b)
	assert.Contains(t, prom, "# TYPE mcpengine_load_calls_total counter\n")
	assert.Contains(t, prom, `mcpengine_load_calls_total{request="tools/call echo",class="ok"} 300`)
	assert.Regexp(t, `(?m)^mcpengine_load_latency_seconds\{request="tools/call echo",quantile="0.99"\} \d`, prom)
	for _, l := range strings.Split(strings.TrimSpace(prom), "\n") {
		assert.Regexp(t, `^(# (HELP|TYPE) \S+ .+|[a-z_]+(\{[^}]*\})? [-+0-9.e]+)$`, l)
	}

	b, err = os.ReadFile(path("r.html"))
	require.NoError(t, err)
	html := string(b)
	assert.True(t, strings.HasPrefix(html, "<!DOCTYPE html>"))
	assert.NotContains(t, html, "http://", "no external resource")
	assert.NotContains(t, html, "https://")
	assert.NotContains(t, html, "<script")
	assert.GreaterOrEqual(t, strings.Count(html, "<svg"), 4)

	r = engine(t, "", "load", "-n", "10", "-O", "yaml")
	assert.Equal(t, 2, r.code)
	r = engine(t, "", "load", "-n", "10", "-O", "json", "-O", "csv")
	assert.Equal(t, 2, r.code, "two reports on stdout")
}

// The HTML report opens in headless Chromium with no network and its
// charts are drawn: the screenshot holds the chart colours.
func TestLoadHTMLRendersInChromium(t *testing.T) {
	t.Parallel()
	browser := ""
	for _, b := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(b); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no chromium installed (Debian package chromium)")
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "report.html")
	shot := filepath.Join(dir, "report.png")
	if p := os.Getenv("LOAD_HTML_SCREENSHOT"); p != "" {
		shot = p
	}
	ok(t, "load", "-s", "2", "-c", "2", "-r", "300", "-z", "2s", "--interval", "250ms", "-q", "-O", "html="+report)

	ctx, cancel := context.WithTimeout(t.Context(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
		"--no-first-run", "--disable-extensions", "--user-data-dir="+filepath.Join(dir, "profile"),
		// No network at all: every host resolves to nothing and no proxy
		// can be reached.
		`--host-resolver-rules=MAP * ~NOTFOUND`, "--proxy-server=127.0.0.1:9",
		"--window-size=1000,2400", "--screenshot="+shot, "file://"+report)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Logf("screenshot: %s", shot)

	f, err := os.Open(shot)
	require.NoError(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	require.NoError(t, err)
	// Count pixels of the p99 line (#c62828), the calls/s line (#1565c0)
	// and the histogram bars (#4c78a8).
	want := map[[3]uint32]int{{0xc6, 0x28, 0x28}: 0, {0x15, 0x65, 0xc0}: 0, {0x4c, 0x78, 0xa8}: 0}
	bnd := img.Bounds()
	for y := bnd.Min.Y; y < bnd.Max.Y; y++ {
		for x := bnd.Min.X; x < bnd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			k := [3]uint32{r >> 8, g >> 8, b >> 8}
			if _, hit := want[k]; hit {
				want[k]++
			}
		}
	}
	for c, n := range want {
		assert.Greater(t, n, 50, "colour %02x%02x%02x drawn", c[0], c[1], c[2])
	}
}

func TestLoadCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base.json"), filepath.Join(dir, "new.json")
	ok(t, "load", "-n", "300", "-s", "1", "-c", "2", "-q", "-O", "json="+base)

	r := ok(t, "load", "compare", base, base)
	assert.Regexp(t, `(?m)^METRIC +BASE +NEW +CHANGE +VERDICT$`, r.stdout)
	assert.Regexp(t, `(?m)^p99 +\S+ +\S+ +\+0\.0% +same$`, r.stdout)

	// Make the new run's p99 50% worse and its throughput half.
	b, err := os.ReadFile(base)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	lat := m["latency_us"].(map[string]any)
	lat["p99"] = math.Round(lat["p99"].(float64) * 1.5)
	m["calls_per_s"] = m["calls_per_s"].(float64) / 2
	b, err = json.Marshal(m)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(cur, b, 0o600))

	r = engine(t, "", "load", "compare", base, cur)
	assert.Equal(t, exitThreshold, r.code)
	assert.Regexp(t, `(?m)^p99 +\S+ +\S+ +\+50\.\d% +REGRESSION$`, r.stdout)
	assert.Regexp(t, `(?m)^calls_per_s +\S+ +\S+ +-50\.0% +REGRESSION$`, r.stdout)
	assert.Equal(t, "engine: regression: calls_per_s, p99\n", r.stderr)

	r = ok(t, "load", "compare", base, cur, "--tolerance", "60%")
	r = ok(t, "load", "compare", base, cur, "--check", "p50", "--json")
	var out struct {
		Regression bool `json:"regression"`
		Deltas     []struct {
			Metric string `json:"metric"`
		} `json:"deltas"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &out))
	assert.False(t, out.Regression)
	assert.NotEmpty(t, out.Deltas)

	r = engine(t, "", "load", "compare", base, filepath.Join(dir, "missing.json"))
	assert.Equal(t, 1, r.code)
	r = engine(t, "", "load", "compare", base, cur, "--check", "p98")
	assert.Equal(t, 2, r.code)
	r = engine(t, "", "load", "compare", base)
	assert.Equal(t, 2, r.code)
}

func TestLoadScenarioAndData(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "people.csv"), []byte("name\nAda\nGrace\n"), 0o600))
	scen := filepath.Join(dir, "mix.yaml")
	require.NoError(t, os.WriteFile(scen, []byte(`data: people.csv
requests:
  - call: echo
    args: {text: "hello {{.Row.name}}"}
    weight: 3
  - read: demo://resource/{{randInt 2 9}}
  - prompt: greet
    args: {name: "{{.Row.name}}"}
  - list: prompts
  - ping
`), 0o600))
	r := ok(t, "load", "-n", "200", "-s", "2", "-c", "2", "--scenario", scen)
	assert.Contains(t, r.stdout, "Requests:    5 kinds, picked at random by weight:")
	assert.Contains(t, r.stdout, "By request:")
	assert.Regexp(t, `(?m)^Succeeded: +200 \(100\.00%\)$`, r.stdout)

	r = engine(t, "", "load", "-n", "10", "--scenario", scen, "--call", "echo")
	assert.Equal(t, 2, r.code)
	require.NoError(t, os.WriteFile(scen, []byte("requests:\n  - call: echo\n    wieght: 2\n"), 0o600))
	r = engine(t, "", "load", "-n", "10", "--scenario", scen)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "wieght")
}

func TestLoadStagesChurnWarmupGenArgs(t *testing.T) {
	t.Parallel()
	r := ok(t, "load", "--stages", "300ms:2,300ms:2", "-c", "2", "--method", "ping", "-O", "json")
	var res struct {
		Sessions int `json:"sessions"`
		Stages   []struct {
			Seconds float64 `json:"duration_s"`
			Target  float64 `json:"target"`
		} `json:"stages"`
		Calls int64 `json:"calls"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res))
	assert.Equal(t, 2, res.Sessions)
	assert.Len(t, res.Stages, 2)
	assert.Positive(t, res.Calls)

	r = ok(t, "load", "-n", "60", "-s", "2", "--churn", "10", "--warmup", "20", "--call", "add", "--gen-args", "-O", "json")
	var res2 struct {
		Calls   int64                 `json:"calls"`
		OK      int64                 `json:"ok"`
		Churn   int64                 `json:"churn"`
		Warmup  struct{ Calls int64 } `json:"warmup"`
		Connect struct {
			Count int64 `json:"count"`
		} `json:"connect_us"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &res2))
	assert.EqualValues(t, 60, res2.Calls)
	assert.EqualValues(t, 60, res2.OK)
	assert.EqualValues(t, 20, res2.Warmup.Calls)
	assert.GreaterOrEqual(t, res2.Connect.Count, int64(8), "a new server process every 10 calls")
}

func TestLoadUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"load", "-s", "0"},
		{"load", "--model", "sideways"},
		{"load", "--model", "open"},
		{"load", "--model", "closed", "-r", "10"},
		{"load", "--stages", "10s"},
		{"load", "--stages", "1s:10", "-z", "1s"},
		{"load", "--stages", "1s:10", "-s", "3"},
		{"load", "--stages", "1s:10", "--warmup", "1s"},
		{"load", "--warmup", "soon"},
		{"load", "--args", "{nope"},
		{"load", "--gen-args", "--args", "{}"},
		{"load", "--method", "ping", "--call", "echo"},
		{"load", "--data", "/nonexistent.csv"},
		{"load", "extra"},
	} {
		r := engine(t, "", args...)
		assert.Equal(t, 2, r.code, "%v: %s", args, r.stderr)
		assert.True(t, strings.HasPrefix(r.stderr, "engine: "), "%v: %s", args, r.stderr)
		assert.Empty(t, r.stdout, "%v", args)
	}
}

func TestLoadTemplateMistakesAreUsageErrorsInPlainWords(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ args, want string }{
		{`{"text":"{{.Nope}}"}`, "there is no field Nope (the fields are .N, .Session"},
		{`{"text":"{{.Nope"}`, "argument template: line 1:"},
		{`{"text":"{{randInt 1}}"}`, "wrong number of args for randInt"},
	} {
		r := engine(t, "", "load", "-n", "10", "--args", c.args)
		assert.Equal(t, 2, r.code, "%s: %s", c.args, r.stderr)
		assert.Contains(t, r.stderr, c.want, c.args)
		assert.NotContains(t, r.stderr, "loadgen.", "the Go type the template runs on is no business of the user")
	}
}

func TestVersionAndCompletion(t *testing.T) {
	t.Parallel()
	r := engine(t, "", "--version")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Regexp(t, `^engine version \S+\n$`, r.stdout)
	r = engine(t, "", "completion", "bash")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "bash completion")
}

// A --stdio target is named by its whole command line: "Target: node"
// does not say which server was measured.
func TestLoadNamesAStdioTargetByItsCommandLine(t *testing.T) {
	t.Parallel()
	r := ok(t, "load", "-n", "20", "--stdio", engineBin+" serve --name labelled", "-q")
	assert.Regexp(t, `(?m)^Target: +`+regexp.QuoteMeta(engineBin)+` serve --name labelled$`, r.stdout)
}
