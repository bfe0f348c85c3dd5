#!/bin/sh
# What tracing adds to each op of a llama.cpp decode, by thread count: for
# each count in THREADS, bench/llama-bench.sh's interleaved rounds of
# llama-bench untraced and traced (every op measured, every worker's share:
# the tools' default, and the other MODES), then one table:
#
#   THREADS  MODE    TG RATIO (95% INTERVAL)   NS AN OP   CPU NS AN OP   A THREAD   WRITER NS AN OP   SWITCHES
#
# TG RATIO is tokens/s traced / untraced (median of the rounds' ratios);
# NS AN OP what a generated token's time grew by, over its ops; CPU NS AN
# OP what the run's CPU time grew by, over the run's ops (prompt, warm-up
# and generation), and A THREAD the same over the threads; WRITER NS AN OP
# the writer thread's own CPU time over the run's ops (GGML_VIZ_VERBOSE's
# stop line); SWITCHES the run's context switches, untraced -> traced.
#
# What grows with threads shows in the CPU columns (each worker's share is
# its own work, in parallel: flat a thread), in the switches (a worker
# preempted by the writer on a core the program keeps busy), and in the
# tg ratio at the machine's core count and past it (THREADS may name more
# threads than cores: a count past the cores is marked, a worker then
# waits for a core at every barrier, traced or not).
#
#     bench/op-cost.sh [TOOLS] [-- LLAMA-BENCH ARGS...]
#
# TOOLS: as bench/llama-bench.sh (default third_party/llama-tools/build/bin).
# THREADS: the counts (default "1 2", and 4 8 16 ... up to the cores where
# there are more); ROUNDS (default 11) and MODES (default "plain traced
# ticks") go to llama-bench.sh, as do MODEL_WIDTH (576: SmolLM2-135M's
# shape) and llama-bench's arguments (default -p 64 -n 32 -r 3; -t is set
# here).
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tools="$top/third_party/llama-tools/build/bin"
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
	tools=$1
	shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
args=${*:--p 64 -n 32 -r 3}
case " $args " in *" -t "*)
	echo "op-cost.sh: THREADS sets the threads, not -t" >&2
	exit 2 ;;
esac
cores=$(nproc)
if [ -z "${THREADS:-}" ]; then
	THREADS="1 2"
	t=4
	while [ "$t" -le "$cores" ]; do
		THREADS="$THREADS $t"
		t=$((t * 2))
	done
fi
export ROUNDS="${ROUNDS:-11}" MODES="${MODES:-plain traced ticks}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/op-cost.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

echo "op-cost.sh: threads $THREADS on $cores cores; llama-bench $args; $ROUNDS rounds of $MODES"
for t in $THREADS; do
	echo "== $t thread(s)$([ "$t" -gt "$cores" ] && echo ", more than the $cores cores")"
	# shellcheck disable=SC2086 # llama-bench's arguments are words
	SUMMARY="$tmp/$t.json" "$top/bench/llama-bench.sh" "$tools" -- $args -t "$t" | sed 's/^/  /'
done

python3 - "$tmp" "$cores" $THREADS <<'PY'
import json, os, sys
tmp, cores, counts = sys.argv[1], int(sys.argv[2]), [int(t) for t in sys.argv[3:]]

def cell(v, fmt):
    return fmt % v if v is not None else '-'

print('\nTHREADS  MODE    TG RATIO (95% INTERVAL)   NS AN OP  CPU NS AN OP  A THREAD  '
      'WRITER NS AN OP  SWITCHES')
for t in counts:
    path = os.path.join(tmp, '%d.json' % t)
    if not os.path.exists(path):
        print('%-8s (no figures: llama-bench.sh failed)' % t)
        continue
    for mode, f in json.load(open(path))['modes'].items():
        tg = f.get('tg', {})
        ci = tg.get('ratio_ci')
        ratio = '%.3f (%s)' % (tg['ratio'], '%.3f-%.3f' % tuple(ci) if ci else 'few rounds') \
            if 'ratio' in tg else '-'
        cpu = f.get('cpu_ns_per_op')
        sw = f.get('switches')
        print('%-8s %-7s %-25s %9s %13s %9s %16s  %s' % (
            '%d%s' % (t, '*' if t > cores else ''), mode, ratio,
            cell(tg.get('ns_per_op'), '%.0f'), cell(cpu, '%.0f'),
            cell(cpu / t if cpu is not None else None, '%.0f'),
            cell(f.get('writer', {}).get('ns_per_op'), '%.1f'),
            '%.0f -> %.0f' % tuple(sw) if sw else '-'))
if any(t > cores for t in counts):
    print('* more threads than the %d cores: every barrier waits for a core, traced or not' % cores)
PY
