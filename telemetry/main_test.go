package telemetry

import (
	"testing"

	"go.uber.org/goleak"
)

// The tests start spans from several goroutines and the benchmark runs the
// SDK's batch span processor; none may outlive its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
