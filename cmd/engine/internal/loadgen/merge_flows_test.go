package loadgen

import (
	"encoding/json"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
)

// Two runs of a flow merged (after a trip through the JSON report, as a
// distributed run's members send them) add their iterations and steps up
// and take the flow's, the steps', the connects' and the handshakes'
// percentiles from the merged histograms, never the highest run's.
func TestMergeAddsFlowsAndConnectsUp(t *testing.T) {
	w, err := ParseScenario([]byte(agentFlow))
	require.NoError(t, err)
	var parts []Part
	iter, say, hs := NewHistogram(), NewHistogram(), NewHistogram()
	for i, n := range []int64{12, 8} {
		res, err := Run(t.Context(), Config{Target: demoTarget(demoserver.Options{}), Label: "demo",
			Sessions: 2, Concurrency: 2, Count: n, Workload: w, MethodHistograms: true})
		require.NoError(t, err)
		b, err := json.Marshal(res)
		require.NoError(t, err)
		var back Result
		require.NoError(t, json.Unmarshal(b, &back))
		back.Duration = res.Duration // not in the JSON; the coordinator sets it so
		require.Len(t, back.Flows, 1)
		require.NotNil(t, back.Flows[0].HDR, "the iterations' histogram is kept")
		for _, pair := range []struct {
			into *hdrhistogram.Histogram
			enc  string
		}{{iter, back.Flows[0].HDR.Latency}, {say, back.Flows[0].Steps[1].HDR.Latency}, {hs, back.HDR.Handshake}} {
			h, err := DecodeHDR(pair.enc)
			require.NoError(t, err)
			require.Positive(t, h.TotalCount())
			pair.into.Merge(h)
		}
		parts = append(parts, Part{Member: MemberResult{Address: string(rune('a' + i)), Status: MemberFinished, Sessions: 2}, Result: &back})
	}
	got, err := Merge(parts)
	require.NoError(t, err)
	assert.Empty(t, got.Warnings)
	assert.EqualValues(t, 20*6, got.Calls, "the steps are the run's calls")
	require.Len(t, got.Flows, 1)
	f := got.Flows[0]
	assert.Equal(t, "agent", f.Name)
	assert.EqualValues(t, 20, f.Iterations)
	assert.EqualValues(t, 20, f.OK, "%v", f.FirstErrors)
	assert.Zero(t, f.ErrorRate)
	assert.Positive(t, f.IterationsPerSecond)
	assert.Equal(t, Summarize(iter), f.Latency)
	require.Len(t, f.Steps, 6)
	for _, s := range f.Steps {
		assert.EqualValues(t, 20, s.Calls, s.Name)
		assert.EqualValues(t, 20, s.Latency.Count, s.Name)
	}
	assert.Equal(t, "say", f.Steps[1].Name)
	assert.Equal(t, Summarize(say), f.Steps[1].Latency)
	assert.Equal(t, Summarize(hs), got.Handshake)
	assert.EqualValues(t, 4, got.Connect.Count)

	got.StripMethodHistograms()
	assert.Nil(t, got.Flows[0].HDR)
	assert.Nil(t, got.Flows[0].Steps[0].HDR)
	assert.Empty(t, got.HDR.Handshake)
	assert.NotEmpty(t, got.Members[0].HDR.Handshake, "the members keep theirs")
}
