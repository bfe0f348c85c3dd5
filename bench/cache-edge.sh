#!/bin/sh
# Whether what tracing costs a model's tokens is the tracer's work or the
# model's place against the processor's last-level cache: the same
# llama-bench rounds as bench/llama-bench.sh (untraced and traced in turn,
# their tg ratio and its 95% interval, ns an op), on make_tiny_llama's
# q8_0 models of the quick start's width at several depths, one table:
#
#   LAYERS  MODEL MIB  OF L3  UNTRACED TG  TG RATIO (95% INTERVAL)  NS AN OP
#
# OF L3 is the model's file over the last-level cache (sysfs, else
# getconf). A model that fits the cache (its weights read from it at each
# token) and one far past it (read from memory) show the tracer's own
# cost; one at the cache's edge, some of its weights kept from one token
# to the next and some not, also shows every line the tracer keeps in
# the cache in their place: each of them can push out a line of weights
# that the next token misses. A ratio that dips at the edge and not on
# either side is that, not a cost an op. The quick start's 8 layers
# (26 MiB) are near the 32 MiB L3 of the project's 2-core machine, which
# other guests share: doc/cost.md says what this found there.
#
#     bench/cache-edge.sh [TOOLS] [-- LLAMA-BENCH ARGS...]
#
# TOOLS: as bench/llama-bench.sh (default third_party/llama-tools/build/bin).
# LAYERS: the depths (default "4 8 16"); ROUNDS (default 21) and MODES
# (default "plain traced") go to llama-bench.sh, as do llama-bench's
# arguments (default -p 64 -n 32 -r 3 -t 1; -m is made here).
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
args=${*:--p 64 -n 32 -r 3 -t 1}
case " $args " in *" -m "*)
	echo "cache-edge.sh: the models are made here (LAYERS), not given with -m" >&2
	exit 2 ;;
esac
make_model="$top/build/examples/make_tiny_llama"
[ -x "$make_model" ] || { echo "cache-edge.sh: $make_model is not built (./quickstart.sh)" >&2; exit 1; }
LAYERS=${LAYERS:-4 8 16}
export ROUNDS="${ROUNDS:-21}" MODES="${MODES:-plain traced}"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/cache-edge.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# The last-level cache in bytes, or 0 where neither sysfs nor getconf says
# (sysfs first: in a virtual machine getconf can take the host's).
llc_bytes() {
	s=$(cat /sys/devices/system/cpu/cpu0/cache/index3/size 2>/dev/null || echo 0)
	case "$s" in
	*K) echo $((${s%K} * 1024)); return ;;
	*M) echo $((${s%M} * 1048576)); return ;;
	esac
	b=$(getconf LEVEL3_CACHE_SIZE 2>/dev/null || echo 0)
	[ "${b:-0}" -gt 0 ] 2>/dev/null && echo "$b" || echo 0
}
llc=$(llc_bytes)

echo "cache-edge.sh: layers $LAYERS; last-level cache $((llc / 1048576)) MiB; llama-bench $args; $ROUNDS rounds of $MODES"
for l in $LAYERS; do
	model="$tmp/l$l.gguf"
	"$make_model" "$model" --layers "$l" --embd 512 --heads 8 --kv-heads 4 --ff 1408 \
		--vocab 2048 --type q8_0 >/dev/null
	echo "== $l layers, $(($(wc -c <"$model") / 1048576)) MiB"
	# shellcheck disable=SC2086 # llama-bench's arguments are words
	SUMMARY="$tmp/l$l.json" "$top/bench/llama-bench.sh" "$tools" -- -m "$model" $args |
		sed 's/^/  /'
done

# shellcheck disable=SC2086 # the depths are words
python3 - "$tmp" "$llc" $LAYERS <<'PY'
import json, os, sys
tmp, llc, depths = sys.argv[1], int(sys.argv[2]), sys.argv[3:]

print('\nLAYERS  MODEL MIB  OF L3  UNTRACED TG  MODE    TG RATIO (95% INTERVAL)   NS AN OP')
for l in depths:
    path = os.path.join(tmp, 'l%s.json' % l)
    size = os.path.getsize(os.path.join(tmp, 'l%s.gguf' % l))
    of_l3 = '%.2f' % (size / llc) if llc else '-'
    if not os.path.exists(path):
        print('%-7s %9.1f  %5s  (no figures: llama-bench.sh failed)' % (l, size / 2**20, of_l3))
        continue
    for mode, f in json.load(open(path))['modes'].items():
        tg = f.get('tg', {})
        ci = tg.get('ratio_ci')
        ratio = '%.3f (%s)' % (tg['ratio'], '%.3f-%.3f' % tuple(ci) if ci else 'few rounds') \
            if 'ratio' in tg else '-'
        ns = tg.get('ns_per_op')
        print('%-7s %9.1f  %5s  %11s  %-7s %-25s %9s' % (
            l, size / 2**20, of_l3,
            '%.1f t/s' % tg['untraced_ts'] if 'untraced_ts' in tg else '-', mode, ratio,
            '%.0f' % ns if ns is not None else '-'))
PY
