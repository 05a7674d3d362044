# mcpengine — see README.md. Every target installs what it needs.
GO      ?= go
BIN     := bin/engine
PKGS    := ./...

.PHONY: all build demo test test-under-load test-short interop interop-update bench bench-peers lint fuzz node-deps clean deps-check

all: lint test

# The version `engine --version` prints: git describe, when git can tell.
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null)

# TAGS leaves cluster providers out (README.md): make build TAGS=noclusterk8s
TAGS ?=

build:
	$(GO) build -tags '$(TAGS)' -ldflags "-X main.buildVersion=$(VERSION)" -o $(BIN) ./cmd/engine

# The main job on the embedded default: a short load run against the demo
# server (started as subprocesses by the engine itself), then its report.
demo: build
	./$(BIN) load -s 4 -c 8 -z 5s

# The test command CI runs: race detector on, goleak in every package with
# goroutines, the fuzz seed corpus replayed, vet and formatting checked.
# cluster/'s tests that start several members in one process run without
# the race detector (protoactor-go's cluster races with itself, in code we
# do not own), so they get a run of their own.
test: lint node-deps
	$(GO) test -race -count=1 -timeout 20m $(PKGS)
	$(GO) test -count=1 -timeout 10m ./cluster/...
	$(MAKE) interop

# The engine against the official Go SDK server in each era mode, stdio and
# stateless HTTP (docs/INTEROP.md), its result cache against that server,
# and the peer harness run small (every row for every client). Its own
# module, like bench-peers, so that go-sdk never enters the main module;
# `make interop-update` rewrites the matrix.
interop:
	cd benchmarks && $(GO) test -race -count=1 ./...

interop-update:
	cd benchmarks && $(GO) test -count=1 -run '^TestInterop' . -update

# Non-Go MCP servers the tests drive as subprocesses (the official
# TypeScript reference server), pinned by testdata/node/package-lock.json.
# Skipped when Node is absent; the tests that need them skip too.
node-deps: testdata/node/node_modules/.installed
testdata/node/node_modules/.installed: testdata/node/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		cd testdata/node && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed; \
	else echo "npm not found: skipping the Node peer servers"; fi

# What an embedder links: the root package must not pull in the
# OpenTelemetry SDK or exporters, gRPC, Prometheus or the CLI's libraries
# (deps_test.go walks `go list -deps` and names the import chain of any).
# `make test` runs it too; this runs it alone.
deps-check:
	$(GO) test -count=1 -run '^TestRootPackageLinksNoCLIDependencies$$' .

test-short:
	$(GO) test -count=1 -short $(PKGS)

# Engine micro-benchmarks (memory and stdio transports, idle sessions).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 -timeout 30m .

# The peer comparison (go-sdk, mcp-go, a raw JSON-RPC loop; issues 17 and
# 14's rows against the Go SDK server) lives in its own module so the peers
# never enter the main module. About 9 minutes on 2 cores; a subset:
# cd benchmarks && go run ./cmd/peercompare -scenarios stdio-1x1 -rounds 1
bench-peers:
	cd benchmarks && $(GO) run ./cmd/peercompare -calls 10000 -rounds 3

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

# Every parser of untrusted bytes, FUZZTIME each (make fuzz FUZZTIME=5m).
FUZZTIME ?= 60s
fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFrame$$' -fuzztime $(FUZZTIME) ./messages/
	$(GO) test -run '^$$' -fuzz '^FuzzAppendDecodedFrame$$' -fuzztime $(FUZZTIME) ./messages/
	$(GO) test -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME) ./transport/internal/sse/
	$(GO) test -run '^$$' -fuzz '^FuzzParseConfig$$' -fuzztime $(FUZZTIME) .
	$(GO) test -run '^$$' -fuzz '^FuzzParseConfig$$' -fuzztime $(FUZZTIME) ./gateway/
	$(GO) test -run '^$$' -fuzz '^FuzzGatewayRequestBodies$$' -fuzztime $(FUZZTIME) ./gateway/

clean:
	rm -rf bin testdata/node/node_modules

# The official MCP conformance suite, client side, against bin/engine
# conformance (scripts/conformance.sh; docs/CONFORMANCE.md): 0.1.16 (all must
# pass), 0.2.0-alpha.12 (all 48, reported) and its required sets of 2025-11-25
# and 2026-07-28 (fails on a failure testdata/conformance/v0.2/
# expected-failures.yaml does not list). Installs Node 22 and the suites with
# npm, pinned by testdata/conformance/package-lock.json and v0.2/'s.
.PHONY: conformance
conformance: build
	./scripts/conformance.sh

.PHONY: report-screenshots
# The HTML load report photographed in headless Chromium (docs/*.png).
report-screenshots: build
	./scripts/report-screenshots.sh

.PHONY: soak
# The leak check (internal/soak): 1000 Streamable HTTP sessions and a few
# stdio ones calling and reconnecting for DURATION, heap, goroutines,
# descriptors and child processes sampled every 10s; fails on a trend.
DURATION ?= 10m
soak:
	SOAK_DURATION=$(DURATION) $(GO) test -count=1 -v -run '^TestSoak$$' -timeout 24h ./internal/soak/

.PHONY: faults
# The fault suite (internal/faultsuite): misbehaving stdio and HTTP servers
# driven through the public API, each checked against the contract
# (deadlines, typed errors, state, no leaks after Close); prints a table of
# what each fault measured. make test runs its fast subset.
faults:
	FAULTS_FULL=1 $(GO) test -race -count=1 -v -timeout 20m ./internal/faultsuite/

# `make test` RUNS times in a row (default 5) while two busy loops keep
# both cores at 100% (scripts/test-under-load.sh): a test that fails under
# load fails here.
RUNS ?= 5
test-under-load:
	scripts/test-under-load.sh $(RUNS)

.PHONY: bench-scale
# The scale benchmarks (benchmarks/scale_bench_test.go, docs/SCALE.md):
# 1,000 and 10,000 Streamable HTTP sessions against a demo server in a child
# process, over HTTP/1.1 and h2c: idle heap, goroutines and descriptors per
# session, and calls/s, errors and TIME_WAIT with one call in flight each.
# SCALE_100K=1 adds 100,000 idle sessions.
bench-scale:
	cd benchmarks && MCPENGINE_SCALE_100K=$(SCALE_100K) $(GO) test -run '^$$' -bench 'Scale' -benchtime=20000x -timeout 60m .

# The Go code of the protobuf messages between cluster members
# (cluster/clusterpb; the distributed load test's in
# cmd/engine/internal/loadgen/distributed/loadpb), checked in; CI does not regenerate it. The plugin
# is pinned to the google.golang.org/protobuf version in go.mod and
# installed into bin/tools; protoc itself comes from the system.
PROTOC_GEN_GO_VERSION = $(shell $(GO) list -m -f '{{.Version}}' google.golang.org/protobuf)
.PHONY: proto
proto:
	@command -v protoc >/dev/null || { echo "protoc not found: apt-get install protobuf-compiler (or https://github.com/protocolbuffers/protobuf/releases)"; exit 1; }
	GOBIN=$(CURDIR)/bin/tools $(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	protoc --plugin=protoc-gen-go=$(CURDIR)/bin/tools/protoc-gen-go \
		--go_out=. --go_opt=paths=source_relative cluster/clusterpb/session.proto \
		cmd/engine/internal/loadgen/distributed/loadpb/load.proto
