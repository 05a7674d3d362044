package export

import (
	"fmt"
	"io"
	"sync"

	"go.opentelemetry.io/otel/exporters/stdout/stdoutmetric"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// newStdoutExporters writes spans and metrics to w as pretty-printed JSON.
// The two exporters run on different goroutines (the batch processor's and
// the periodic reader's), so they share w through a lock: each encodes a
// whole document per Write, and the lock keeps documents whole on writers
// that are not safe for concurrent use.
func newStdoutExporters(w io.Writer) (sdktrace.SpanExporter, sdkmetric.Exporter, error) {
	lw := &lockedWriter{w: w}
	spanExp, err := stdouttrace.New(stdouttrace.WithWriter(lw), stdouttrace.WithPrettyPrint())
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: stdout trace exporter: %w", err)
	}
	metricExp, err := stdoutmetric.New(stdoutmetric.WithWriter(lw), stdoutmetric.WithPrettyPrint())
	if err != nil {
		return nil, nil, fmt.Errorf("telemetry: stdout metric exporter: %w", err)
	}
	return spanExp, metricExp, nil
}

type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
