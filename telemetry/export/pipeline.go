package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/mcpengine/mcpengine/telemetry"
)

// Export modes: the values of the CLI's --otel flag.
const (
	ModeOff    = "off"    // no traces or metrics pushed (Prometheus may still serve)
	ModeOTLP   = "otlp"   // OTLP, configured only by the OTEL_EXPORTER_OTLP_* variables
	ModeStdout = "stdout" // pretty-printed JSON on Options.Writer, for debugging
)

// Modes lists the modes Start accepts ("" means ModeOff).
func Modes() []string { return []string{ModeOff, ModeOTLP, ModeStdout} }

// Options say where the engine's telemetry goes. The zero value sends
// it nowhere.
type Options struct {
	// Mode is one of Modes; "" is ModeOff.
	Mode string
	// Writer receives ModeStdout's output; nil means os.Stdout.
	Writer io.Writer
	// PrometheusAddr, when set, serves /metrics there from the same meter
	// provider the OTLP or stdout reader uses. A bare port or ":port" binds
	// the loopback interface.
	PrometheusAddr string
	// PrometheusAllowNonLoopback lets PrometheusAddr name a non-loopback
	// interface (e.g. "0.0.0.0:9464"). Off by default: the metrics name the
	// servers the engine talks to, which is not for every network neighbour.
	PrometheusAllowNonLoopback bool
	// ServiceVersion is the resource's service.version; "" uses the module
	// version from the build info ("dev" for a local build).
	ServiceVersion string
}

// Pipeline is the running export: the providers to hand to the engine, and
// the exporters behind them. Shut it down to flush what is buffered.
type Pipeline struct {
	// Providers report to every configured exporter; the zero value (mode
	// off, no Prometheus) reports nothing.
	Providers telemetry.Providers

	tp    *sdktrace.TracerProvider
	mp    *sdkmetric.MeterProvider
	prom  *PrometheusServer
	lines []string

	once sync.Once
	err  error
}

// Start builds the providers opts describe. With both an export mode and a
// Prometheus address, the one MeterProvider feeds both: the periodic reader
// pushes, the Prometheus reader is scraped. ctx bounds only the setup; the
// pipeline lives until Shutdown.
//
// Nothing is registered globally: the engine takes its providers from its
// Config, never from otel's globals.
func Start(ctx context.Context, opts Options) (_ *Pipeline, err error) {
	mode := strings.ToLower(strings.TrimSpace(opts.Mode))
	if mode == "" {
		mode = ModeOff
	}
	// Validate everything that can be wrong before starting anything, so a
	// typo in a flag or a variable does not leave a bound port behind.
	var protos otlpProtocols
	switch mode {
	case ModeOff, ModeStdout:
	case ModeOTLP:
		if protos, err = resolveOTLPProtocols(); err != nil {
			return nil, err
		}
		if err = checkOTLPEnv(); err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("telemetry: unknown export mode %q: valid modes are %s", opts.Mode, strings.Join(Modes(), ", "))
	}
	if mode == ModeOff && opts.PrometheusAddr == "" {
		return &Pipeline{lines: []string{"telemetry: off"}}, nil
	}

	res, err := newResource(ctx, opts.ServiceVersion)
	if err != nil {
		return nil, err
	}
	p := &Pipeline{}
	// On any later failure, release what was already started.
	defer func() {
		if err != nil {
			_ = p.shutdown(context.Background())
		}
	}()

	// Prometheus first: it is the part that can fail for reasons outside the
	// process (a port in use), and the deferred shutdown releases it if an
	// exporter below cannot be built.
	var readers []sdkmetric.Option
	if opts.PrometheusAddr != "" {
		if p.prom, err = ServePrometheus(ctx, opts.PrometheusAddr, opts.PrometheusAllowNonLoopback); err != nil {
			return nil, err
		}
		readers = append(readers, sdkmetric.WithReader(p.prom.Reader()))
	}

	var (
		spanExp   sdktrace.SpanExporter
		metricExp sdkmetric.Exporter
	)
	switch mode {
	case ModeOTLP:
		spanExp, metricExp, err = newOTLPExporters(ctx, protos)
		p.lines = append(p.lines, describeOTLP(protos)...)
	case ModeStdout:
		w := opts.Writer
		if w == nil {
			w = os.Stdout
		}
		spanExp, metricExp, err = newStdoutExporters(w)
		p.lines = append(p.lines, "telemetry: stdout, pretty-printed JSON (metrics every OTEL_METRIC_EXPORT_INTERVAL, default 60s, and at shutdown)")
	}
	if err != nil {
		return nil, err
	}
	if metricExp != nil {
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(metricExp)))
	}
	if p.prom != nil {
		p.lines = append(p.lines, "telemetry: prometheus metrics at "+p.prom.URL())
	}

	p.mp = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
	p.Providers.Meter = p.mp
	if spanExp != nil {
		// A batch processor: a span's End must not wait on the network.
		p.tp = sdktrace.NewTracerProvider(sdktrace.WithBatcher(spanExp), sdktrace.WithResource(res))
		p.Providers.Tracer = p.tp
	}
	p.lines = append(p.lines, "telemetry: resource "+describeResource(res))
	return p, nil
}

// String describes the configuration for a startup log line: endpoints,
// protocols and header names, never header values or URL credentials.
func (p *Pipeline) String() string { return strings.Join(p.lines, "\n") }

// PrometheusURL is where /metrics is served, or "" without Prometheus.
func (p *Pipeline) PrometheusURL() string {
	if p.prom == nil {
		return ""
	}
	return p.prom.URL()
}

// Shutdown flushes buffered spans and a final metric collection to the
// exporters, shuts the providers down and stops serving /metrics, all
// bounded by ctx. Later calls return the first call's result.
func (p *Pipeline) Shutdown(ctx context.Context) error {
	p.once.Do(func() { p.err = p.shutdown(ctx) })
	return p.err
}

func (p *Pipeline) shutdown(ctx context.Context) error {
	// Traces and metrics flush concurrently so a slow trace endpoint does not
	// use up the metrics' share of ctx.
	var (
		wg               sync.WaitGroup
		traceErr, metErr error
	)
	if p.tp != nil {
		wg.Go(func() { traceErr = p.tp.Shutdown(ctx) })
	}
	if p.mp != nil {
		wg.Go(func() { metErr = p.mp.Shutdown(ctx) })
	}
	wg.Wait()
	var promErr error
	if p.prom != nil {
		promErr = p.prom.Stop(ctx)
	}
	return errors.Join(wrapErr("traces", traceErr), wrapErr("metrics", metErr), wrapErr("prometheus", promErr))
}

func wrapErr(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("telemetry: shutting down %s: %w", what, err)
}
