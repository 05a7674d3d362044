package loadgen

import "github.com/HdrHistogram/hdrhistogram-go"

// FlowResult is one flow's figures: its iterations as wholes, and each
// step as a request of its own.
type FlowResult struct {
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	// Iterations counts the measured iterations: OK (every step passed)
	// plus Failed, whose class is that of the first failed step.
	Iterations int64 `json:"iterations"`
	OK         int64 `json:"ok"`
	Failed     int64 `json:"failed"`
	// Aborted counts the failed iterations whose remaining steps were
	// not run (abort_on_fail).
	Aborted             int64             `json:"aborted"`
	ErrorRate           float64           `json:"error_rate"`
	IterationsPerSecond float64           `json:"iterations_per_s"`
	Errors              ErrorCounts       `json:"errors"`
	FirstErrors         map[string]string `json:"first_errors,omitempty"`
	// Latency is the whole iteration, pauses included (open model: from
	// the arrival's scheduled time).
	Latency Latency        `json:"latency_us"`
	Steps   []MethodResult `json:"steps"`
	// HDR holds the iterations' histogram (in Latency) with
	// Config.MethodHistograms, for a caller that merges Results.
	HDR *HDRDump `json:"hdr,omitempty"`
}

// flowResults merges the sessions' iterations of every flow; steps are
// the steps' figures by flow, h a histogram to reuse; keep asks for the
// iterations' histograms in FlowResult.HDR.
func (r *runner) flowResults(steps [][]MethodResult, seconds float64, h *hdrhistogram.Histogram, keep bool) []FlowResult {
	var out []FlowResult
	for i, f := range r.wl.flows {
		h.Reset()
		fr := FlowResult{Name: f.Name, Weight: f.Weight, Steps: steps[i]}
		var counts [numClasses]int64
		first := map[string]string{}
		for _, sl := range r.slots {
			sl.stats.mu.Lock()
			fs := sl.stats.flows[i]
			if fs != nil {
				fs.latency.MergeInto(h)
				for c := range numClasses {
					counts[c] += fs.counts[c]
					if msg := fs.firstErr[c]; msg != "" && first[c.String()] == "" {
						first[c.String()] = msg
					}
				}
				fr.Aborted += fs.aborted
			}
			sl.stats.mu.Unlock()
		}
		fr.OK = counts[OK]
		fr.Errors = errorCounts(&counts)
		fr.Failed = fr.Errors.Total()
		fr.Iterations = fr.OK + fr.Failed
		fr.ErrorRate = ratio(fr.Failed, fr.Iterations)
		if seconds > 0 {
			fr.IterationsPerSecond = float64(fr.Iterations) / seconds
		}
		if len(first) > 0 {
			fr.FirstErrors = first
		}
		fr.Latency = Summarize(h)
		if keep {
			fr.HDR = &HDRDump{Latency: encodeHDR(h)}
		}
		out = append(out, fr)
	}
	return out
}
