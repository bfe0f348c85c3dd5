#!/bin/sh
# What tracing costs llama.cpp's own benchmark, in its own unit: llama-bench's
# tokens per second (pp: prompt processing, tg: text generation) traced
# with every op timed (GGML_VIZ_OUTPUT set) against untraced, in rounds that
# alternate the modes (the order rotating), each round its own llama-bench
# run of -r repetitions. Traced twice: as built by
# scripts/build-llama-tools.sh, every worker thread's share of every node
# measured inside GGML's CPU backend (ggmlviz_cpu_share_begin(3)), and with
# GGML_VIZ_CPU_SHARES=0, timed by thread 0's ticks only. Printed: each
# mode's median t/s and the median of the per-round ratios traced /
# untraced, with their spread and the median's 95% interval (a sign test's
# order statistics: 6 rounds at least; target: 0.97 or more for pp and tg,
# each median said met or missed, and whether its interval agrees);
# the same ratio at the 50th, 75th and 90th percentiles of every
# repetition of each mode pooled over the rounds (steadier on a noisy
# machine, whose noise slows some repetitions and not others; a cost that
# comes in bursts, as the writer's passes do, weighs more in the lower
# ones); what tracing adds to a token in time (from the medians), and
# so to each of its ops (ops a token from the last traced round's trace;
# with the range the median ratio's interval gives, often wide):
# a cost that stays the same for a model whose tokens take longer; and,
# from that trace (and the before mode's), a generated token's time on
# its thread outside its ops (before its graph's first ask, from there to
# its first op, after its last op: where the step's thread works while
# the workers wait; measured inside the traced run, steadier than tokens
# a second on a noisy machine); and
# what it costs the machine: each mode's CPU time a run (perf stat's
# task-clock, or getrusage through /usr/bin/time) and its context
# switches, against untraced, and the writer thread's passes and CPU time
# (GGML_VIZ_VERBOSE's stop line), each per op of the run (ops of the whole
# run, from the last traced round's trace). SUMMARY=FILE also writes the
# figures as JSON (bench/op-cost.sh reads it).
#
# Every mode runs with an environment of the same size and its program at
# a path of the same length: GGML, built with OpenMP, copies the
# environment onto the heap at its first use, and one variable more moved
# an untraced run by 3.5 to 5% at 1 thread. Round i adds i % LAYOUTS
# pairs of empty variables to every mode alike (LAYOUTS 8, up to 10; 1:
# none), each pair moving the heap by 16 bytes, so that the rounds see
# LAYOUTS heap layouts in turn, every mode the same ones
# (bench/same-env.sh says why).
#
#     bench/llama-bench.sh [TOOLS] [-- LLAMA-BENCH ARGS...]
#
# TOOLS: the folder of the tools built by scripts/build-llama-tools.sh
# (default: third_party/llama-tools/build/bin). The model is make_tiny_llama's
# q8_0 quick-start model (8 layers, 512 wide) unless -m is given, or
# MODEL_WIDTH=1024 or 2048 asks for a wider one, or MODEL_WIDTH=576 for
# SmolLM2-135M's shape (bench/tiny-model.sh); ROUNDS (7) rounds of each
# mode; llama-bench's own arguments default to -p 64 -n 32 -r 3 -t 2.
# MODES (default "plain traced ticks") the modes compared, plain first:
#   traced  the tools' build as it traces (its defaults: on a GPU, kernels
#           in sampled windows)
#   ticks   GGML_VIZ_CPU_SHARES=0: CPU ops timed by thread 0's ticks only
#   every   GGML_VIZ_GPU_SAMPLE=1/1: every GPU kernel recorded
#   steps   GGML_VIZ_OP_TIMING=0: steps and runs only, no op, no kernel
#   nvtx    GGML_VIZ_NVTX=2: NVTX ranges for steps, runs and ops too
#   memory  GGML_VIZ_MEMORY_TRACKING=1: the backend buffers, their devices
#           and the scheduler's copies recorded too (what advise reads)
#   nomemory  GGML_VIZ_MEMORY_TRACKING=0: the tools' default less memory
#           tracking (which looks at every node's buffers as it is asked)
#   nowriter  GGML_VIZ_FLUSH_INTERVAL=60000: the writer passes only when a
#           ring passes its bell (about a megabyte) or at the stop, so not
#           during a short run: the traced default less its writer's
#           passes, which is what they take from the workers
#   sampled GGML_VIZ_OP_SAMPLE=100: rolling mode, 1 step in 100 op by op,
#           the others' ops summed
#   flight  GGML_VIZ_OP_SAMPLE=100 GGML_VIZ_FLIGHT=60: and a flight
#           recorder, every op of the last minute in memory (the summed
#           steps recorded op by op for it too)
#   off     GGML_VIZ_DISABLE=1: launched as a traced mode is (the same
#           environment), but nothing started: an A/A against plain,
#           which shows what launching alone moves
#   before  traced as by default, by the tools in the folder BEFORE=DIR
#           (the same llama.cpp built by an earlier libggmlviz: a before
#           and after in one run, each against the same untraced rounds);
#           with traced, a line more: traced over before round by round,
#           each round's pair taken together (the figure to read a change
#           by: the two ratios to untraced each take that round's noise,
#           and the slot a build ran in moved their medians by points)
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
[ -x "$tools/llama-bench" ] || {
	echo "llama-bench.sh: no llama-bench in $tools (scripts/build-llama-tools.sh builds it)" >&2
	exit 1
}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llama-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
. "$top/bench/tiny-model.sh"
args=$(tiny_model_args "$top" "$tmp" "$*") || exit 1
case " $args " in *" -p "*) ;; *) args="$args -p 64 -n 32 -r 3 -t 2" ;; esac

rounds=${ROUNDS:-7}
modes=${MODES:-plain traced ticks}
case " $modes " in *" plain "*) ;; *) modes="plain $modes" ;; esac
echo "llama-bench.sh: llama-bench $args -o json, $rounds rounds of each mode ($modes), rotating"
# mode_env MODE: what a traced mode adds to the environment
mode_env() {
	case "$1" in
	ticks) echo "GGML_VIZ_CPU_SHARES=0" ;;
	every) echo "GGML_VIZ_GPU_SAMPLE=1/1" ;;
	steps) echo "GGML_VIZ_OP_TIMING=0" ;;
	nvtx) echo "GGML_VIZ_NVTX=2" ;;
	memory) echo "GGML_VIZ_MEMORY_TRACKING=1" ;;
	nomemory) echo "GGML_VIZ_MEMORY_TRACKING=0" ;;
	nowriter) echo "GGML_VIZ_FLUSH_INTERVAL=60000" ;;
	sampled) echo "GGML_VIZ_OP_SAMPLE=100" ;;
	flight) echo "GGML_VIZ_OP_SAMPLE=100 GGML_VIZ_FLIGHT=60" ;;
	off) echo "GGML_VIZ_DISABLE=1" ;;
	traced | before) ;;
	*) echo "llama-bench.sh: unknown mode '$1' in MODES" >&2; exit 2 ;;
	esac
}
for mode in $modes; do [ "$mode" = plain ] || mode_env "$mode" >/dev/null || exit 2; done
case " $modes " in *" before "*)
	[ -x "${BEFORE:-}/llama-bench" ] || {
		echo "llama-bench.sh: mode 'before' needs BEFORE=DIR, a folder holding llama-bench" >&2
		exit 2
	} ;;
esac
# measured BASE COMMAND...: its output in BASE.json, its stderr in BASE.err, and its CPU
# time and context switches in BASE.cpu ("ms switches"), by perf stat's software counters
# where perf runs, else by GNU time (getrusage)
if perf stat -x, -e task-clock true >/dev/null 2>&1; then
	measured() {
		base=$1
		shift
		perf stat -x, -o "$base.perf" -e task-clock,context-switches "$@" >"$base.json" 2>"$base.err"
		awk -F, '/task-clock/ { ms = $1 } /context-switches/ { n = $1 } END { print ms, n }' \
			"$base.perf" >"$base.cpu"
	}
elif [ -x /usr/bin/time ]; then
	measured() {
		base=$1
		shift
		/usr/bin/time -o "$base.time" -f '%U %S %c %w' "$@" >"$base.json" 2>"$base.err"
		awk '{ print 1000 * ($1 + $2), $3 + $4 }' "$base.time" >"$base.cpu"
	}
else
	measured() {
		base=$1
		shift
		"$@" >"$base.json" 2>"$base.err"
		: >"$base.cpu"
	}
fi
# mode_vars MODE: every assignment a mode's runs add to the environment (plain: none)
mode_vars() {
	[ "$1" = plain ] && return 0
	out="$tmp/round.ggmlviz"
	[ "$1" = traced ] && out="$tmp/traced.ggmlviz"
	[ "$1" = before ] && out="$tmp/before.ggmlviz"
	echo "GGML_VIZ_OUTPUT=$out GGML_VIZ_VERBOSE=1 $(mode_env "$1")"
}
# every mode's environment of one size, its program's path of one length (bench/same-env.sh)
. "$top/bench/same-env.sh"
layouts=${LAYOUTS:-8}
case "$layouts" in [1-9] | 10) ;; *) echo "llama-bench.sh: LAYOUTS=$layouts: 1 to 10" >&2; exit 2 ;; esac
max_count=0
sizes=""
for mode in $modes; do
	# shellcheck disable=SC2046 # the mode's assignments are words
	size=$(same_env_size $(mode_vars "$mode"))
	eval "size_$mode=\$size"
	sizes="$sizes \"$size\""
	[ "${size% *}" -gt "$max_count" ] && max_count=${size% *}
done
target=$(eval "same_env_target $max_count $sizes")
# every variable a mode sets, taken out of the user's environment for every mode first, so
# that plain does not keep one a traced mode sets again in its place
unset_args="-u GGML_VIZ_OUTPUT"
for name in $(for mode in $modes; do mode_vars "$mode"; done | tr ' ' '\n' | sed -n 's/=.*//p' |
	sort -u); do
	unset_args="$unset_args -u $name"
done
# the tools at paths of one length: argv[0] and AT_EXECFN lie in the process's memory too
ln -s "$(CDPATH='' cd -P -- "$tools" && pwd -P)" "$tmp/t"
case " $modes " in *" before "*) ln -s "$(CDPATH='' cd -P -- "$BEFORE" && pwd -P)" "$tmp/b" ;; esac
echo "llama-bench.sh: every mode's environment $((max_count + 1)) variables more and $((target + 20)) bytes; round i adds i % $layouts pairs of empty ones, every mode alike (LAYOUTS=$layouts)"
[ -n "${KMP_BLOCKTIME:-}" ] &&
	echo "llama-bench.sh: KMP_BLOCKTIME is set: GGML leaves the environment where it is, and the layouts do not vary"
i=0
while [ $i -lt "$rounds" ]; do
	for mode in $modes; do
		bin=$tmp/t
		[ "$mode" = before ] && bin=$tmp/b
		eval "size=\$size_$mode"
		# shellcheck disable=SC2086 # "COUNT BYTES" are words
		pads=$(same_env_pad $size "$max_count" "$target" $((i % layouts))) || exit 2
		# shellcheck disable=SC2046,SC2086 # the assignments and the arguments are words
		measured "$tmp/$mode.$i" env $unset_args $(mode_vars "$mode") $pads \
			"$bin/llama-bench" $args -o json
	done
	modes="${modes#* } ${modes%% *}" # the next round starts with the next mode
	i=$((i + 1))
done

# ops a token by phase, from the last traced round: what a token's cost is spread over
ggmlviz=${GGMLVIZ:-$top/build/tools/ggmlviz}
for phase in prompt generation; do
	"$ggmlviz" stats -f json --phase "$phase" "$tmp/traced.ggmlviz" >"$tmp/$phase.json" 2>/dev/null ||
		echo '{}' >"$tmp/$phase.json"
done
# and the whole run's ops (warm-up and every repetition): what its CPU time is spread over
"$ggmlviz" stats -f json "$tmp/traced.ggmlviz" >"$tmp/run.json" 2>/dev/null || echo '{}' >"$tmp/run.json"

# the step's records and its ops' begins and ends, for the time outside the ops (below)
for mode in traced before; do
	"$ggmlviz" dump -f jsonl -t step,split,OP_COMPUTE_BEGIN,OP_COMPUTE_END,OP_TIMES "$tmp/$mode.ggmlviz" \
		>"$tmp/$mode.edges.jsonl" 2>/dev/null || : >"$tmp/$mode.edges.jsonl"
done

PYTHONPATH="$top/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$tmp" "$rounds" "$modes" "${SUMMARY:-}" <<'PY'
import json, os, re, statistics, sys
from median_interval import interval
tmp, rounds, modes, summary_path = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
summary = {'modes': {}}
WHAT = {'traced': 'as the build traces: every op measured, every worker\'s share; on a GPU, '
                  'kernels in sampled windows',
        'ticks': 'every op timed by ticks, GGML_VIZ_CPU_SHARES=0',
        'every': 'every GPU kernel recorded, GGML_VIZ_GPU_SAMPLE=1/1',
        'steps': 'steps and runs only, GGML_VIZ_OP_TIMING=0',
        'nvtx': 'NVTX ranges too, GGML_VIZ_NVTX=2',
        'memory': 'memory tracked too (buffers, devices, the scheduler\'s copies), '
                  'GGML_VIZ_MEMORY_TRACKING=1',
        'nomemory': 'as traced, memory not tracked, GGML_VIZ_MEMORY_TRACKING=0',
        'nowriter': 'as traced, the writer passing only at a ring\'s bell or the stop, '
                    'GGML_VIZ_FLUSH_INTERVAL=60000',
        'sampled': 'rolling mode, 1 step in 100 op by op, GGML_VIZ_OP_SAMPLE=100',
        'flight': 'rolling mode and a flight recorder, GGML_VIZ_OP_SAMPLE=100 GGML_VIZ_FLIGHT=60',
        'off': 'launched as traced, tracing disabled, GGML_VIZ_DISABLE=1',
        'before': 'as traced by default, the tools of BEFORE=%s' % os.environ.get('BEFORE', '')}
phase = {t: json.load(open(os.path.join(tmp, p + '.json')))
         for t, p in (('pp', 'prompt'), ('tg', 'generation'))}

def verdict(median, ci):
    """Whether the median, as printed (3 decimals), meets the target, and whether its
    interval says so too."""
    median, ci = round(median, 3), ci and tuple(round(x, 3) for x in ci)
    if median < 0.97:
        return 'missed' + (' (its interval reaches it)' if ci and ci[1] >= 0.97 else '')
    return 'met' + (' (its interval reaches below)' if ci and ci[0] < 0.97 else '')

def ts(mode, i, key='avg_ts'):
    rows = json.load(open(os.path.join(tmp, '%s.%d.json' % (mode, i))))
    return {('pp' if r['n_prompt'] else 'tg'): r[key] for r in rows}

def pooled(mode, test):
    """Every repetition's t/s of a mode, over every round, sorted: compared by percentile,
    steadier than the rounds' ratios where the machine's noise slows some repetitions."""
    return sorted(x for i in range(rounds) for x in ts(mode, i, 'samples_ts')[test])

def percentile(pool, q):
    return pool[min(len(pool) - 1, int(q * len(pool)))]

for test in ('pp', 'tg'):
    plain = [ts('plain', i)[test] for i in range(rounds)]
    plain_pool = pooled('plain', test)
    for mode, what in ((m, WHAT[m]) for m in modes if m != 'plain'):
        traced = [ts(mode, i)[test] for i in range(rounds)]
        ratios = [t / p for t, p in zip(traced, plain)]
        ci = interval(ratios)
        median = statistics.median(ratios)
        figures = summary['modes'].setdefault(mode, {})
        figures[test] = {'untraced_ts': statistics.median(plain), 'traced_ts': statistics.median(traced),
                         'ratio': median, 'ratio_ci': ci}
        print('  %s: untraced %.1f t/s, traced (%s) %.1f t/s (medians); traced / untraced '
              '%.3f (rounds: %.3f to %.3f; %s): the 0.97 target %s' % (
                  test, statistics.median(plain), what, statistics.median(traced),
                  median, min(ratios), max(ratios),
                  '95%% interval of the median %.3f to %.3f' % ci if ci else
                  'too few rounds for a 95% interval of the median', verdict(median, ci)))
        pool = pooled(mode, test)
        print('      every repetition pooled (%d a mode): traced / untraced at the 50th, 75th and '
              '90th percentiles %s' % (len(pool), ', '.join(
                  '%.3f' % (percentile(pool, q) / percentile(plain_pool, q))
                  for q in (0.5, 0.75, 0.9))))
        # a fixed cost a token, spread over its ops: what a model of longer tokens pays the same
        ph = phase[test]
        per_token_us = 1e6 / statistics.median(traced) - 1e6 / statistics.median(plain)
        if ph.get('tokens') and ph.get('ops'):
            ops = ph['ops'] / ph['tokens']
            # the same from the median ratio's interval: how loose the figure an op is
            untraced_us = 1e6 / statistics.median(plain)
            loose = (' (from the interval of the median: %.0f to %.0f ns an op)' % tuple(
                1e3 * (untraced_us / r - untraced_us) / ops for r in (ci[1], ci[0]))
                if ci else '')
            figures[test]['ns_per_op'] = 1e3 * per_token_us / ops
            figures[test]['ops_per_token'] = ops
            if per_token_us > 0:
                print('      %.1f us more a token of %.1f us untraced: %.0f ns an op (%.1f ops a '
                      'token)%s' % (per_token_us, untraced_us, 1e3 * per_token_us / ops, ops,
                                    loose))
            else:
                print('      nothing more a token that the medians tell (%.1f us faster traced, of '
                      '%.1f us untraced)%s' % (-per_token_us, untraced_us, loose))

def after_before(test):
    """The build against BEFORE's, round by round: each round's traced t/s over its before
    t/s, taken within the round, so that what the machine did to the round moves both.
    Against untraced, each build's ratio takes the untraced round's noise too, and the
    median of those ratios moved by up to 2.6 points with the slot a build ran in."""
    if 'traced' not in modes or 'before' not in modes:
        return
    after = [ts('traced', i)[test] for i in range(rounds)]
    before = [ts('before', i)[test] for i in range(rounds)]
    ratios = [a / b for a, b in zip(after, before)]
    ci = interval(ratios)
    median = statistics.median(ratios)
    pool_a, pool_b = pooled('traced', test), pooled('before', test)
    summary.setdefault('after_before', {})[test] = {'ratio': median, 'ratio_ci': ci}
    print('  %s: traced against before, round by round: %.3f (%s); every repetition pooled, '
          'at the 50th, 75th and 90th percentiles %s' % (
              test, median, '95%% interval of the median %.3f to %.3f' % ci if ci else
              'too few rounds for a 95% interval of the median', ', '.join(
                  '%.3f' % (percentile(pool_a, q) / percentile(pool_b, q))
                  for q in (0.5, 0.75, 0.9))))

for test in ('pp', 'tg'):
    after_before(test)

def outside_ops(mode):
    """Each generation step's time on its thread outside its ops, in the mode's last round:
    from its begin to the first ask of its graph's nodes (llama.cpp's own), from that ask to
    its first op (the asks, the graph's plan, the workers woken), and from its last op to its
    end (the shares and op records written, the logits read); the medians, in us."""
    steps, cur = [], None
    for line in open(os.path.join(tmp, mode + '.edges.jsonl')):
        r = json.loads(line)
        t = r['type']
        if t == 'STEP_BEGIN':
            cur = {'begin': r['ts'], 'tokens': r['n_tokens'], 'ask': None, 'ops': []}
        elif cur is None:
            continue
        elif t == 'SPLIT_BEGIN' and cur['ask'] is None:
            cur['ask'] = r['ts']
        elif t in ('OP_COMPUTE_BEGIN', 'OP_COMPUTE_END'):
            cur['ops'].append(r['ts'])
        elif t == 'OP_TIMES':  # a repeated run's ops, packed: the chain of gaps and durations
            at = r['ts']
            for gap, duration in r.get('times', []):
                cur['ops'] += [at + gap, at + gap + duration]
                at += gap + duration
        elif t == 'STEP_END':
            if cur['tokens'] == 1 and cur['ask'] is not None and cur['ops']:
                steps.append((cur['ask'] - cur['begin'], min(cur['ops']) - cur['ask'],
                              r['ts'] - max(cur['ops'])))
            cur = None
    if not steps:
        return
    med = [statistics.median(s[k] for s in steps) / 1e3 for k in range(3)]
    print('  tg, %s, the step\'s thread outside its ops (medians of %d steps, last round): '
          '%.1f us to its first ask, %.1f us of asks and the graph\'s start, %.1f us after its '
          'last op' % (mode, len(steps), med[0], med[1], med[2]))

def cpu(mode, i):
    """A round's run of a mode: its CPU ms and context switches, or None."""
    try:
        ms, switches = open(os.path.join(tmp, '%s.%d.cpu' % (mode, i))).read().split()
        return float(ms), float(switches)
    except (OSError, ValueError):
        return None

def writer(mode, i):
    """The writer's passes and CPU us, from the verbose stop line of a traced run; or None."""
    try:
        text = open(os.path.join(tmp, '%s.%d.err' % (mode, i)), errors='replace').read()
    except OSError:
        return None
    m = re.findall(r'the writer: (\d+) passes, (\d+) us of CPU', text)
    return (int(m[-1][0]), int(m[-1][1])) if m else None

def machine_cost():
    """What each mode costs the machine against untraced: CPU time and switches a run, and
    the writer's share, per op of the run (the last traced round's ops, warm-up and all)."""
    run = json.load(open(os.path.join(tmp, 'run.json')))
    ops = run.get('ops') or 0
    plain = [c for c in (cpu('plain', i) for i in range(rounds)) if c]
    if not plain or not ops:
        print('  the machine\'s cost: not measured (no CPU time, or no ops in the trace)')
        return
    base_ms, base_sw = statistics.median(c[0] for c in plain), statistics.median(c[1] for c in plain)
    for mode in (m for m in modes if m != 'plain'):
        got = [c for c in (cpu(mode, i) for i in range(rounds)) if c]
        w = [x for x in (writer(mode, i) for i in range(rounds)) if x]
        if not got:
            continue
        ms, sw = statistics.median(c[0] for c in got), statistics.median(c[1] for c in got)
        fig = summary['modes'].setdefault(mode, {})
        fig['cpu_ns_per_op'] = 1e6 * (ms - base_ms) / ops
        fig['switches'] = [base_sw, sw]
        line = ('  %s, the machine: CPU %.0f ms a run against %.0f untraced (%+.0f ns an op of %d), '
                'context switches %.0f against %.0f' % (mode, ms, base_ms, fig['cpu_ns_per_op'],
                                                         ops, sw, base_sw))
        if w:
            passes, us = statistics.median(x[0] for x in w), statistics.median(x[1] for x in w)
            fig['writer'] = {'passes': passes, 'cpu_us': us, 'ns_per_op': 1e3 * us / ops}
            line += '; the writer %.0f passes, %.1f ms of CPU (%.0f ns an op)' % (
                passes, us / 1e3, 1e3 * us / ops)
        print(line + ' (medians)')

for mode in ('traced', 'before'):
    if mode in modes:
        outside_ops(mode)
machine_cost()
if summary_path:
    json.dump(summary, open(summary_path, 'w'), indent=1)
PY
