#!/bin/sh
# What the machine's peak (GGML_VIZ_PEAK, lib/tracer/session/peak.c) reads,
# measure after measure: the memory's read bandwidth and the FMA rate,
# least, median and most of MEASURES measures, each in a process of its own
# (a process measures once), first with the machine as it is, then with
# every core kept busy by as many processes spinning beside it (a build, a
# test suite): a peak is what the cores do when they run, so the second
# should read as the first.
#
# usage: bench/peak-spread.sh [MEASURES] [THREADS]   (default 8 and 2)
# Run from the top of the source tree; BUILD is the build folder (build).
#
# SPDX-License-Identifier: MIT
set -eu
measures=${1:-8}
threads=${2:-2}
build=${BUILD:-build}
tmp=$(mktemp -d)
spinners=
trap 'kill $spinners 2>/dev/null || true; rm -rf "$tmp"' EXIT

# One measure: "bytes_per_s flop_per_s", from the trace's META PEAK record.
measure() {
	GGML_VIZ_PEAK=$threads "$build/examples/threads" "$tmp/t.ggmlviz" >/dev/null
	"$build/tools/ggmlviz" dump -f jsonl "$tmp/t.ggmlviz" |
		sed -n 's/.*"kind":"PEAK".*"value":\([0-9]*\),"value2":\([0-9]*\).*/\1 \2/p'
}

# MEASURES measures, summed up as least, median and most of each figure.
spread() { # what
	i=0
	: >"$tmp/figures"
	while [ "$i" -lt "$measures" ]; do
		measure >>"$tmp/figures"
		i=$((i + 1))
	done
	[ -s "$tmp/figures" ] || { echo "no PEAK record: was $build/examples/threads built?" >&2; exit 1; }
	for col in 1 2; do
		cut -d' ' -f$col "$tmp/figures" | sort -n | awk -v what="$1" -v col=$col '
			{ v[NR] = $1 }
			END {
				unit = col == 1 ? "GB/s read" : "GFLOP/s"
				median = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
				printf "%-34s %-10s least %7.1f  median %7.1f  most %7.1f\n", what, unit,
					v[1] / 1e9, median / 1e9, v[NR] / 1e9
			}'
	done
}

cores=$(nproc)
echo "peak of $threads threads, $measures measures each, $cores cores"
spread "as the machine is"
for _ in $(seq "$cores"); do
	sh -c 'while :; do :; done' &
	spinners="$spinners $!"
done
spread "$cores processes spinning beside it"
"$build/tools/ggmlviz" dump "$tmp/t.ggmlviz" | sed -n 's/.*kind="PEAK".*label="\(.*\)"/how: \1/p'
