package loadgen

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
)

// Two runs merged count every call once and take their percentiles from
// the merged histograms, also after a trip through the JSON report (how
// a distributed run's members send them).
func TestMergeAddsRunsUp(t *testing.T) {
	var parts []Part
	want := NewHistogram()
	for i, n := range []int64{120, 80} {
		res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Label: "demo",
			Model: Open, Rate: 400, Sessions: 2, Concurrency: 2, Count: n, MethodHistograms: true})
		require.NoError(t, err)
		want.Merge(res.LatencyHist)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		var back Result
		require.NoError(t, json.Unmarshal(b, &back))
		parts = append(parts, Part{Member: MemberResult{Address: string(rune('a' + i)), Status: MemberFinished, Sessions: 2}, Result: &back})
	}
	got, err := Merge(parts)
	require.NoError(t, err)
	assert.False(t, got.Partial)
	assert.EqualValues(t, 200, got.Calls)
	assert.EqualValues(t, 200, got.OK)
	assert.Equal(t, Summarize(want), got.Latency)
	require.Len(t, got.Methods, 1)
	assert.EqualValues(t, 200, got.Methods[0].Calls)
	assert.EqualValues(t, 200, got.Methods[0].Latency.Count)
	assert.EqualValues(t, 200, got.Schedule.Sent)
	assert.EqualValues(t, 200, got.Schedule.SendLag.Count)
	assert.Len(t, got.PerSession, 4)
	assert.Equal(t, 2, got.PerSession[2].Session)
	require.Len(t, got.Members, 2)
	assert.EqualValues(t, 120, got.Members[0].Calls)
	assert.EqualValues(t, 80, got.Members[1].Calls)

	// A member lost with no figures makes the run partial.
	parts = append(parts, Part{Member: MemberResult{Address: "c", Status: MemberLost, Sessions: 2}})
	got, err = Merge(parts)
	require.NoError(t, err)
	assert.True(t, got.Partial)
	assert.EqualValues(t, 200, got.Calls)
}
