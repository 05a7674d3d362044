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
	assert.InDelta(t, 40, rise, 1e-9, "the second half rises by 40")

	small := series{name: "fds", value: []float64{12, 12, 13, 12, 12, 13, 12, 13, 12, 13}}
	_, ok = growth(small, 0, 2)
	assert.True(t, ok, "jitter of one descriptor is within the floor")

	assert.InDelta(t, 2, slope([]float64{1, 3, 5, 7}), 1e-9)
	assert.Zero(t, slope([]float64{4}))
}
