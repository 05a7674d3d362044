// Package disttest checks the report of a distributed load run, for the
// tests of the coordinator (cmd/engine/internal/loadgen/distributed) and of
// `engine load --join` (cmd/engine). It is for _test.go files only.
package disttest

import (
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

// LatencyIsTheMembersMerged asserts that the run's latency summary is the
// members' histograms merged by hand, compared as the JSON report holds
// them (whole microseconds): percentiles come from the merge, never from
// averaging the members' percentiles.
func LatencyIsTheMembersMerged(t testing.TB, r *loadgen.Result) {
	t.Helper()
	h := merged(t, r, func(d loadgen.HDRDump) string { return d.Latency })
	assert.Equal(t, us(loadgen.Summarize(h)), us(r.Latency))
}

// ConnectIsTheMembersMerged asserts the same of the run's connect and
// handshake figures: every member that made calls (a lost one included:
// its reports carried them) sent its handshake histogram, and the run's
// connect (transport phase) and handshake percentiles are the members'
// merged by hand, not the highest member's.
func ConnectIsTheMembersMerged(t testing.TB, r *loadgen.Result) {
	t.Helper()
	for _, m := range r.Members {
		if m.Calls > 0 {
			assert.NotEmpty(t, m.HDR.Handshake, "member %s (%s) sent its handshake histogram", m.Address, m.Status)
		}
	}
	hs := merged(t, r, func(d loadgen.HDRDump) string { return d.Handshake })
	require.Positive(t, hs.TotalCount(), "the members timed their handshakes")
	assert.Equal(t, us(loadgen.Summarize(hs)), us(r.Handshake), "handshake")
	assert.Equal(t, r.Handshake.Count, r.Connect.Count, "one handshake per connect")

	conn := merged(t, r, func(d loadgen.HDRDump) string { return d.Connect })
	if conn.TotalCount() == 0 { // no transport phase timed apart
		return
	}
	c := loadgen.Summarize(conn)
	want := []int64{c.Min.Microseconds(), c.P50.Microseconds(), c.P99.Microseconds(), c.Max.Microseconds()}
	got := []int64{r.Connect.Min.Microseconds(), r.Connect.P50.Microseconds(), r.Connect.P99.Microseconds(), r.Connect.Max.Microseconds()}
	assert.Equal(t, want, got, "connect")
}

// merged is the members' histograms of one kind merged.
func merged(t testing.TB, r *loadgen.Result, of func(loadgen.HDRDump) string) *hdrhistogram.Histogram {
	t.Helper()
	h := loadgen.NewHistogram()
	for _, m := range r.Members {
		mh, err := loadgen.DecodeHDR(of(m.HDR))
		require.NoError(t, err)
		h.Merge(mh)
	}
	return h
}

// us is a summary as the JSON report holds it (whole microseconds).
func us(l loadgen.Latency) []int64 {
	return []int64{l.Count, l.Min.Microseconds(), l.P50.Microseconds(), l.P90.Microseconds(), l.P95.Microseconds(),
		l.P99.Microseconds(), l.P999.Microseconds(), l.Max.Microseconds()}
}

// PartialRun asserts the report of a run of count calls whose member at
// victim was killed after it had answered atKill of them: the run is
// partial, the victim is lost with its calls up to its death kept, every
// other member finished its share, and the total is the members' sum.
func PartialRun(t testing.TB, r *loadgen.Result, victim string, atKill, count int64) {
	t.Helper()
	assert.True(t, r.Partial)
	var sum int64
	for _, m := range r.Members {
		sum += m.Calls
		if m.Address == victim {
			assert.Equal(t, loadgen.MemberLost, m.Status)
			assert.NotEmpty(t, m.Error)
			assert.GreaterOrEqual(t, m.Calls, atKill, "its calls up to its death count")
			assert.Less(t, m.Calls, m.Count)
		} else {
			assert.Equal(t, loadgen.MemberFinished, m.Status)
			assert.Equal(t, m.Count, m.Calls)
		}
	}
	assert.Equal(t, r.Calls, sum)
	assert.Less(t, r.Calls, count)
	LatencyIsTheMembersMerged(t, r)
	ConnectIsTheMembersMerged(t, r)
}
