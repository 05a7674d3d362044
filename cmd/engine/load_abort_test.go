package main

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run whose calls fail, or whose latency crosses a threshold, stops at
// the next interval instead of running its course (k6's abortOnFail), and
// says why: exit 3, the reason in the report, the figures until then.
func TestLoadAbortsOnErrorRateAndOnAThresholdCrossed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"error rate", []string{"--call", "fail", "--args", `{"message":"no"}`, "--max-error-rate", "50%"}, "threshold error_rate<=50% crossed"},
		{"latency", []string{"--demo-args", "--delay 20ms", "--threshold", "p99<5ms", "--abort-on-fail"}, "threshold p99<5ms crossed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := engine(t, "", append([]string{"load", "-z", "60s", "-s", "2", "-c", "4", "-q", "--json"}, c.args...)...)
			assert.Equal(t, 3, r.code, r.stderr)
			assert.Contains(t, r.stderr, "aborted: "+c.want)
			var res struct {
				Aborted  string  `json:"aborted"`
				Duration float64 `json:"duration_s"`
				Calls    int64   `json:"calls"`
			}
			require.NoError(t, json.Unmarshal([]byte(r.stdout), &res), r.stdout)
			assert.Contains(t, res.Aborted, c.want)
			assert.Less(t, res.Duration, 50.0, "stopped long before the 60 s it was given")
			assert.Positive(t, res.Calls)
			// The line the run stops with gives the report's total.
			assert.Contains(t, r.stderr, fmt.Sprintf("the report counts %d calls", res.Calls))
		})
	}
	r := engine(t, "", "load", "-n", "10", "--abort-on-fail", "--threshold", "server_cpu_pct<50")
	assert.Equal(t, 2, r.code, "a threshold that can only be judged at the end cannot abort: %s", r.stderr)
}
