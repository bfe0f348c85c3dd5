#!/bin/sh
# The estimate of CPU op times from GGML's ticks, against the truth: the same
# runs of llama.cpp's llama-bench (built by scripts/build-llama-tools.sh,
# whose GGML measures every worker thread's share of every node) read two
# ways by ggmlviz stats: as measured, and --as-ticks, which keeps only what
# a GGML without the edit gives (thread 0's end of each node) and estimates
# the rest as for any ticked trace (stats/ticks.h). Printed per thread
# count and op type: the op time measured and estimated, their ratio, and
# each op's share of the measured time, and thread 0's wait at the barrier
# before the op (measured: what the estimate has to tell from the op in
# thread 0's ticks, over the op's measured time); then the barrier's wait,
# measured (every worker's, at every node) against the wait the estimate
# moved.
#
#     bench/ticks-truth.sh [--threads "1 2 4"] [--tools DIR] [-- LLAMA-BENCH ARGS...]
#
# --threads: the thread counts (default: 1, 2, 4, ... up to the machine's
# cores, and the cores); --tools: the folder of llama-bench (default
# third_party/llama-tools/build/bin). The model is make_tiny_llama's q8_0
# quick-start model (8 layers, 512 wide) unless -m is given (or MODEL_WIDTH
# asks for another, as bench/llama-bench.sh says); llama-bench's
# arguments default to -p 64 -n 32 -r 3. TICKS_TRUTH_JSON=FILE also writes
# every figure as JSON lines (tests/llama-tools.py reads them).
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tools="$top/third_party/llama-tools/build/bin"
ggmlviz=${GGMLVIZ:-$top/build/tools/ggmlviz}
threads=
while [ $# -gt 0 ]; do
	case "$1" in
	--threads) [ $# -ge 2 ] || { echo "ticks-truth.sh: --threads wants a list (\"1 2\")" >&2; exit 2; }
		threads=$2; shift ;;
	--tools) [ $# -ge 2 ] || { echo "ticks-truth.sh: --tools wants a folder" >&2; exit 2; }
		tools=$2; shift ;;
	--) shift; break ;;
	-h | --help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "ticks-truth.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done
[ -x "$tools/llama-bench" ] || {
	echo "ticks-truth.sh: no llama-bench in $tools (scripts/build-llama-tools.sh builds it)" >&2
	exit 1
}
[ -x "$ggmlviz" ] || { echo "ticks-truth.sh: no ggmlviz at $ggmlviz (make; or GGMLVIZ=PATH)" >&2; exit 1; }
if [ -z "$threads" ]; then
	cores=$(nproc 2>/dev/null || echo 2)
	t=1
	while [ "$t" -lt "$cores" ]; do threads="$threads $t"; t=$((t * 2)); done
	threads="$threads $cores"
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ticks-truth.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/tiny-model.sh"
args=$(tiny_model_args "$top" "$tmp" "$*") || exit 1
case " $args " in *" -p "*) ;; *) args="$args -p 64 -n 32 -r 3" ;; esac

echo "ticks-truth.sh: llama-bench $args, threads:$threads; ops measured (every worker's share) against estimated from thread 0's ticks (--as-ticks), the same runs"
for t in $threads; do
	trace="$tmp/t$t.ggmlviz"
	# shellcheck disable=SC2086 # llama-bench's arguments are words
	GGML_VIZ_OUTPUT="$trace" "$tools/llama-bench" $args -t "$t" >/dev/null 2>"$tmp/bench.err" ||
		{ cat "$tmp/bench.err" >&2; exit 1; }
	"$ggmlviz" stats -f json "$trace" >"$tmp/measured.json"
	"$ggmlviz" stats -f json --as-ticks "$trace" >"$tmp/estimated.json"
	"$ggmlviz" stats -f json --by thread "$trace" >"$tmp/threads.json"
	"$ggmlviz" dump -f jsonl "$trace" >"$tmp/records.jsonl"
	python3 - "$t" "$tmp" "${TICKS_TRUTH_JSON:-}" <<'PY'
import collections, json, os, sys
t, tmp, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
load = lambda n: json.load(open(os.path.join(tmp, n)))


def waits_before(path):
    """Thread 0's measured wait at the barrier before each op, by op name: its previous share's
    wait. Thread 0 writes a graph's shares, then its ops, on its own ring: a share is named by
    the next op record of its thread and tensor."""
    pending = collections.defaultdict(lambda: collections.defaultdict(list))
    last, before = {}, collections.Counter()
    for line in open(path):
        r = json.loads(line)
        if r['type'] == 'OP_SHARE' and r['thread_index'] == 0:
            p = last.get(r['tid'])
            pending[r['tid']][r['tensor']].append(p['wait_ns'] if p and p['node'] < r['node'] else 0)
            last[r['tid']] = r
        elif r['type'] == 'OP_COMPUTE_BEGIN':
            before[r['op']] += sum(pending[r['tid']].pop(r['tensor'], []))
    return before


m, e, th = load('measured.json'), load('estimated.json'), load('threads.json')
meas = {g['name']: g for g in m['groups']}
est = {g['name']: g for g in e['groups']}
total = sum(g['total_ns'] for n, g in meas.items() if n != '(run start)')
before = waits_before(os.path.join(tmp, 'records.jsonl'))
rows, cum = [], 0
for n, g in sorted(meas.items(), key=lambda kv: -kv[1]['total_ns']):
    if n == '(run start)':
        continue
    x = est.get(n, {}).get('total_ns', 0)
    cum += g['total_ns']
    rows.append({'threads': t, 'op': n, 'measured_ns': g['total_ns'], 'estimated_ns': x,
                 'count': g['count'], 'share': g['total_ns'] / total if total else 0,
                 'cumulative': cum / total if total else 0, 'measured_method': g.get('measured_ops', 0),
                 'wait_moved_ns': est.get(n, {}).get('barrier_wait_ns', 0),
                 'wait_before_ns': before.get(n, 0)})
waits = sum(g.get('barrier_wait_ns', 0) for g in th['groups'])
moved = e['ticks']['wait_ns_moved']
print('\n%d thread%s: %d ops measured, %d shares' % (t, '' if t == 1 else 's', m.get('measured_ops', 0),
                                                       m.get('shares', 0)))
print('  %-16s %12s %12s %9s %7s %7s %12s' % ('OP', 'MEASURED', 'ESTIMATED', 'EST/MEAS', 'SHARE',
                                               'CUM', 'WAIT BEFORE'))
ratio = lambda a, b: '%.3f' % (a / b) if b else '-'
for r in rows:
    print('  %-16s %10.3f ms %10.3f ms %9s %6.1f%% %6.1f%% %12s' % (
        r['op'], r['measured_ns'] / 1e6, r['estimated_ns'] / 1e6,
        ratio(r['estimated_ns'], r['measured_ns']), 100 * r['share'], 100 * r['cumulative'],
        ratio(r['wait_before_ns'], r['measured_ns'])))
print('  barrier waits: measured %.3f ms over every worker (%d threads, at every node); '
      'the estimate moved %.3f ms back to the ops that caused them' % (waits / 1e6, t, moved / 1e6))
if out:
    with open(out, 'a') as f:
        for r in rows:
            f.write(json.dumps(r) + '\n')
        f.write(json.dumps({'threads': t, 'measured_wait_ns': waits, 'estimated_wait_moved_ns': moved}) + '\n')
PY
done
