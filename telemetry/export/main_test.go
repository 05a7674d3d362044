package export

import (
	"testing"

	"go.uber.org/goleak"
)

// The exporters, the Prometheus server and the test collectors all run
// goroutines; every test must leave none behind once its pipeline is shut
// down and its servers are closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
