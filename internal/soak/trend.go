package soak

import (
	"fmt"
	"math"
)

// series is one sampled quantity over a run.
type series struct {
	name  string
	unit  string
	value []float64
}

// slope is the least-squares slope of the values against their index,
// in units per sample.
func slope(v []float64) float64 {
	n := float64(len(v))
	if n < 2 {
		return 0
	}
	var sx, sy, sxx, sxy float64
	for i, y := range v {
		x := float64(i)
		sx += x
		sy += y
		sxx += x * x
		sxy += x * y
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0
	}
	return (n*sxy - sx*sy) / d
}

// growth judges a series by its second half, after the warm-up that
// fills pools and caches: the fitted rise over that half, against the
// level it holds. A leak shows as a rise that keeps going; noise and
// warm-up do not. allowed is the rise tolerated over the half, as a
// fraction of its mean, plus an absolute floor for small quantities.
func growth(s series, fraction, floor float64) (rise float64, ok bool) {
	half := s.value[len(s.value)/2:]
	if len(half) < 3 {
		return 0, true
	}
	var mean float64
	for _, v := range half {
		mean += v
	}
	mean /= float64(len(half))
	rise = slope(half) * float64(len(half)-1)
	return rise, rise <= math.Max(fraction*mean, floor)
}

func (s series) String() string {
	out := fmt.Sprintf("%-12s", s.name)
	for _, v := range s.value {
		out += fmt.Sprintf(" %8.1f", v)
	}
	return out + " " + s.unit
}
