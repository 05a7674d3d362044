#!/bin/sh
# Load tests with the engine CLI, from a clone: `make build` first (or put
# `engine` on the PATH with `go install ./cmd/engine` and set ENGINE=engine).
# Each line is one run; pick one, or run the file to try them all (about a
# minute). cmd/engine's TestExampleLoadScriptParses checks every `$ENGINE`
# line with the engine's own flag parsing.
set -eu
ENGINE=${ENGINE:-bin/engine}

# Closed model: 4 sessions (4 demo server processes), 8 calls in flight
# each, for 5 s; the text report on stdout.
$ENGINE load -s 4 -c 8 -z 5s

# Open model: 200 calls/s over 4 sessions for 5 s, after a 1 s warm-up,
# failing (exit 1) if the p99 passes 50 ms or any call fails.
$ENGINE load -s 4 -r 200 -z 5s --warmup 1s --threshold 'p99<50ms' --threshold 'error_rate<=0'

# A ramp of the arrival rate (open model), against a demo server slowed by 2 ms a call,
# with the reports written as HTML and JSON too.
$ENGINE load -s 8 --model open --stages 2s:100,5s:400,2s:0 --demo-args "--delay 2ms" -O text -O html=load-report.html -O json=load-report.json

# Any server: a stdio command or a URL (here a local `engine serve
# --transport http --listen 127.0.0.1:8080`, started by hand).
$ENGINE load --stdio "$ENGINE serve" -s 2 -c 4 -n 2000 --call add --args '{"a":1,"b":2}'
# $ENGINE load --url http://127.0.0.1:8080/mcp -s 8 -c 4 -z 10s
