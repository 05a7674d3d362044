#!/usr/bin/env bash
# report-screenshots.sh - render the HTML report of two short load runs
# against the embedded demo server (an open model ramping its rate, a
# closed model) and photograph each in headless Chromium at the width
# people use, into docs/ (what `make report-screenshots` runs).
#
# Needs bin/engine (make build) and Chromium: the Debian package chromium,
# installed with apt-get when missing and this runs as root.
set -euo pipefail
cd "$(dirname "$0")/.."
ENGINE="${ENGINE:-./bin/engine}"
OUT="${OUT:-docs}"
WIDTH="${WIDTH:-1400}"

browser=""
for b in chromium chromium-browser google-chrome; do
	if command -v "$b" >/dev/null 2>&1; then browser="$(command -v "$b")"; break; fi
done
if [ -z "$browser" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
		browser="$(command -v chromium)"
	else
		echo "report-screenshots: no Chromium (apt-get install chromium)" >&2
		exit 2
	fi
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$ENGINE" load --model open --stages 3s:400,3s:400 -s 4 -c 8 -q -O html="$tmp/open.html" >/dev/null
"$ENGINE" load -s 4 -c 8 -z 5s -q -O html="$tmp/closed.html" >/dev/null

shoot() { # shoot HTML PNG HEIGHT
	# The flags keep a headless Chromium off the network entirely; the
	# report has no external resource to fetch.
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$tmp/profile" --hide-scrollbars --window-size="$WIDTH,$3" \
		--screenshot="$2" "file://$1" >/dev/null 2>&1
	[ -s "$2" ] || { echo "report-screenshots: Chromium wrote no $2" >&2; exit 1; }
}
shoot "$tmp/open.html" "$OUT/load-report-open.png" 2700
shoot "$tmp/closed.html" "$OUT/load-report-closed.png" 2700
echo "report-screenshots: $OUT/load-report-open.png, $OUT/load-report-closed.png"
