package report

import "testing"

func TestTickLabelsHideBinaryRounding(t *testing.T) {
	for v, want := range map[float64]string{3 * 0.2: "0.6", 0.1 + 0.2: "0.3", 1.25: "1.25", 100000: "100000", 0: "0", 2.5e-7: "0"} {
		if got := tickLabel(v); got != want {
			t.Errorf("tickLabel(%v) = %q, want %q", v, got, want)
		}
	}
}
