#!/bin/sh
# The library's own time an op inside a traced llama.cpp decode, on each
# thread, timed call by call (bench/op-self.c): what tracing adds to the
# threads that compute, in ns an op, to a few ns, where tokens a second
# on a shared machine move by 10% from one round to the next.
#
# llama-bench from scripts/build-llama-tools.sh is linked again (its own
# link command, from ninja) with op-self.o and -Wl,--wrap for each public
# function that GGML's edits and the adapters call, and run with -p 0
# (every graph a generated token's) at each thread count, traced (every op
# measured, every worker's share: the tools' default) and untraced (the
# edits' calls return at once). For each, a line a thread: its CPU
# backend index (-1: no share, the writer's has no wrapped call and is
# not listed), its wrapped calls an op, and the ns an op inside them
# (the counter's own cost taken out); then the writer's CPU time an op
# (GGML_VIZ_VERBOSE's stop line) and the largest functions. Then, a
# thread, what tracing adds run by run ("less-untr": each run's traced
# less its untraced, run in the same turn, their median and its 95% interval,
# for all the calls and each): the figure to hold against a target, where
# each mode's own median moves by tens of ns from run to run.
#
#     bench/op-self.sh [TOOLS_BUILD]
#
# TOOLS_BUILD: the tools' build folder (default
# third_party/llama-tools/build). BEFORE_LIB=FILE also links the tools
# with that libggmlviz.a (an earlier build's: the tools' build keeps its
# own in third_party/llama-tools/ggmlviz/lib) and runs it as mode
# "before", interleaved with the others: a before and after in one run,
# and prints, a thread, the difference run by run ("after-bef": each
# run's traced less the before run just beside it, their median and its
# 95% interval; every other run has the before first, which an even
# RUNS balances, and each run has fresh copies of both builds), which
# takes out what the machine did to both: a call's difference to 2 to
# 5 ns (an A/A run's intervals are that wide, and at 2 threads one
# still showed the graph's end +2.2), where each mode's own median moves
# by tens from one run to the next. With a dozen calls listed, up to one
# interval in twenty misses 0 by chance. BEFORE_ADAPTERS=FILE does the
# same with an earlier libggmlviz-llama-tools.a (the tools' build has it
# at its top: the adapters' code as a build of the tools compiled it),
# alone or with BEFORE_LIB. THREADS (default "1 2"), TOKENS
# (32), REPS (3: llama-bench -r), RUNS (3: runs of each, their median)
# as the environment says; KEEP_TMP=1 keeps the runs' folder (said).
# x86-64 only (the time-stamp counter).
# OPS_A_RUN=N takes N as the ops the REPS repetitions more add (REPS x
# TOKENS x the ops a token: 3 x 32 x 141 = 13536 on the quick start's
# model), instead of those the traced runs' traces count: for a build
# that records no op times (a trial of a design that leaves them to the
# reader).
#
# The step's own code, where llama.cpp's headers are found beside the
# tools' build: "step-glue", the tools' decode wrapper's time less the
# decode and the library's calls in it (op-self.c).
#
# Not in it: the callbacks' code around their calls into the library and
# the edits' own lines (callgrind counts them: bench/op-insns.py), and
# what the library's stores take from GGML's caches (bench/op-cost.sh's
# tokens a second hold that, to its noise).
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tb=${1:-$top/third_party/llama-tools/build}
THREADS=${THREADS:-1 2} TOKENS=${TOKENS:-32} REPS=${REPS:-3} RUNS=${RUNS:-3}
[ -f "$tb/build.ninja" ] || { echo "op-self.sh: no $tb/build.ninja (scripts/build-llama-tools.sh builds it)" >&2; exit 1; }
[ -x "$top/build/tools/ggmlviz" ] || { echo "op-self.sh: build/tools/ggmlviz is not built" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/op-self.XXXXXX")
if [ "${KEEP_TMP:-0}" = 1 ]; then
	echo "op-self.sh: the runs' folder is kept: $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi

# llama.cpp's headers, where the tools' sources are: op-self.c then times the step's own code too
src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$tb/CMakeCache.txt" 2>/dev/null || :)
llama_inc=
if [ -f "$src/include/llama.h" ]; then
	llama_inc="-DOP_SELF_LLAMA -I$src/include -I$src/ggml/include"
else
	echo "op-self.sh: no llama.h in the tools' sources ($src): the step's own code not timed" >&2
fi
# shellcheck disable=SC2086 # a define and two -I words, or none
cc -O2 -std=gnu11 -I"$top/include" $llama_inc -c "$top/bench/op-self.c" -o "$tmp/op-self.o"
wraps=$(nm "$tmp/op-self.o" | sed -n 's/.* T __wrap_\(.*\)/-Wl,--wrap=\1/p' | tr '\n' ' ')
# the two builds at paths of one length, so that their argv[0] and environment,
# on each run's stack, are of one size (what moved a call between two copies of
# one build was where their pages lay: fresh() below)
mkdir "$tmp/a" "$tmp/b"
. "$top/bench/relink.sh"
self=$(relink_command "$tb" "$tmp/a/llama-bench" "$tmp/op-self.o $wraps")
(cd "$tb" && eval "$self")
modes="untraced traced"
if [ -n "${BEFORE_LIB:-}${BEFORE_ADAPTERS:-}" ]; then # the same tools linked with earlier libraries
	before=$(relink_command "$tb" "$tmp/b/llama-bench" "$tmp/op-self.o $wraps" "${BEFORE_LIB:-}")
	if [ -n "${BEFORE_ADAPTERS:-}" ]; then # each word that names the tools' archive (an absolute path)
		adapters=$(cd "$(dirname "$BEFORE_ADAPTERS")" && pwd)/$(basename "$BEFORE_ADAPTERS")
		printf '%s' "$self" | tr ' ' '\n' | grep -qx 'libggmlviz-llama-tools\.a' ||
			{ echo "op-self.sh: no libggmlviz-llama-tools.a in llama-bench's link command" >&2; exit 1; }
		before=$(printf '%s\n' "$before" | A="$adapters" awk '{
			for (i = 1; i <= NF; i++) if ($i == "libggmlviz-llama-tools.a") $i = ENVIRON["A"]
			print }')
	fi
	(cd "$tb" && eval "$before")
	modes="untraced traced before"
fi
"$top/build/examples/make_tiny_llama" "$tmp/model.gguf" --layers 8 --embd 512 --heads 8 \
	--kv-heads 4 --ff 1408 --vocab 2048 --type q8_0 >/dev/null

echo "op-self.sh: llama-bench -p 0 -n $TOKENS on the quick start's model, -r 1 and -r $((REPS + 1)): what the $REPS repetitions more add an op (no start, no first descriptions); $RUNS runs each, medians"
bench() { # THREADS MODE RUN REPS
	out="$tmp/$1.$2.$3.$4"
	bin="$tmp/a/llama-bench"
	[ "$2" = before ] && bin="$tmp/b/llama-bench"
	if [ "$2" != untraced ]; then
		env GGML_VIZ_OUTPUT="$out.ggmlviz" GGML_VIZ_VERBOSE=1 OP_SELF_OUT="$out.self" \
			"$bin" -m "$tmp/model.gguf" -p 0 -n "$TOKENS" -r "$4" -t "$1" \
			>/dev/null 2>"$out.err"
		"$top/build/tools/ggmlviz" stats -f json "$out.ggmlviz" >"$out.stats"
		rm -f "$out.ggmlviz"
	else
		env -u GGML_VIZ_OUTPUT OP_SELF_OUT="$out.self" "$tmp/a/llama-bench" \
			-m "$tmp/model.gguf" -p 0 -n "$TOKENS" -r "$4" -t "$1" >/dev/null 2>"$out.err"
	fi
}
# Each run's builds are copies made for it: a file's pages stay where they are
# in memory, and where they are moved a call by 3 to 4 ns an op between two
# copies of one build, run after run; new copies place them anew each run.
fresh() {
	for d in a b; do
		[ -f "$tmp/$d.built" ] || continue
		rm -f "$tmp/$d/llama-bench"
		cp "$tmp/$d.built" "$tmp/$d/llama-bench"
	done
}
for d in a b; do [ -f "$tmp/$d/llama-bench" ] && mv "$tmp/$d/llama-bench" "$tmp/$d.built"; done
turn=0 # every other run the two traced modes swapped, over every thread count
for t in $THREADS; do
	for run in $(seq "$RUNS"); do
		fresh
		order=$modes
		turn=$((turn + 1))
		[ $((turn % 2)) = 0 ] && [ -n "${BEFORE_LIB:-}${BEFORE_ADAPTERS:-}" ] && order="untraced before traced"
		for mode in $order; do
			bench "$t" "$mode" "$run" 1
			bench "$t" "$mode" "$run" $((REPS + 1))
		done
	done
done
PYTHONPATH="$top/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$tmp" "$THREADS" "$RUNS" "$((REPS + 1))" "$modes" "${OPS_A_RUN:-}" <<'EOF'
import json, re, statistics, sys
from median_interval import interval
tmp, threads, runs, long_reps = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
modes = sys.argv[5].split()


def rows(path):
    """{ith: (calls, ns, {function: ns})} of one run's OP_SELF_OUT."""
    got, cur = {}, None
    for line in open(path):
        m = re.match(r'thread (-?\d+) calls (\d+) ns (-?[\d.]+)', line)
        if m:
            cur = int(m.group(1))
            c, n, f = got.get(cur, (0, 0.0, {}))
            got[cur] = (c + int(m.group(2)), n + float(m.group(3)), dict(f))
            continue
        m = re.match(r'  (\S+) (\d+) (-?[\d.]+)', line)
        if m and cur is not None:
            f = got[cur][2]
            f[m.group(1)] = f.get(m.group(1), 0.0) + float(m.group(3))
    return got


def writer_us(path):
    """The writer's CPU us, from the verbose stop line."""
    m = re.findall(r'the writer: (\d+) passes, (\d+) us of CPU', open(path).read())
    return int(m[-1][1]) if m else None


def calls_added(short, long, n):
    """{function: ns an op} that the longer run added to the shorter, over its n ops more."""
    return {f: (long[f] - short.get(f, 0.0)) / n for f in long}


def paired(t, after, before, label):
    """Each run's traced less its before (or untraced), run by run (the two were run one
    after the other, so that what the machine did to both is taken out), a line a thread:
    the median difference and its interval, for all its calls and then each, the ones that
    moved most first. With a dozen calls, up to one interval in twenty misses 0 by chance."""
    def said(d, width=0):
        ci = interval(d)
        return '%+*.1f  ' % (width, statistics.median(d)) + (
            '(%+.1f to %+.1f)' % ci if ci else '(too few runs for an interval)')
    for ith in sorted(set(after) & set(before)):
        d = [a[0] - b[0] for a, b in zip(after[ith], before[ith])]
        print('%-8s %-9s %-7s %12s %s' % (t, label, ith, '', said(d, 12)))
        funcs = {}
        for a, b in zip(after[ith], before[ith]):
            for f in set(a[1]) | set(b[1]):
                funcs.setdefault(f, []).append(a[1].get(f, 0.0) - b[1].get(f, 0.0))
        moved = sorted(funcs.items(), key=lambda kv: -abs(statistics.median(kv[1])))
        for at in range(0, len(moved), 3):  # every call: the ones that moved most first
            print('%26s %s' % ('', ', '.join('%s %s' % (f.replace('ggmlviz_', ''), said(v))
                                             for f, v in moved[at:at + 3])))


def ops(t, run, reps):
    return json.load(open('%s/%s.traced.%d.%s.stats' % (tmp, t, run, reps)))['ops']


print('%-8s %-9s %-7s %12s %12s  %s' % ('THREADS', 'MODE', 'THREAD', 'CALLS AN OP', 'NS AN OP', '(RUNS)'))
for t in threads:
    if sys.argv[6]:
        if not sys.argv[6].isdigit() or int(sys.argv[6]) == 0:
            sys.exit('op-self.sh: OPS_A_RUN=%s: not a count of ops above 0' % sys.argv[6])
        d_ops = [int(sys.argv[6])] * runs
    else:
        d_ops = [ops(t, r, long_reps) - ops(t, r, 1) for r in range(1, runs + 1)]
    if min(d_ops) <= 0:
        sys.exit('op-self.sh: at %s thread(s) the repetitions added %d ops to the traces '
                 '(no op times recorded?); OPS_A_RUN=N gives the count' % (t, min(d_ops)))
    per_run = {}  # mode -> {ith: [(ns, {function: ns}) a run]}
    for mode in modes:
        pairs = [(rows('%s/%s.%s.%d.1.self' % (tmp, t, mode, r)),
                  rows('%s/%s.%s.%d.%s.self' % (tmp, t, mode, r, long_reps)))
                 for r in range(1, runs + 1)]
        for ith in sorted({k for a, b in pairs for k in b}):
            def marginal(i):
                z = (0, 0.0, {})
                return [(b.get(ith, z)[i] - a.get(ith, z)[i]) / n for (a, b), n in zip(pairs, d_ops)]
            ns = marginal(1)
            by_call = [calls_added(a.get(ith, (0, 0, {}))[2], b.get(ith, (0, 0, {}))[2], n)
                       for (a, b), n in zip(pairs, d_ops)]
            per_run.setdefault(mode, {})[ith] = list(zip(ns, by_call))
            print('%-8s %-9s %-7s %12.2f %12.1f  (%.1f to %.1f)' % (
                t, mode, ith, statistics.median(marginal(0)), statistics.median(ns), min(ns), max(ns)))
            if mode != 'untraced':
                funcs = {}
                for calls in by_call:
                    for f, v in calls.items():
                        funcs.setdefault(f, []).append(v)
                top = sorted(funcs.items(), key=lambda kv: -statistics.median(kv[1]))[:6]
                print('%26s %s' % ('', ', '.join('%s %.1f' % (f.replace('ggmlviz_', ''),
                                                             statistics.median(v))
                                                 for f, v in top)))
    paired(t, per_run['traced'], per_run['untraced'], 'less-untr')
    if 'before' in per_run:
        paired(t, per_run['traced'], per_run['before'], 'after-bef')
    for mode in modes[1:]:
        w = []
        for r, n in zip(range(1, runs + 1), d_ops):
            a = writer_us('%s/%s.%s.%d.1.err' % (tmp, t, mode, r))
            b = writer_us('%s/%s.%s.%d.%s.err' % (tmp, t, mode, r, long_reps))
            if a is not None and b is not None:
                w.append((b - a) * 1000 / n)
        if w:
            print('%-8s %-9s %-7s %12s %12.1f' % (t, mode, 'writer', '', statistics.median(w)))
    print('%-8s the repetitions added %d ops a run' % (t, statistics.median(d_ops)))
EOF
