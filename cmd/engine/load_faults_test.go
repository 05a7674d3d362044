package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type loadReport struct {
	Calls   int64            `json:"calls"`
	Failed  int64            `json:"failed"`
	Errors  map[string]int64 `json:"errors"`
	Latency struct {
		P99 float64 `json:"p99"`
	} `json:"latency_us"`
	Service struct {
		P99 float64 `json:"p99"`
	} `json:"service_us"`
}

func loadJSON(t *testing.T, r result) loadReport {
	t.Helper()
	var rep loadReport
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &rep), r.stdout)
	return rep
}

// A server whose results break the tool's outputSchema: every call is a
// failure of class schema, never a success.
func TestLoadCountsOutputSchemaViolations(t *testing.T) {
	r := engine(t, "", "load", "-s", "1", "-c", "2", "-n", "50", "-q", "-O", "json", "--demo-args", "--bad-output")
	assert.Equal(t, exitLoadFailedCalls, r.code, r.stderr)
	rep := loadJSON(t, r)
	assert.EqualValues(t, 50, rep.Calls)
	assert.EqualValues(t, 50, rep.Errors["schema"])
}

// The whole server stalls for a second (engine serve --stall-for) under an
// open-model load: the latency measured from the intended send time shows
// the stall, the service time of what was sent does not all show it.
func TestLoadOpenModelSeesAServerWideStall(t *testing.T) {
	r := ok(t, "load", "-s", "1", "-c", "64", "-r", "100", "-z", "3s", "-q", "-O", "json",
		"--demo-args", "--stall-after 1s --stall-for 1s")
	rep := loadJSON(t, r)
	assert.Zero(t, rep.Failed)
	assert.Greater(t, rep.Latency.P99, 800e3, "p99 of latency shows the 1 s stall")
}
