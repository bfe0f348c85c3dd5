#!/bin/sh
# What tracing adds to a llama.cpp decode, in ns an op, with no counter
# read inside the decode: llama-bench linked again with bench/op-pair.c,
# which times each generated token's decode whole, in pairs on one
# context: one decode traced and one untraced as llama-bench runs with no
# GGML_VIZ_OUTPUT (the session's mask cleared and the tracer's callbacks
# taken off the context for that decode), which goes first drawn at
# random; and, at each thread count, the median of the pairs' differences
# an op with its 95% interval (bench/median_interval.py). Two tokens of a
# ms side by side share what the machine does far more than two rounds
# or two processes do. Modes: ab, traced as the tools trace (every op
# timed, every worker's share measured); steps, a session of steps alone
# (GGML_VIZ_OP_TIMING=0), its cost over the same ops; aa, both decodes of
# a pair traced: the method's control, whose interval should hold 0;
# stopped (not in the default MODES), the tracer's callbacks left on the
# context with no session running, its ops as ab's: what a context made
# while tracing costs after the stop (OP_PAIR_DROP=abort or eval: that
# callback taken off its traced half too, which of the two it is).
#
#   THREADS  MODE  PAIRS  DECODE (US, OFF)  RUNS: ON LESS OFF (NS AN OP)  PAIRS POOLED
#
# bench/op-self.sh times each call into the library apart, its counter
# fenced: its sum holds each time read's whole latency and a miss's whole
# wait, where in a decode they overlap the work around them; it says which
# call costs what, this says what the decode took longer. Not held here:
# the writer's passes, which fall on whichever decode they meet, traced or
# not (op-self.sh prints the writer's CPU an op; llama-bench.sh's tokens a
# second hold it). A traced decode after an untraced one finds the
# tracer's lines no warmer than after a traced one.
#
#     bench/op-pair.sh [TOOLS_BUILD]
#
# TOOLS_BUILD: the tools' build folder (default third_party/llama-tools/build).
# THREADS (default "1 2"), TOKENS (128: llama-bench -n), REPS (20: -r), RUNS
# (3: processes of each mode) and MODES ("ab steps aa") as the environment
# says. Each run's pairs give its median; the first figure is the median
# of the runs' (a process's layout moves a run's by tens of ns an op, more
# than its pairs' interval: take RUNS=21 or more), the second that of
# every pair pooled. EACH=1 prints each run's. BEFORE_LIB=FILE also links
# the tools with that libggmlviz.a and runs it as mode "before" (the two
# builds' turns swapped every other run), and prints "after-bef": each
# run's median less the before run's beside it, their median and its 95%
# interval. ANY_TIMING=1 takes a build whose ops are not all measured (a
# trial). x86-64 only (the time-stamp counter). About 40 s on the
# project's machine with the defaults; RUNS=21 REPS=8, 3 minutes.
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tb=${1:-$top/third_party/llama-tools/build}
THREADS=${THREADS:-1 2} TOKENS=${TOKENS:-128} REPS=${REPS:-20} RUNS=${RUNS:-3}
[ -f "$tb/build.ninja" ] || { echo "op-pair.sh: no $tb/build.ninja (scripts/build-llama-tools.sh builds it)" >&2; exit 1; }
[ -x "$top/build/tools/ggmlviz" ] || { echo "op-pair.sh: build/tools/ggmlviz is not built" >&2; exit 1; }
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$tb/CMakeCache.txt" 2>/dev/null || :)
[ -f "$src/include/llama.h" ] || { echo "op-pair.sh: no llama.h in the tools' sources ($src)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/op-pair.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cc -O2 -std=gnu11 -I"$top/include" -I"$src/include" -I"$src/ggml/include" \
	-c "$top/bench/op-pair.c" -o "$tmp/op-pair.o"
mkdir "$tmp/a" "$tmp/b"
. "$top/bench/relink.sh"
wrap="$tmp/op-pair.o -Wl,--wrap=ggmlviz_tools_decode,--wrap=llama_init_from_model,--wrap=ggml_backend_sched_set_eval_callback"
pair=$(relink_command "$tb" "$tmp/a/llama-bench" "$wrap")
(cd "$tb" && eval "$pair")
modes=${MODES:-ab steps aa}
case " $modes " in *" ab "*) ;; *)
	echo "op-pair.sh: MODES ($modes) must hold ab: its traced decodes give the ops a token" >&2
	exit 2 ;;
esac
if [ -n "${BEFORE_LIB:-}" ]; then # the same tools linked with an earlier libggmlviz.a
	before=$(relink_command "$tb" "$tmp/b/llama-bench" "$wrap" "$BEFORE_LIB")
	(cd "$tb" && eval "$before")
	# shellcheck disable=SC2086 # the modes, a word each
	modes="ab before $(printf '%s\n' $modes | grep -vx 'ab\|before' | tr '\n' ' ')"
fi
"$top/build/examples/make_tiny_llama" "$tmp/model.gguf" --layers 8 --embd 512 --heads 8 \
	--kv-heads 4 --ff 1408 --vocab 2048 --type q8_0 >/dev/null

echo "op-pair.sh: llama-bench -p 0 -n $TOKENS -r $REPS on the quick start's model, each generated token's decode timed whole, in pairs traced and untraced; $RUNS runs a mode"
for t in $THREADS; do
	for run in $(seq "$RUNS"); do
		order=$modes # the two builds' turns swapped every other run
		[ $((run % 2)) = 0 ] && [ -n "${BEFORE_LIB:-}" ] && order=$(echo "$modes" | sed 's/ab before/before ab/')
		for mode in $order; do
			out="$tmp/$t.$mode.$run"
			bin="$tmp/a/llama-bench"
			[ "$mode" = before ] && bin="$tmp/b/llama-bench"
			timing= # a session of steps alone: GGML_VIZ_OP_TIMING=0
			[ "$mode" = steps ] && timing=GGML_VIZ_OP_TIMING=0
			# shellcheck disable=SC2086 # the setting, or nothing
			env GGML_VIZ_OUTPUT="$out.ggmlviz" $timing \
				OP_PAIR="${mode#before}" OP_PAIR_OUT="$out.pairs" \
				"$bin" -m "$tmp/model.gguf" -p 0 -n "$TOKENS" -r "$REPS" \
				-t "$t" >/dev/null 2>"$out.err" ||
				{ echo "op-pair.sh: llama-bench failed:" >&2; cat "$out.err" >&2; exit 1; }
			"$top/build/tools/ggmlviz" stats -f json "$out.ggmlviz" >"$out.stats"
			rm -f "$out.ggmlviz"
		done
	done
done
PYTHONPATH="$top/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$tmp" "$THREADS" "$RUNS" "$modes" <<'EOF'
import json, os, statistics, sys
from median_interval import interval
tmp, threads, runs, modes = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4].split()
modes = ['ab'] + [m for m in modes if m != 'ab']  # ab's traced decodes give the ops a token


def said(d):
    """A median and its 95% interval (none under 6 values)."""
    ci = interval(d)
    return '%+.1f' % statistics.median(d) + (' (%+.1f to %+.1f)' % ci if ci else '')


def pairs_of(path):
    """(the decodes timed traced, [(traced_ns, untraced_ns), ...]) of one run."""
    lines = open(path).read().split('\n')
    return int(lines[0].split()[3]), [tuple(float(x) for x in l.split()) for l in lines[1:] if l]


def stats_of(base, t, mode):
    """The ops of a run's trace, each measured from every worker's share (the tools' default;
    none in a session of steps alone)."""
    st = json.load(open(base + '.stats'))
    if mode == 'stopped':
        return 0  # its other decodes trace nothing (a warm-up outside the pairs may)
    if mode == 'steps':
        if st['ops']:
            sys.exit('op-pair.sh: %s: %d ops in a session of steps alone' % (base, st['ops']))
        return 0
    if not os.environ.get('ANY_TIMING') and (st['measured_ops'] != st['ops'] or
                                              st['shares'] < st['ops'] * int(t)):
        sys.exit("op-pair.sh: %s: %d of %d ops measured, %d shares: not the tools' default"
                 % (base, st['measured_ops'], st['ops'], st['shares']))
    return st['ops']


print('%-8s %-9s %6s %17s %30s %30s' % ('THREADS', 'MODE', 'PAIRS', 'DECODE (US, OFF)',
                                         'RUNS: ON LESS OFF (NS AN OP)', 'PAIRS POOLED'))
for t in threads:
    per_token, by_mode = None, {}
    for mode in modes:
        each, on, ops = [], 0, 0
        for run in range(1, runs + 1):
            base = '%s/%s.%s.%d' % (tmp, t, mode, run)
            n_on, p = pairs_of(base + '.pairs')
            each.append(p)
            on += n_on
            ops += stats_of(base, t, mode)
        if per_token is None:
            if not on or not ops:
                sys.exit('op-pair.sh: no op timed at %s threads' % t)
            per_token = ops / on
        runs_d = [statistics.median((a - b) / per_token for a, b in p) for p in each]
        pooled = [(a - b) / per_token for p in each for a, b in p]
        print('%-8s %-9s %6d %17.1f %30s %30s' % (
            t, mode, len(pooled), statistics.median(b for p in each for _, b in p) / 1000,
            said(runs_d), said(pooled)))
        if os.environ.get('EACH'):
            print('    each run:', ' '.join('%+.1f' % x for x in runs_d))
        by_mode[mode] = runs_d
    if 'before' in by_mode:
        print('%-8s %-9s %6s %17s %30s' % (t, 'after-bef', '', '', said(
            [a - b for a, b in zip(by_mode['ab'], by_mode['before'])])))
    print('    %.1f ops a token' % per_token)
EOF
