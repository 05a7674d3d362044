package mcpengine_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpengine/mcpengine/internal/testkit"
)

// rootPackage is what an embedder imports.
const rootPackage = "github.com/mcpengine/mcpengine"

// cliOnly are import path prefixes an embedder must not link just by
// importing the root package: the OpenTelemetry SDK and exporters (a
// library depends on the OpenTelemetry API only; the application picks the
// SDK), gRPC, Prometheus, and what only the CLI and the load generator use.
// They live in telemetry/export, gateway/ and cmd/engine (the load
// generator in cmd/engine/internal/loadgen);
// protoactor's remote and cluster (with gRPC) only in cluster/ and what
// imports it (gateway/ for cluster gateways, cmd/engine). The engine's
// actors run on protoactor-go's actor package as published, which links a
// Prometheus chain (tolerated, below).
var cliOnly = []string{
	"google.golang.org/grpc",
	"go.opentelemetry.io/otel/exporters",
	"go.opentelemetry.io/otel/sdk",
	"go.opentelemetry.io/proto/otlp",
	"github.com/prometheus",
	"github.com/spf13/cobra",
	"github.com/spf13/pflag",
	"go.yaml.in/yaml",
	"github.com/HdrHistogram",
	"github.com/santhosh-tekuri/jsonschema",
	"github.com/ohler55/ojg",
	"github.com/mcpengine/mcpengine/telemetry/export",
	"github.com/mcpengine/mcpengine/cmd",     // the CLI and its load generator (cmd/engine/internal/loadgen)
	"github.com/mcpengine/mcpengine/cluster", // and its clusterpb
	"github.com/asynkron/protoactor-go/remote",
	"github.com/asynkron/protoactor-go/cluster",
	"github.com/mcpengine/mcpengine/gateway",
	"github.com/mcpengine/mcpengine/internal/oauthtest", // test support: _test.go files only
	"github.com/mcpengine/mcpengine/internal/testkit",   // test support: _test.go files only
}

// tolerated are the only import edges into cliOnly the root package may
// have, and the walk follows none of them. protoactor-go's actor/config.go
// imports the OpenTelemetry Prometheus exporter, the metric SDK and
// promhttp for an opt-in default meter provider (defaultPrometheusProvider)
// that nothing calls; Go links them anyway, and with them what they import
// (client_golang, its promhttp's copy of gddo/httputil, prometheus/common,
// the metric SDK's internals). The engine uses the actor package as
// published: a copy without that provider would be another project's code
// in this tree, and the newest protoactor-go in the module proxy is the
// one pinned (v0.0.0-20240822202345). Tolerating the three edges, and only
// from github.com/asynkron/protoactor-go/actor, keeps every other way to
// reach gRPC, the SDK or Prometheus an error: a package of ours importing
// any of them directly, or protoactor's remote or cluster. The test fails
// when an edge disappears, so that the exception goes as soon as
// protoactor stops needing it.
var tolerated = map[string][]string{
	"github.com/asynkron/protoactor-go/actor": {
		"github.com/prometheus/client_golang/prometheus/promhttp",
		"go.opentelemetry.io/otel/exporters/prometheus",
		"go.opentelemetry.io/otel/sdk/metric",
	},
}

// TestRootPackageLinksNoCLIDependencies keeps the root package a lean
// library: it walks the import graph `go list -deps` reports for it and
// fails, naming the import chain, on any package matching cliOnly.
// `make deps-check` runs it.
func TestRootPackageLinksNoCLIDependencies(t *testing.T) {
	graph := testkit.ImportGraph(t, rootPackage)
	if _, ok := graph[rootPackage]; !ok {
		t.Fatalf("go list -deps did not report %s", rootPackage)
	}
	for from, tos := range tolerated {
		for _, to := range tos {
			if !slices.Contains(graph[from], to) {
				t.Errorf("%s no longer imports %s: remove it from tolerated", from, to)
			}
		}
	}
	// Breadth first, so the chain printed for a bad package is a shortest one.
	parent := map[string]string{rootPackage: ""}
	queue := []string{rootPackage}
	for len(queue) > 0 {
		pkg := queue[0]
		queue = queue[1:]
		for _, imp := range graph[pkg] {
			if _, seen := parent[imp]; seen || slices.Contains(tolerated[pkg], imp) {
				continue
			}
			parent[imp] = pkg
			if isCLIOnly(imp) {
				t.Errorf("the root package links %s: %s", imp, testkit.ImportChain(parent, imp))
				continue // its own imports would only repeat the finding
			}
			queue = append(queue, imp)
		}
	}
}

func isCLIOnly(pkg string) bool {
	for _, p := range cliOnly {
		if pkg == p || strings.HasPrefix(pkg, p+"/") {
			return true
		}
	}
	return false
}
