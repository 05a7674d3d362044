package loadgen

import (
	"fmt"
	"testing"
	"time"

	"github.com/mcpengine/mcpengine/demoserver"
	"github.com/mcpengine/mcpengine/messages"
)

// BenchmarkSchedulePrecision measures how late the open model sends its
// calls at fixed rates against an idle in-process server: the send lag
// percentiles are the generator's own error, which every latency it
// reports contains. One iteration is a 2-second run.
//
//	go test -run '^$' -bench BenchmarkSchedulePrecision -benchtime 3x ./cmd/engine/internal/loadgen/
func BenchmarkSchedulePrecision(b *testing.B) {
	for _, rate := range []float64{500, 2000, 10000} {
		b.Run(fmt.Sprintf("rate=%.0f", rate), func(b *testing.B) {
			var p50, p99, cpu float64
			for b.Loop() {
				res, err := Run(b.Context(), Config{
					Target:   demoTarget(demoserver.Options{}),
					Sessions: 4, Concurrency: 32, Rate: rate, Duration: 2 * time.Second,
					Method: messages.MethodPing,
				})
				if err != nil {
					b.Fatal(err)
				}
				p50 += float64(res.Schedule.SendLag.P50.Microseconds())
				p99 += float64(res.Schedule.SendLag.P99.Microseconds())
				cpu += res.Client.CPUPercent
			}
			n := float64(b.N)
			b.ReportMetric(p50/n, "lag-p50-µs")
			b.ReportMetric(p99/n, "lag-p99-µs")
			b.ReportMetric(cpu/n, "client-cpu-%")
			b.ReportMetric(0, "ns/op")
		})
	}
}
