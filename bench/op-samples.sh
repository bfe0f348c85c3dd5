#!/bin/sh
# What libggmlviz's code takes of each thread of a traced llama.cpp decode,
# in ns an op, from perf's samples: a second measure beside
# bench/op-self.sh, made another way. op-self times every call with a
# fenced counter, which waits for the work before the call to finish
# (GGML's loads still in flight), and so may charge the call for some of
# it; a sample here lands wherever the thread is, the calls run as the
# program runs them, unfenced, the tools not linked again, and the
# adapters' own code, which op-self cannot wrap, counts too. What it
# gives up is resolution: each sample is a period of CPU time, so the
# figure is a count, good to its square root (the runs' interval says
# how good); and the sampler costs what it measures: each sample copies
# the thread's stack for its call chain, and the tracer's few cold lines
# pay for that more than GGML's streams do (at 20000 samples a second
# the figure was nearly twice that at 1000: doc/cost.md). Read the lowest
# rate.
#
# The tools' llama-bench (scripts/build-llama-tools.sh), traced as by
# default (every op measured, every worker's share), -p 0 (every graph a
# generated token's), under `perf record --call-graph dwarf`. A sample is
# the tracer's when the first frame of its chain outside the kernel and
# the system libraries is a function named ggmlviz*; only the run's
# steady state counts, from 20% to 90% of its time (bench/op_samples.py
# says what that takes in and leaves out). A thread's samples there
# over the ops computed in that window (the run's tokens' ops, from its
# trace, at an even rate over their span) is the tracer's time an op on
# it. Printed, a thread count and a thread (0: the graph's, which
# llama-bench runs as GGML's worker 0; workers: the others that compute,
# each; writer: the writer thread's CPU over the run's ops), the median
# of RUNS runs with its 95% interval, where the thread was on the CPU in
# the window (a share of it: well under 100%, another program took the
# CPU, and the run is not the machine's usual), and the functions it was
# in. The thread counts are run one after the other, not interleaved.
# BEFORE=DIR samples the tools in DIR too (llama-bench of an earlier
# libggmlviz), in the same runs, each run's two builds in turn (every
# other run the before first), and prints each and, run by run, the after
# less the before ("after-bef": what the machine did to both taken out),
# with its median's interval: at 1000 a second, an A/A of 15 runs was
# -7.9 ns an op (-42.9 to +7.8), so this checks a level, and op-self
# resolves a change of a few ns.
#
#     bench/op-samples.sh [TOOLS_BIN]
#
# TOOLS_BIN: the folder of the tools (default
# third_party/llama-tools/build/bin). THREADS (default "1 2"), TOKENS
# (128), REPS (20: llama-bench -r), RUNS (15), FREQ (perf's samples a
# second, 1000: about a dozen of the tracer's a run at 1 thread) and
# MODEL_WIDTH (the model, as bench/tiny-model.sh says: default the quick
# start's) as the environment says; KEEP_TMP=1 keeps the runs' folder (said). Needs perf,
# with samples of the CPU clock (no hardware counter is used: a virtual
# machine's perf often has none).
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tools=${1:-$top/third_party/llama-tools/build/bin}
THREADS=${THREADS:-1 2} TOKENS=${TOKENS:-128} REPS=${REPS:-20} RUNS=${RUNS:-15}
FREQ=${FREQ:-1000}
[ -x "$tools/llama-bench" ] || {
	echo "op-samples.sh: no llama-bench in $tools (scripts/build-llama-tools.sh builds it)" >&2
	exit 1
}
[ -x "$top/build/tools/ggmlviz" ] || { echo "op-samples.sh: build/tools/ggmlviz is not built" >&2; exit 1; }
perf record -q -e cpu-clock -o /dev/null true >/dev/null 2>&1 || {
	echo "op-samples.sh: perf cannot record the CPU clock here (perf_event_paranoid?)" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/op-samples.XXXXXX")
if [ "${KEEP_TMP:-0}" = 1 ]; then
	echo "op-samples.sh: the runs' folder is kept: $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
. "$top/bench/tiny-model.sh"
model=$(tiny_model_args "$top" "$tmp" "") || exit 1 # the quick start's model, or MODEL_WIDTH's

echo "op-samples.sh: llama-bench -p 0 -n $TOKENS -r $REPS on the model of MODEL_WIDTH=${MODEL_WIDTH:-512} under perf record -F $FREQ, each run from 20% to 90% of its time; $RUNS runs, medians"
modes=after
if [ -n "${BEFORE:-}" ]; then
	[ -x "$BEFORE/llama-bench" ] || { echo "op-samples.sh: BEFORE=$BEFORE holds no llama-bench" >&2; exit 1; }
	modes="after before"
fi
sampled() { # THREADS RUN MODE
	out="$tmp/$1.$2.$3"
	bin=$tools
	[ "$3" = before ] && bin=$BEFORE
	# shellcheck disable=SC2086 # the model's arguments are words
	env GGML_VIZ_OUTPUT="$out.ggmlviz" perf record -q -F "$FREQ" -e cpu-clock \
		--call-graph dwarf,2048 -o "$out.data" "$bin/llama-bench" $model \
		-p 0 -n "$TOKENS" -r "$REPS" -t "$1" >/dev/null 2>"$out.err" || {
		echo "op-samples.sh: $bin/llama-bench at $1 threads failed under perf:" >&2
		cat "$out.err" >&2
		exit 1
	}
	"$top/build/tools/ggmlviz" stats -f json --phase generation "$out.ggmlviz" >"$out.stats"
	perf script -i "$out.data" --no-inline -F comm,pid,tid,time,period,ip,sym,dso \
		>"$out.script" 2>/dev/null
	rm -f "$out.ggmlviz" "$out.data"
}
for t in $THREADS; do
	for run in $(seq "$RUNS"); do
		order=$modes
		[ $((run % 2)) = 0 ] && [ -n "${BEFORE:-}" ] && order="before after"
		for mode in $order; do
			sampled "$t" "$run" "$mode"
		done
	done
done
PYTHONPATH="$top/bench${PYTHONPATH:+:$PYTHONPATH}" \
	python3 "$top/bench/op_samples.py" "$tmp" "$THREADS" "$RUNS" "$modes"
