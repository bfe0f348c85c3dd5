#!/bin/sh
# What tracing costs llama.cpp's own benchmark, in its own unit: llama-bench's
# tokens per second (pp: prompt processing, tg: text generation) traced
# with every op timed (GGML_VIZ_OUTPUT set) against untraced, in rounds that
# alternate the two (the order rotating), each round its own llama-bench run
# of -r repetitions; printed: each mode's median t/s and the median of the
# per-round ratios traced / untraced, with their spread (target: 0.97 or
# more for pp and tg).
#
#     bench/llama-bench.sh [TOOLS] [-- LLAMA-BENCH ARGS...]
#
# TOOLS: the folder of the tools built by scripts/build-llama-tools.sh
# (default: third_party/llama-tools/build/bin). The model is make_tiny_llama's
# q8_0 quick-start model (8 layers, 512 wide) unless -m is given; ROUNDS (7)
# rounds of each mode; llama-bench's own arguments default to
# -p 64 -n 32 -r 3 -t 2.
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
args="$*"
case " $args " in
*" -m "*) ;;
*)
	"$top/build/examples/make_tiny_llama" "$tmp/model.gguf" --layers 8 --embd 512 --heads 8 \
		--kv-heads 4 --ff 1408 --vocab 2048 --type q8_0 >/dev/null
	args="-m $tmp/model.gguf $args" ;;
esac
case " $args " in *" -p "*) ;; *) args="$args -p 64 -n 32 -r 3 -t 2" ;; esac

rounds=${ROUNDS:-7}
echo "llama-bench.sh: llama-bench $args -o json, $rounds rounds of each mode, alternating"
i=0
while [ $i -lt "$rounds" ]; do
	for mode in $( [ $((i % 2)) -eq 0 ] && echo "plain traced" || echo "traced plain"); do
		if [ "$mode" = traced ]; then
			# shellcheck disable=SC2086 # llama-bench's arguments are words
			env GGML_VIZ_OUTPUT="$tmp/round.ggmlviz" "$tools/llama-bench" $args -o json \
				>"$tmp/$mode.$i.json" 2>/dev/null
		else
			# shellcheck disable=SC2086
			env -u GGML_VIZ_OUTPUT "$tools/llama-bench" $args -o json \
				>"$tmp/$mode.$i.json" 2>/dev/null
		fi
	done
	i=$((i + 1))
done

python3 - "$tmp" "$rounds" <<'PY'
import json, os, statistics, sys
tmp, rounds = sys.argv[1], int(sys.argv[2])

def ts(mode, i):
    rows = json.load(open(os.path.join(tmp, '%s.%d.json' % (mode, i))))
    return {('pp' if r['n_prompt'] else 'tg'): r['avg_ts'] for r in rows}

for test in ('pp', 'tg'):
    plain = [ts('plain', i)[test] for i in range(rounds)]
    traced = [ts('traced', i)[test] for i in range(rounds)]
    ratios = [t / p for t, p in zip(traced, plain)]
    print('  %s: untraced %.1f t/s, traced (every op timed) %.1f t/s (medians); traced / untraced '
          '%.3f (rounds: %.3f to %.3f)' % (test, statistics.median(plain), statistics.median(traced),
                                            statistics.median(ratios), min(ratios), max(ratios)))
PY
