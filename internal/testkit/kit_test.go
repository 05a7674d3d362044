package testkit

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestEventuallyReturnsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	Eventually(t, time.Minute, func() bool { calls++; return calls == 3 }, "never %d", 3)
	assert.Equal(t, 3, calls, "checked until it held, not after")
}

func TestCtxEndsWithTheTest(t *testing.T) {
	var ctx interface{ Err() error }
	t.Run("inner", func(t *testing.T) { ctx = Ctx(t, time.Hour) })
	assert.Error(t, ctx.Err(), "cancelled by the inner test's cleanup")
}
