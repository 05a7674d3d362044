package telemetry

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestZeroProvidersAreNoOpsThatRecordNothing(t *testing.T) {
	var p Providers
	_, span := p.EngineTracer().Start(context.Background(), "x")
	assert.False(t, span.IsRecording())
	span.End()
	assert.NotNil(t, p.MeterProvider().Meter(InstrumentationName))
}
