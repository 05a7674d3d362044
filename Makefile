# mcpengine — see README.md. Every target installs what it needs.
GO      ?= go
BIN     := bin/engine
PKGS    := ./...

.PHONY: all build demo test test-short interop interop-update bench bench-peers lint fuzz node-deps clean

all: lint test

build:
	$(GO) build -o $(BIN) ./cmd/engine

# The main job on the embedded default: a short load run against the demo
# server (started as subprocesses by the engine itself), then its report.
demo: build
	./$(BIN) load -s 4 -c 8 -z 5s

# The test command CI runs: race detector on, goleak in every package with
# goroutines, the fuzz seed corpus replayed, vet and formatting checked.
test: lint node-deps
	$(GO) test -race -count=1 -timeout 20m $(PKGS)
	$(MAKE) interop

# The engine against the official Go SDK server in each era mode, stdio and
# stateless HTTP (docs/INTEROP.md). Its own module, like bench-peers, so
# that go-sdk never enters the main module; `make interop-update` rewrites
# the matrix.
interop:
	cd benchmarks && $(GO) test -race -count=1 -run '^TestInterop' .

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

test-short:
	$(GO) test -count=1 -short $(PKGS)

# Engine micro-benchmarks (memory and stdio transports, idle sessions).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 -timeout 30m .

# The peer comparison (go-sdk, mcp-go, a raw JSON-RPC loop) lives in its own
# module so the peers never enter the main module.
bench-peers:
	cd benchmarks && $(GO) run ./cmd/peercompare -calls 20000 -rounds 3

STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

fuzz:
	$(GO) test -run '^$$' -fuzz '^FuzzDecodeFrame$$' -fuzztime 60s ./messages/
	$(GO) test -run '^$$' -fuzz '^FuzzAppendDecodedFrame$$' -fuzztime 60s ./messages/

clean:
	rm -rf bin testdata/node/node_modules

# The official MCP conformance suite, client side, against bin/engine
# conformance (scripts/conformance.sh; docs/CONFORMANCE.md). Installs Node 22
# and the suite with npm, pinned by testdata/conformance/package-lock.json.
.PHONY: conformance
conformance: build
	./scripts/conformance.sh
