package export

import (
	"context"
	"fmt"
	"runtime/debug"

	"go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/mcpengine/mcpengine/telemetry"
)

// defaultServiceName is service.name unless OTEL_SERVICE_NAME (or
// service.name in OTEL_RESOURCE_ATTRIBUTES) says otherwise.
const defaultServiceName = "mcpengine"

// newResource describes the process the telemetry comes from. The
// environment is applied last so OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES override the defaults, as the spec asks. The
// schema URL is the one the SDK's own detectors use, so merging them does
// not conflict.
func newResource(ctx context.Context, version string) (*resource.Resource, error) {
	if version == "" {
		version = moduleVersion()
	}
	res, err := resource.New(ctx,
		resource.WithSchemaURL(semconv.SchemaURL),
		resource.WithAttributes(semconv.ServiceName(defaultServiceName), semconv.ServiceVersion(version)),
		resource.WithTelemetrySDK(),
		resource.WithFromEnv(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry: resource: %w", err)
	}
	return res, nil
}

// moduleVersion is this module's version from the build info: the main
// module's when the binary is mcpengine's own CLI, the dependency's when
// mcpengine is a library; "dev" for a local build, as the CLI's --version.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	v := ""
	if bi.Main.Path == telemetry.InstrumentationName {
		v = bi.Main.Version
	}
	for _, d := range bi.Deps {
		if d.Path == telemetry.InstrumentationName {
			v = d.Version
		}
	}
	if v == "" || v == "(devel)" {
		return "dev"
	}
	return v
}
