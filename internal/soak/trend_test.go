package soak

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestGrowthTellsALeakFromALevel(t *testing.T) {
	flat := series{name: "flat", value: []float64{10, 30, 50, 52, 49, 51, 50, 48, 51, 50}}
	_, ok := growth(flat, 0.05, 1)
	assert.True(t, ok, "warm-up then a level is no leak")

	leak := series{name: "leak", value: []float64{10, 20, 30, 40, 50, 60, 70, 80, 90, 100}}
	rise, ok := growth(leak, 0.05, 1)
	assert.False(t, ok, "a steady rise is a leak")
	assert.InDelta(t, 30, rise, 1e-9, "the floor of the last third (70) against the middle third's (40)")

	small := series{name: "fds", value: []float64{12, 12, 13, 12, 12, 13, 12, 13, 12, 13}}
	_, ok = growth(small, 0, 2)
	assert.True(t, ok, "jitter of one descriptor is within the floor")

	// Bursts caught now and then, more of them late in the run, over a
	// flat floor: no leak. The same floor rising under them: a leak.
	bursty := series{name: "goroutines"}
	leaky := series{name: "goroutines"}
	for i := range 60 {
		v, w := 9800.0, 9800.0+float64(i)*60
		if i%3 == 0 || i > 40 && i%2 == 0 {
			v, w = v+3500, w+3500
		}
		bursty.value = append(bursty.value, v)
		leaky.value = append(leaky.value, w)
	}
	_, ok = growth(bursty, 0.05, 20)
	assert.True(t, ok, "peaks are not a leak")
	_, ok = growth(leaky, 0.05, 20)
	assert.False(t, ok, "a rising floor is")

	assert.InDelta(t, 2, slope([]float64{1, 3, 5, 7}), 1e-9)
	assert.Zero(t, slope([]float64{4}))
}
