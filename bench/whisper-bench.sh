#!/bin/sh
# What tracing costs whisper.cpp, in its own units: whisper-bench's encode
# time (its one measured encoder run, after its warm-up), and a full
# transcription by whisper-cli (its total time less its load time: the
# audio read, the mel spectrogram, the encoder, every decoder call), traced
# with every op timed (GGML_VIZ_OUTPUT set, the build's defaults) against
# untraced, in rounds that alternate the modes (the order rotating), each
# round a run of each. Printed: each mode's median, and the median of the
# per-round ratios untraced / traced (the traced run's speed over the
# untraced one's: the target is 0.97 or more), with their spread and the
# median's 95% interval (a sign test's order statistics: 6 rounds at
# least), and what tracing adds in time.
#
#     bench/whisper-bench.sh [TOOLS]
#
# TOOLS: the folder of the tools built by scripts/build-whisper-tools.sh
# (default: third_party/whisper-tools/build/bin). The model is
# examples/make_tiny_whisper's (tiny.en's shape, q8_0) unless MODEL names
# one; the audio a few seconds that espeak-ng says unless AUDIO names a
# file; ROUNDS (7) rounds, THREADS (2) threads. Both modes run with
# environments of one size, round i's heap layout the same for both, one
# of LAYOUTS (8) in turn (bench/same-env.sh says why).
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
tools=${1:-$top/third_party/whisper-tools/build/bin}
for t in whisper-bench whisper-cli; do
	[ -x "$tools/$t" ] || {
		echo "whisper-bench.sh: no $t in $tools (scripts/build-whisper-tools.sh builds it)" >&2
		exit 1
	}
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/whisper-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
model=${MODEL:-}
if [ -z "$model" ]; then
	model="$tmp/tiny-whisper.bin"
	"$top/build/examples/make_tiny_whisper" "$model" >/dev/null ||
		{ echo "whisper-bench.sh: build/examples/make_tiny_whisper could not write a model" >&2; exit 1; }
fi
audio=${AUDIO:-}
if [ -z "$audio" ]; then
	audio="$tmp/speech.wav"
	command -v espeak-ng >/dev/null 2>&1 ||
		{ echo "whisper-bench.sh: no espeak-ng to say the audio (AUDIO=FILE.wav names one)" >&2; exit 1; }
	espeak-ng -w "$audio" "The quick brown fox jumps over the lazy dog. Tracing whisper, one token at a time."
fi
rounds=${ROUNDS:-7}
threads=${THREADS:-2}
echo "whisper-bench.sh: whisper-bench -t $threads and whisper-cli -t $threads on $(basename "$model"), $rounds rounds of each mode (untraced, traced), rotating"

# both modes' environments of one size, each round's layout the same for both (bench/same-env.sh)
. "$top/bench/same-env.sh"
layouts=${LAYOUTS:-8}
case "$layouts" in [1-9] | 10) ;; *) echo "whisper-bench.sh: LAYOUTS=$layouts: 1 to 10" >&2; exit 2 ;; esac
modes="plain traced"
i=0
while [ $i -lt "$rounds" ]; do
	for mode in $modes; do
		for tool in bench cli; do
			set -- "$tools/whisper-$tool" -m "$model" -t "$threads"
			[ "$tool" = cli ] && set -- "$@" -f "$audio"
			traced_vars="GGML_VIZ_OUTPUT=$tmp/$tool.ggmlviz"
			traced_size=$(same_env_size "$traced_vars")
			target=$(same_env_target 1 "0 0" "$traced_size")
			vars=""
			size="0 0"
			[ "$mode" = traced ] && vars=$traced_vars && size=$traced_size
			# shellcheck disable=SC2086 # "COUNT BYTES" are words
			pads=$(same_env_pad $size 1 "$target" $((i % layouts))) || exit 2
			# shellcheck disable=SC2086 # the assignments are words
			env -u GGML_VIZ_OUTPUT $vars $pads "$@" >/dev/null 2>"$tmp/$mode.$tool.$i.err" || true
		done
	done
	modes="${modes#* } ${modes%% *}"
	i=$((i + 1))
done

PYTHONPATH="$top/bench${PYTHONPATH:+:$PYTHONPATH}" \
python3 - "$tmp" "$rounds" <<'PY'
import os, re, statistics, sys
from median_interval import interval
tmp, rounds = sys.argv[1], int(sys.argv[2])

def timing(mode, tool, i, what):
    text = open(os.path.join(tmp, '%s.%s.%d.err' % (mode, tool, i))).read()
    m = re.search(r'whisper_print_timings: +%s time = +([0-9.]+) ms' % what, text)
    if not m:
        sys.exit('whisper-bench.sh: whisper-%s (%s, round %d) printed no %s time:\n%s'
                 % (tool, mode, i + 1, what, text[-600:]))
    return float(m.group(1))

def report(what, plain, traced):
    ratios = [p / t for p, t in zip(plain, traced)]
    ci, med = interval(ratios), statistics.median(ratios)
    print('  %s: untraced %.1f ms, traced %.1f ms (medians); untraced / traced %.3f (rounds: %.3f to '
          '%.3f; %s): the 0.97 target %s; %.1f ms more traced' % (
              what, statistics.median(plain), statistics.median(traced), med, min(ratios), max(ratios),
              '95%% interval of the median %.3f to %.3f' % ci if ci else 'too few rounds for an interval',
              'met' if round(med, 3) >= 0.97 else 'missed',
              statistics.median(traced) - statistics.median(plain)))

report('whisper-bench encode', [timing('plain', 'bench', i, 'encode') for i in range(rounds)],
       [timing('traced', 'bench', i, 'encode') for i in range(rounds)])
full = {m: [timing(m, 'cli', i, 'total') - timing(m, 'cli', i, 'load') for i in range(rounds)]
        for m in ('plain', 'traced')}
report('whisper-cli transcription (total less load)', full['plain'], full['traced'])
PY
