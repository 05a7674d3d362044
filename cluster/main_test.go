package cluster

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, testkit.ProtoactorThrottleWaits...)
}
