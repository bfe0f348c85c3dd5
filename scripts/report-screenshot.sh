#!/bin/sh
# Makes doc/report.png, the README's picture, from the report the quick
# start writes (report.html at the top of the checkout, from demo.ggmlviz),
# so that the picture is what a newcomer opens: Debian's chromium, headless
# (scripts/install-deps.sh installs it), draws its first 1600x1150 pixels.
#
#   ./quickstart.sh                       (writes report.html)
#   scripts/report-screenshot.sh [REPORT.html] [OUT.png]
#
# REPORT.html defaults to the quick start's report.html, OUT.png to
# doc/report.png. Take it on a quiet machine: the report's findings say
# when other work took the run's CPUs (cpus-taken), and the picture would
# show that instead of the run.
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
report=${1:-$top/report.html}
out=${2:-$top/doc/report.png}

die() {
	printf 'report-screenshot: %s\n' "$*" >&2
	exit 1
}

[ -f "$report" ] || die "no $report: run ./quickstart.sh first (it writes report.html), or name a report"
browser=
for b in chromium chromium-browser google-chrome; do
	command -v "$b" >/dev/null 2>&1 && browser=$b && break
done
[ -n "$browser" ] || die "chromium is needed (scripts/install-deps.sh installs it)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
report_abs=$(cd "$(dirname "$report")" && pwd)/$(basename "$report")
# no sandbox: CI and the quick start run as root; its own profile, thrown away;
# the virtual time lets the page's script draw before the picture is taken
timeout 300 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
	--user-data-dir="$tmp/profile" --window-size=1600,1150 --virtual-time-budget=10000 \
	--screenshot="$tmp/shot.png" "file://$report_abs" >"$tmp/browser.log" 2>&1 ||
	{ tail -5 "$tmp/browser.log" >&2; die "$browser could not draw $report"; }
[ -s "$tmp/shot.png" ] || die "$browser wrote no picture"
mv "$tmp/shot.png" "$out"
echo "report-screenshot: $out from $report"
