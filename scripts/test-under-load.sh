#!/usr/bin/env bash
# Runs `make test` RUNS times in a row (default 5) while two busy loops keep
# both cores of the machine at 100%, as CI's shared machine may be. It
# stops at the first failure and exits with its status; the busy loops
# are killed however it ends. Usage: scripts/test-under-load.sh [RUNS]
set -euo pipefail
runs=${1:-5}
cd "$(dirname "$0")/.."

busy=()
cleanup() { [ ${#busy[@]} -eq 0 ] || kill "${busy[@]}" 2>/dev/null || true; }
trap cleanup EXIT
for _ in 1 2; do
	# A shell loop that never sleeps: one core each, at normal priority.
	bash -c 'while :; do :; done' &
	busy+=($!)
done

for i in $(seq 1 "$runs"); do
	start=$(date +%s)
	echo "== make test, run $i of $runs, under two busy loops"
	if ! make test > "/tmp/test-under-load.$i.log" 2>&1; then
		echo "run $i FAILED after $(( $(date +%s) - start )) s; log: /tmp/test-under-load.$i.log"
		grep -E '^(--- FAIL|FAIL|panic)' "/tmp/test-under-load.$i.log" | head -20
		exit 1
	fi
	echo "run $i passed in $(( $(date +%s) - start )) s"
done
echo "make test passed $runs times in a row under two busy loops"
