package soak

import (
	"fmt"
	"math"
	"slices"
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

// growth judges a series by the rise of its floor: the least value of
// its last third against the least value of its middle third (the first
// third is the warm-up that fills pools and caches). What a leak leaves
// behind raises every later floor; bursts of work caught at a sampling
// instant (a wave of reconnects) are peaks above the floor and do not,
// however often they come. allowed is the rise tolerated, as a fraction
// of the last third's floor, with an absolute minimum for small
// quantities.
func growth(s series, fraction, floor float64) (rise float64, ok bool) {
	third := len(s.value) / 3
	if third < 2 {
		return 0, true
	}
	middle := slices.Min(s.value[third : 2*third])
	last := slices.Min(s.value[2*third:])
	rise = last - middle
	return rise, rise <= math.Max(fraction*last, floor)
}

func (s series) String() string {
	out := fmt.Sprintf("%-12s", s.name)
	for _, v := range s.value {
		out += fmt.Sprintf(" %8.1f", v)
	}
	return out + " " + s.unit
}
