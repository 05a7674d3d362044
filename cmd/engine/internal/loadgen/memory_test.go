package loadgen

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// latencyOf draws from 500 distinct latencies spread from 1µs to ~10s
// (geometrically, as real latencies spread).
func latencyOf(i int) time.Duration {
	k := (i * 7919) % 500
	return time.Duration(math.Pow(10, 7*float64(k)/500)) * time.Microsecond
}

// A session's histograms hold the same memory after two million calls as
// after the first two hundred thousand: once a run has seen its latency
// distribution, recording more calls costs nothing, so a 12-hour soak
// costs what a short run does. (A packed histogram's counts widen from 1
// to 2, 4 and 8 bytes as they pass 255, 65535 and 2^32: three steps in
// all, whatever the run's length; both points here are at 2 bytes.)
func TestHistogramMemoryIsFlat(t *testing.T) {
	s := newSlotStats(2, true, DefaultLateAfter)
	x := sample{timed: true}
	record := func(from, to int) {
		for i := from; i < to; i++ {
			x.req = i % 2
			x.service = latencyOf(i)
			x.latency = 2 * x.service
			x.lag = time.Duration(i%50) * 100 * time.Microsecond
			s.record(&x)
			if i%50_000 == 0 {
				s.drainInto(newInterval(true)) // the sampler's interval reset
			}
		}
	}
	record(0, 200_000)
	after200k := s.histogramBytes()
	record(200_000, 2_000_000)
	after2M := s.histogramBytes()
	t.Logf("histogram memory of one session with 2 request kinds: %d bytes after 200k calls, %d after 2M", after200k, after2M)
	assert.Equal(t, after200k, after2M)
	assert.Less(t, after2M, 64<<10)
	var n int64
	for _, m := range s.methods {
		n += m.service.TotalCount()
	}
	assert.EqualValues(t, 2_000_000, n)
}

// The same over a whole run: the Result's histogram memory does not grow
// with the number of calls.
func TestRunHistogramMemoryDoesNotGrowWithCalls(t *testing.T) {
	run := func(n int64) *Result {
		res, err := Run(t.Context(), Config{
			Target:   demoTarget(demoserver.Options{}),
			Sessions: 2, Concurrency: 4, Count: n, Method: messages.MethodPing,
		})
		require.NoError(t, err)
		return res
	}
	small, big := run(2_000), run(40_000)
	t.Logf("histogram memory: %d bytes after %d calls, %d after %d", small.Client.HistogramBytes, small.Calls, big.Client.HistogramBytes, big.Calls)
	// A longer run's latencies reach more buckets (how many depends on
	// how the machine's load spreads them, so no ratio is asserted that
	// load can break), never a number proportional to its calls: the
	// packed histograms stay under the bound their buckets set.
	assert.Less(t, big.Client.HistogramBytes, small.Client.HistogramBytes*20, "20 times the calls, less than 20 times the memory")
	assert.Less(t, big.Client.HistogramBytes, int64(256<<10))
}

func BenchmarkRecord(b *testing.B) {
	s := newSlotStats(1, true, DefaultLateAfter)
	x := sample{timed: true}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		x.service = latencyOf(i)
		x.latency = x.service
		s.record(&x)
	}
	b.ReportMetric(float64(s.histogramBytes()), "hist-bytes")
}
