package loadgen

import (
	"encoding/json"
	"math"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Histogram bounds: 1µs to 60s at 3 significant digits. Longer values are
// recorded as 60s.
const (
	HistMin     = 1
	HistMax     = int64(60 * time.Second / time.Microsecond)
	HistSigFigs = 3
)

// NewHistogram returns an empty dense histogram with the bounds above, in
// microseconds. Dense histograms (~140 KiB each) are used only for the
// run's merged totals; everything recorded per session is packed.
func NewHistogram() *hdrhistogram.Histogram { return hdrhistogram.New(HistMin, HistMax, HistSigFigs) }

// newPacked returns an empty sparse histogram with the same geometry. Its
// memory grows with the number of distinct latency buckets hit, which the
// geometry bounds, never with the number of calls: a 12-hour soak records
// into the same few KiB as a 10-second run.
func newPacked() *hdrhistogram.PackedHistogram {
	return hdrhistogram.NewPacked(HistMin, HistMax, HistSigFigs)
}

// micros converts a duration to the histogram's unit, clamped to its range.
func micros(d time.Duration) int64 {
	us := d.Microseconds()
	switch {
	case us < HistMin:
		return HistMin
	case us > HistMax:
		return HistMax
	}
	return us
}

// Latency summarises a latency distribution. It is encoded in JSON as
// whole microseconds.
type Latency struct {
	Min, Mean, StdDev, P50, P90, P95, P99, P999, Max time.Duration
	// Count is the number of values summarised.
	Count int64
}

type latencyJSON struct {
	Count  int64 `json:"count"`
	Min    int64 `json:"min"`
	Mean   int64 `json:"mean"`
	StdDev int64 `json:"stddev"`
	P50    int64 `json:"p50"`
	P90    int64 `json:"p90"`
	P95    int64 `json:"p95"`
	P99    int64 `json:"p99"`
	P999   int64 `json:"p99_9"`
	Max    int64 `json:"max"`
}

// MarshalJSON encodes l in microseconds.
func (l Latency) MarshalJSON() ([]byte, error) {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	return json.Marshal(latencyJSON{l.Count, us(l.Min), us(l.Mean), us(l.StdDev), us(l.P50), us(l.P90), us(l.P95), us(l.P99), us(l.P999), us(l.Max)})
}

// UnmarshalJSON decodes what MarshalJSON encodes.
func (l *Latency) UnmarshalJSON(b []byte) error {
	var j latencyJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := fromMicros
	*l = Latency{d(j.Min), d(j.Mean), d(j.StdDev), d(j.P50), d(j.P90), d(j.P95), d(j.P99), d(j.P999), d(j.Max), j.Count}
	return nil
}

func fromMicros(us int64) time.Duration { return time.Duration(us) * time.Microsecond }

func floatMicros(us float64) time.Duration { return time.Duration(us * float64(time.Microsecond)) }

// histogramReader is what a summary reads: both the dense Histogram and
// the sparse PackedHistogram have it.
type histogramReader interface {
	TotalCount() int64
	ValueAtPercentilesSlice([]float64) []int64
	Min() int64
	Max() int64
	Mean() float64
	StdDev() float64
}

// Summarize reads a latency summary from a histogram of microseconds.
func Summarize(h *hdrhistogram.Histogram) Latency {
	if h == nil {
		return Latency{}
	}
	return summarize(h)
}

// summarizePacked is Summarize for a sparse histogram.
func summarizePacked(h *hdrhistogram.PackedHistogram) Latency {
	if h == nil {
		return Latency{}
	}
	return summarize(h)
}

func summarize(h histogramReader) Latency {
	if h.TotalCount() == 0 {
		return Latency{}
	}
	q := h.ValueAtPercentilesSlice([]float64{50, 90, 95, 99, 99.9})
	return Latency{
		Count:  h.TotalCount(),
		Min:    fromMicros(h.Min()),
		Mean:   floatMicros(h.Mean()),
		StdDev: floatMicros(h.StdDev()),
		P50:    fromMicros(q[0]),
		P90:    fromMicros(q[1]),
		P95:    fromMicros(q[2]),
		P99:    fromMicros(q[3]),
		P999:   fromMicros(q[4]),
		Max:    fromMicros(h.Max()),
	}
}

// Percentile is one point of a latency-by-percentile curve.
type Percentile struct {
	P         float64 `json:"p"`
	LatencyUS int64   `json:"latency_us"`
	ServiceUS int64   `json:"service_us"`
}

// spectrumPoints are the percentiles of the HdrHistogram-style curve.
var spectrumPoints = []float64{0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.95, 99.99, 99.999, 100}

func spectrum(lat, svc *hdrhistogram.Histogram) []Percentile {
	if lat.TotalCount() == 0 {
		return nil
	}
	lq := lat.ValueAtPercentilesSlice(spectrumPoints)
	sq := svc.ValueAtPercentilesSlice(spectrumPoints)
	out := make([]Percentile, len(spectrumPoints))
	for i, p := range spectrumPoints {
		out[i] = Percentile{P: p, LatencyUS: lq[i], ServiceUS: sq[i]}
	}
	out[0].LatencyUS, out[0].ServiceUS = lat.Min(), svc.Min()
	return out
}

// Bucket is one bar of a latency histogram: Count values at most LeUS
// microseconds and above the previous bucket's bound.
type Bucket struct {
	LeUS  int64 `json:"le_us"`
	Count int64 `json:"count"`
}

// logBuckets bins h into perDecade logarithmic buckets between its min and
// max (bounds 1, 2, 5 style when perDecade is 3; finer otherwise).
func logBuckets(h *hdrhistogram.Histogram, perDecade int) []Bucket {
	if h.TotalCount() == 0 {
		return nil
	}
	lo, hi := float64(h.Min()), float64(h.Max())
	step := math.Pow(10, 1/float64(perDecade))
	// Start at the bucket boundary just below lo, on the decade grid.
	start := math.Pow(10, math.Floor(math.Log10(max(lo, 1))))
	for start*step <= lo {
		start *= step
	}
	var bounds []int64
	for b := start * step; ; b *= step {
		bounds = append(bounds, int64(math.Ceil(b)))
		if b >= hi {
			break
		}
	}
	out := make([]Bucket, len(bounds))
	for i := range bounds {
		out[i].LeUS = bounds[i]
	}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := bar.From
		i := 0
		for i < len(bounds)-1 && v > bounds[i] {
			i++
		}
		out[i].Count += bar.Count
	}
	return out
}

// NiceBuckets bins h on the 1-2-5 grid (1µs, 2µs, 5µs, 10µs, …) from the
// bound just above its minimum to the one at or above its maximum, for
// tables people read.
func NiceBuckets(h *hdrhistogram.Histogram) []Bucket {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	lo, hi := h.Min(), h.Max()
	var bounds []int64
	for dec := int64(1); ; dec *= 10 {
		done := false
		for _, m := range []int64{1, 2, 5} {
			b := dec * m
			if b < lo && len(bounds) == 0 {
				continue
			}
			bounds = append(bounds, b)
			if b >= hi {
				done = true
				break
			}
		}
		if done || dec > HistMax {
			break
		}
	}
	out := make([]Bucket, len(bounds))
	for i, b := range bounds {
		out[i].LeUS = b
	}
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		i := 0
		for i < len(bounds)-1 && bar.From > bounds[i] {
			i++
		}
		out[i].Count += bar.Count
	}
	return out
}
