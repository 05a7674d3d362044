package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mcpengine/mcpengine/cmd/engine/internal/loadgen"
)

func openFlowResult() *loadgen.Result {
	return &loadgen.Result{
		Schema: loadgen.SchemaVersion, Target: "demo", Model: string(loadgen.Open), Rate: 20,
		Sessions: 1, Concurrency: 4, Duration: 20 * time.Second, Seconds: 20,
		Flows:       []loadgen.FlowResult{{Name: "browse", Iterations: 380}},
		Schedule:    &loadgen.Schedule{Intended: 400, Sent: 380, Unsent: 20, Dropped: 20},
		Supervision: loadgen.SupervisionStats{Reconnects: 2, Restarts: 2, NotReadyS: 1.5},
		Protocols:   []loadgen.ProtocolUse{{Version: "2026-07-28", Era: "modern", Connects: 1}},
		Client:      loadgen.ClientStats{Cores: 2, CPUs: 2, CPUSeconds: 1},
	}
}

// In a run of flows the open model's arrivals are iterations, not calls;
// the reports say what they count.
func TestTextReportSaysWhatItCounts(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, Text(&b, openFlowResult()))
	out := b.String()
	assert.Contains(t, out, "open model, 20 flow iterations/s in total")
	assert.Contains(t, out, "Schedule:    400 flow iterations due, 380 sent")
	assert.Contains(t, out, "(20 dropped: due while every session was busy, the duration ended first)")
	assert.Contains(t, out, "Supervision: 2 reconnects by the engine (2 restarts), 1.50s not ready")
	assert.Contains(t, out, "(GOMAXPROCS 2, 2 CPUs usable)")
	assert.NotContains(t, out, "calls/s in total")
}

// The HTML names the handshake as the text does and shows the dropped
// calls and the supervision.
func TestHTMLReportAgreesWithTheText(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, HTML(&b, openFlowResult()))
	out := b.String()
	assert.Contains(t, out, "<th>discover p50</th>")
	assert.NotContains(t, out, "initialize p50")
	assert.Contains(t, out, "<th>dropped</th>")
	assert.Contains(t, out, "<th>reconnects</th>")
	assert.True(t, strings.Contains(out, "GOMAXPROCS 2, 2 CPUs usable"))
}
