#!/bin/sh
# ggmlviz report in a real browser (TAP): Debian's chromium, headless,
# opens reports from disk and runs their script; tests/report-check.py then
# reads the page it drew. Reports: a GGML (llama.cpp when built) trace, a
# trace as the original ggml-viz wrote it (no op names, a steady clock,
# partially overlapping ops), and a trace of a million events (the page
# under 40 MiB). A screenshot of the first is taken too.
#
# Needs chromium (scripts/install-deps.sh installs it): without it the test
# fails, saying so.
#
# SPDX-License-Identifier: MIT
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
G=$top_builddir/tools/ggmlviz
GEN=$top_builddir/tests/gen-trace
PYTHON3=${PYTHON3:-python3}
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-report.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/tap.sh"

browser=
for b in chromium chromium-browser google-chrome; do
	command -v "$b" >/dev/null 2>&1 && browser=$b && break
done
if [ -z "$browser" ] || ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - chromium and python3 are needed (apt-get install chromium python3)"
	exit 0
fi
chrome() { # OUTPUT-ARGS... URL: headless, no sandbox (CI runs as root), its own profile
	timeout 300 "$browser" --headless=new --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$T/profile" "$@" 2>>"$T/browser.log"
}

# report NAME TRACE [EXPECTED HEALTH TEXT...]
report() {
	name=$1 trace=$2
	shift 2
	"$G" report "$trace" -o "$T/$name.html" 2>"$T/$name.err"
	ok $? "report of $name: written"
	"$G" stats -f json "$trace" >"$T/$name.stats.json" 2>/dev/null
	start=$(date +%s)
	chrome --dump-dom "file://$T/$name.html" >"$T/$name.dom"
	ok $? "report of $name: chromium opens it ($(($(date +%s) - start)) s with startup)"
	n=$("$PYTHON3" "$top_srcdir/tests/report-check.py" "$n" "$name" "$T/$name.dom" \
		"$T/$name.stats.json" "$@" | tee "$T/$name.check" | tail -n 1)
	sed '$d' "$T/$name.check"
}

# 1. a real trace: llama.cpp if it was built, else GGML, else the generator's
if [ -x "$top_builddir/examples/llama_trace" ]; then
	"$top_builddir/examples/make_tiny_llama" "$T/tiny.gguf" --layers 4 >/dev/null &&
		"$top_builddir/examples/llama_trace" --model "$T/tiny.gguf" --generate 8 \
			--output "$T/real.ggmlviz" >/dev/null
elif [ -x "$top_builddir/examples/ggml_transformer" ]; then
	"$top_builddir/examples/ggml_transformer" --layers 2 --steps 4 --output "$T/real.ggmlviz" \
		>/dev/null
else
	"$GEN" "$T/real.ggmlviz" >/dev/null
fi
report real "$T/real.ggmlviz"
# the table of one phase (the page's phase selector): the groups of stats --phase
"$G" stats -f json --phase generation "$T/real.ggmlviz" >"$T/real.gen.json"
"$PYTHON3" - "$T/real.html" "$T/real.gen.json" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
want = json.load(open(sys.argv[2]))
keys = ('name', 'count', 'total_ns', 'min_ns', 'p50_ns', 'p95_ns', 'max_ns')
got = [[g[k] for k in keys] for g in data['by_op_generation']['groups']]
sys.exit(0 if got == [[g[k] for k in keys] for g in want['groups']] and
         data['by_op_generation']['tokens'] == want['tokens'] else 1)
PY
ok $? "report of real: the generation-only op table is stats --phase generation's"
chrome --window-size=1400,1100 --screenshot="$T/real.png" "file://$T/real.html" >/dev/null
[ "$(wc -c <"$T/real.png" 2>/dev/null || echo 0)" -gt 10000 ]
ok $? "report of real: a screenshot is taken"

# 2. as the original ggml-viz wrote it
"$GEN" --original --graphs 20 "$T/original.ggmlviz" >/dev/null
report original "$T/original.ggmlviz" "steady clock" "assumed from GGML"
grep -q '"op_names_assumed":true' "$T/original.html"
ok $? "report of original: its ops are named, and said to be assumed"

# 3. a million events: the page stays under 40 MiB, short ops drawn as density
"$GEN" --size-mb 58 "$T/big.ggmlviz" >/dev/null
report big "$T/big.ggmlviz" "density strip"
size=$(wc -c <"$T/big.html")
[ "$size" -lt $((40 << 20)) ]
ok $? "report of a million events: $size bytes, under 40 MiB"

echo "1..$n"
