#!/bin/sh
# What a traced generated token costs its thread around its graph, with a
# GGML that gives its graphs no id (this project's own, a distribution's):
# examples/llama_trace on the quick start's model (or MODEL), traced, and
# from each trace the medians over its generated steps of the step, the
# time before its graph's first ask (llama.cpp's own work, the step's
# start) and after its graph's last tick (the run's descriptions and
# records, the step's end), and the trace's bytes. The end is where the
# tracer describes a run and writes it: a graph computed again is
# described once there since the adapter names runs
# (<ggmlviz/ggml-name.h>).
#
#     bench/step-end.sh [BUILD] [BEFORE_BUILD]
#
# BUILD: the build folder (default build); BEFORE_BUILD: another build's
# folder, whose llama_trace runs in turn with BUILD's (a before and after
# in one run, the order rotating). RUNS (5) runs of each, TOKENS (64)
# generated, THREADS (1 2); MODEL a GGUF file (default BUILD/demo.gguf,
# which ./quickstart.sh writes).
#
# SPDX-License-Identifier: MIT
set -eu

build=${1:-build}
before=${2:-}
model=${MODEL:-$build/demo.gguf}
runs=${RUNS:-5}
tokens=${TOKENS:-64}
threads=${THREADS:-1 2}
[ -x "$build/examples/llama_trace" ] || { echo "step-end.sh: $build/examples/llama_trace is not built" >&2; exit 1; }
[ -z "$before" ] || [ -x "$before/examples/llama_trace" ] ||
	{ echo "step-end.sh: $before/examples/llama_trace is not built" >&2; exit 1; }
[ -f "$model" ] || { echo "step-end.sh: no model $model (./quickstart.sh writes it)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/step-end.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One traced run of build $1 at $2 threads: a line "build threads step before after bytes".
one() {
	"$1/examples/llama_trace" --model "$model" --generate "$tokens" --threads "$2" \
		--output "$tmp/t.ggmlviz" >/dev/null 2>&1
	"$build/tools/ggmlviz" dump --format jsonl "$tmp/t.ggmlviz" >"$tmp/t.jsonl"
	python3 - "$3" "$2" "$tmp/t.jsonl" "$(wc -c <"$tmp/t.ggmlviz")" <<'PY'
import json, statistics, sys
name, threads, path, size = sys.argv[1:5]
rows, cur = [], None
for line in open(path):
    r = json.loads(line)
    t = r['type']
    if t == 'STEP_BEGIN':
        cur = {'b': r['ts']}
    elif cur is None:
        continue
    elif t == 'SPLIT_BEGIN' and 'sb' not in cur:
        cur['sb'] = r['ts']
    elif t == 'SPLIT_END':
        cur['se'] = r['ts']
    elif t == 'STEP_END':
        if 'sb' in cur and 'se' in cur and r.get('n_tokens') == 1:
            rows.append((r['ts'] - cur['b'], cur['sb'] - cur['b'], r['ts'] - cur['se']))
        cur = None
rows = rows[2:]  # a graph's first runs are described: the steady state after
med = [statistics.median(x[k] for x in rows) / 1e3 if rows else 0 for k in range(3)]
print(name, threads, '%.1f %.1f %.1f' % tuple(med), size)
PY
}

for t in $threads; do
	i=0
	while [ "$i" -lt "$runs" ]; do
		if [ -n "$before" ] && [ $((i % 2)) = 1 ]; then
			one "$before" "$t" before; one "$build" "$t" after
		else
			one "$build" "$t" after
			[ -z "$before" ] || one "$before" "$t" before
		fi
		i=$((i + 1))
	done
done >"$tmp/rows"

python3 - "$tmp/rows" "$tokens" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
print('step-end.sh: %s generated tokens a run; medians over the runs of each run\'s medians '
      '(its generated steps but the first two), us' % sys.argv[2])
print('BUILD   THREADS  RUNS  STEP     BEFORE ITS GRAPH  AFTER ITS GRAPH (RANGE)   TRACE BYTES')
for name in ('before', 'after'):
    for t in sorted({r[1] for r in rows}, key=int):
        got = [r for r in rows if r[0] == name and r[1] == t]
        if not got:
            continue
        col = lambda k: [float(r[k]) for r in got]
        after = col(4)
        print('%-7s %7s %5d  %7.1f  %16.1f  %6.1f (%.1f to %.1f)  %11d' % (
            name, t, len(got), statistics.median(col(2)), statistics.median(col(3)),
            statistics.median(after), min(after), max(after),
            int(statistics.median(int(r[5]) for r in got))))
PY
