#!/bin/sh
# ggmlviz report in a real browser (TAP): Debian's chromium, headless,
# opens reports from disk and runs their script; tests/report-check.py then
# reads the page it drew. The real trace's page also opens on its generation
# phase from its address, and its per-phase data must be stats --phase's.
# Reports: a GGML (llama.cpp when built) trace, a
# trace as the original ggml-viz wrote it (no op names, a steady clock,
# partially overlapping ops), and a trace of a million events (the page
# under 40 MiB). A screenshot of the first is taken too, by
# scripts/report-screenshot.sh (the README's picture). Last, the page's own
# number formatting against C's printf, ties included.
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
if [ -x "$top_builddir/examples/llama_trace" ]; then
	grep -q 'Time per generated token by context length' "$T/real.dom" &&
		grep -q 'id="context-canvas"' "$T/real.dom"
	ok $? "report of real: time per generated token plotted against the context length"
fi
# GPU op times (the tracer with the tests' stand-in for CUPTI): kernels in their stream's lane
"$top_builddir/tests/gen-gpu" "$T/gpu.ggmlviz" 5 >/dev/null
report gpu "$T/gpu.ggmlviz" "GPU kernels recorded through"
# a first step that ran cold (gen-trace --cold): said in the health list, its figures stats'
"$GEN" --layers 4 --steps --graphs 4 --cold 4 "$T/cold.ggmlviz" >/dev/null
report cold "$T/cold.ggmlviz" "Layer 0 took 56.8% of the op time of step 1, the first (64.000 us), and 25.0% of the later steps" \
	"35.825 us more than that part, most likely the first step running cold"
# The page's data for one phase (its phase selectors) against stats --phase:
# same PAGE.html STATS.json KEY succeeds when data[KEY] has stats' groups and tokens.
cat >"$T/same.py" <<'PY'
import json, re, sys
page = open(sys.argv[1], encoding='utf-8').read()
data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S).group(1))
want, got = json.load(open(sys.argv[2])), data[sys.argv[3]]
keys = ('name', 'count', 'total_ns', 'min_ns', 'p50_ns', 'p95_ns', 'max_ns')
sys.exit(0 if [[g[k] for k in keys] for g in got['groups']] ==
         [[g[k] for k in keys] for g in want['groups']] and got['tokens'] == want['tokens'] else 1)
PY
"$G" stats -f json --phase generation "$T/real.ggmlviz" >"$T/real.gen.json"
"$PYTHON3" "$T/same.py" "$T/real.html" "$T/real.gen.json" by_op_generation
ok $? "report of real: the generation-only op table is stats --phase generation's"
for phase in prompt generation; do
	"$G" stats -f json --by layer --phase $phase "$T/real.ggmlviz" >"$T/real.$phase-layers.json"
	"$PYTHON3" "$T/same.py" "$T/real.html" "$T/real.$phase-layers.json" "by_layer_$phase"
	ok $? "report of real: the $phase layers are stats --by layer --phase $phase's"
done
# opened on one phase by its address (llama.cpp's trace has phases): the op
# table and the layer bars show that phase's, the layers with their time per token
if [ -x "$top_builddir/examples/llama_trace" ]; then
	chrome --dump-dom "file://$T/real.html#ops=generation&layers=generation" >"$T/real-gen.dom"
	# times written as the page and ggmlviz write them, for the checks below
	cat >"$T/fmt.py" <<'PY'
def fmt_ns(ns):
    for unit, div in (('s', 1e9), ('ms', 1e6), ('us', 1e3)):
        if ns >= div:
            return '%.3f %s' % (ns / div, unit)
    return '%.0f ns' % ns
PY
	n=$("$PYTHON3" "$top_srcdir/tests/report-check.py" "$n" "real opened on generation" \
		"$T/real-gen.dom" "$T/real.gen.json" | tee "$T/real-gen.check" | tail -n 1)
	sed '$d' "$T/real-gen.check"
	"$PYTHON3" - "$T/real-gen.dom" "$T/real.generation-layers.json" <<'PY'
import html, json, os, re, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from fmt import fmt_ns
dom = open(sys.argv[1], encoding='utf-8').read()
want = json.load(open(sys.argv[2]))
box = re.search(r'<h3>By layer</h3>(.*?)(<h3>|$)', dom, re.S).group(1)
labels = {html.unescape(name): html.unescape(label) for name, label in re.findall(
    r'<div>([^<]*)</div><div class="bar"[^>]*></div><div class="bar-label">([^<]*)</div>', box)}
bad = [g['name'] for g in want['groups']
       if not labels.get(g['name'], '').startswith(fmt_ns(g['total_ns'])) or
       not labels[g['name']].endswith('%s per token' % fmt_ns(g['total_ns'] / want['tokens']))]
for name in bad:
    g = next(g for g in want['groups'] if g['name'] == name)
    print('# layer %s: the page says %r; stats: %s, %s per token (%d ns over %d tokens)' % (
        name, labels.get(name), fmt_ns(g['total_ns']), fmt_ns(g['total_ns'] / want['tokens']),
        g['total_ns'], want['tokens']))
sys.exit(1 if bad or not want['groups'] else 0)
PY
	ok $? "report of real opened on generation: each layer's bar says stats --phase generation's time and time per token"
	"$PYTHON3" - "$T/real-gen.dom" "$T/real.gen.json" <<'PY'
import html, json, os, re, sys
sys.path.insert(0, os.path.dirname(sys.argv[1]))
from fmt import fmt_ns
dom = open(sys.argv[1], encoding='utf-8').read()
want = json.load(open(sys.argv[2]))
cells = {html.unescape(name): text for name, text in re.findall(
    r'<tr data-name="([^"]*)">.*?<td data-key="per_token_ns"[^>]*>([^<]*)</td>', dom)}
expect = {g['name']: fmt_ns(g['total_ns'] / want['tokens']) for g in want['groups']}
for name in sorted(set(cells) | set(expect)):
    if cells.get(name) != expect.get(name):
        print('# op %s: the page says %r per token; stats: %r' % (name, cells.get(name), expect.get(name)))
sys.exit(0 if want['groups'] and cells == expect else 1)
PY
	ok $? "report of real opened on generation: the op table's PER TOKEN is stats --phase generation's"
fi
# the page opens on ggmlviz advise's findings, and has stats --by part's parts (#46)
"$G" advise -f json "$T/real.ggmlviz" >"$T/real.advise.json" 2>/dev/null
"$PYTHON3" - "$T/real.dom" "$T/real.advise.json" <<'PY'
import json, re, sys
dom = open(sys.argv[1], encoding='utf-8').read()
want = [f['id'] for f in json.load(open(sys.argv[2]))['findings']]
first = re.search(r'<section id="([^"]*)"', dom)
box = re.search(r'<section id="findings-section"([^>]*)>(.*?)</section>', dom, re.S)
have = re.findall(r'<div class="finding [a-z]+" id="finding-([^"]+)"', box.group(2) if box else '')
print('# first section %s, findings %s against advise\'s %s' % (first and first.group(1), have, want))
sys.exit(0 if first and first.group(1) == 'findings-section' and box and 'hidden' not in box.group(1)
         and have == want else 1)
PY
ok $? "report of real: it opens on ggmlviz advise's findings, each of them"
if [ -x "$top_builddir/examples/llama_trace" ]; then
	"$G" stats -f json --by part "$T/real.ggmlviz" >"$T/real.parts.json"
	"$PYTHON3" "$T/same.py" "$T/real.html" "$T/real.parts.json" by_part
	ok $? "report of real: its parts are stats --by part's"
	grep -q 'id="parts-box"' "$T/real.dom"
	ok $? "report of real: the parts of the model drawn, each layer by part"
	# a step of 2 slots, 1 token each, is generation in stats: the chart colours it so
	"$top_builddir/examples/llama_trace" --model "$T/tiny.gguf" --generate 3 --sequences 2 \
		--output "$T/slots.ggmlviz" >/dev/null
	"$G" report "$T/slots.ggmlviz" -o "$T/slots.html" 2>/dev/null
	chrome --dump-dom "file://$T/slots.html" >"$T/slots.dom"
	want=$("$G" stats -f json --by step "$T/slots.ggmlviz" |
		"$PYTHON3" -c 'import json,sys; print(" ".join(g["phase"] for g in json.load(sys.stdin)["groups"]))')
	have=$(sed -n 's/.*id="steps-canvas"[^>]*data-colors="\([^"]*\)".*/\1/p;s/.*data-colors="\([^"]*\)"[^>]*id="steps-canvas".*/\1/p' "$T/slots.dom" | head -n 1)
	[ -n "$want" ] && [ "$have" = "$want" ] && [ "$want" = "prompt generation generation generation" ]
	ok $? "report of 2 slots: the By step chart colours each step by stats' phase ($have; stats: $want)"
fi
# a screenshot, by scripts/report-screenshot.sh, which makes doc/report.png from the quick start's report
sh "$top_srcdir/scripts/report-screenshot.sh" "$T/real.html" "$T/real.png" >"$T/shot.out" 2>&1
[ "$(od -An -tx1 -N24 "$T/real.png" 2>/dev/null | tr -d ' \n')" = \
	"89504e470d0a1a0a0000000d49484452000006400000047e" ] && [ "$(wc -c <"$T/real.png")" -gt 10000 ]
ok $? "report of real: scripts/report-screenshot.sh takes a 1600x1150 PNG of it"
sh "$top_srcdir/scripts/report-screenshot.sh" "$T/none.html" "$T/none.png" >"$T/shot-none.out" 2>&1
[ $? -eq 1 ] && grep -q "no $T/none.html: run ./quickstart.sh first" "$T/shot-none.out"
ok $? "scripts/report-screenshot.sh: no report, said with how to make one"

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

# 4. the page's numbers as C's printf writes them (tools/fmt.c, stats): an
# exact tie (1.0625 to 3 digits) to even, where JavaScript's toFixed rounds
# it up; report.js's own fixed(), run in chromium, against
# Python's '%.*f', which rounds as glibc does
{
	echo '<!DOCTYPE html><html><body><pre id="out"></pre><script>'
	sed -n '/^\tfunction fixed(x, digits) {$/,/^\t}$/p' \
		"$top_srcdir/tools/report/report.js"
	cat <<'JS'
var rows = [], xs = [1.0625, 2.0625, 0.25, 0.75, 1.0005, 924.5, 925.5, 999.9995, 0.05, 1e15];
for (var i = 0; i < 10000; i++) xs.push(i / 16, 1000 + i / 32, i / 1000 + 0.0005, i * 0.0390625);
xs.forEach(function (x) {
	[0, 1, 2, 3].forEach(function (d) { rows.push([d, x.toString(), fixed(x, d)]); });
});
document.getElementById('out').textContent = JSON.stringify(rows);
JS
	echo '</script></body></html>'
} >"$T/fixed.html"
chrome --dump-dom "file://$T/fixed.html" >"$T/fixed.dom"
"$PYTHON3" - "$T/fixed.dom" <<'PY'
import html, json, re, sys
m = re.search(r'<pre id="out">(.*?)</pre>', open(sys.argv[1], encoding='utf-8').read(), re.S)
try:
    rows = json.loads(html.unescape(m.group(1)))
except (AttributeError, ValueError):
    sys.exit('# the page wrote no numbers: report.js\'s fixed() not found, or failed')
bad = [(d, x, got, '%.*f' % (d, float(x))) for d, x, got in rows if got != '%.*f' % (d, float(x))]
for d, x, got, want in bad[:5]:
    print('# %s to %d digits: the page writes %s, C %s' % (x, d, got, want))
sys.exit(1 if bad or len(rows) < 100000 else 0)
PY
ok $? "report: the page writes numbers as C's printf does, an exact tie to even (1.0625: 1.062)"

echo "1..$n"
