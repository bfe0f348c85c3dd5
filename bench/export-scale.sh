#!/bin/sh
# What the exports cost on a big trace. Either tests/gen-trace writes
# RECORDS records (10 million by default, about 550 MB of synthetic
# graphs), or the TRACE files given are merged into one (copies of a long
# llama.cpp run, say). Each format is exported twice: to /dev/null under
# tests/peak-rss (peak anonymous memory and peak RSS, and the time), and
# to standard output counted by wc (bytes written, and the ratio to the
# JSON). Run from a build directory:
#
#   sh ../bench/export-scale.sh [RECORDS]
#   sh ../bench/export-scale.sh TRACE...
#
# Needs free space for the trace only (the outputs are counted, not kept).
#
# SPDX-License-Identifier: MIT
set -eu
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-export.XXXXXX")
trap 'rm -rf "$T"' EXIT

if [ $# -gt 0 ] && [ -f "$1" ]; then
	tools/ggmlviz merge "$@" -o "$T/t.ggmlviz" 2>/dev/null
	echo "trace: $# file(s) merged, $(tools/ggmlviz info "$T/t.ggmlviz" | sed -n 's/^records: *//p') records, $(wc -c <"$T/t.ggmlviz") bytes"
else
	records=${1:-10000000}
	# gen-trace holds about 18,300 records per MiB (548,122 in 30 MiB)
	mb=$(((records + 18299) / 18300))
	tests/gen-trace --size-mb "$mb" "$T/t.ggmlviz" >"$T/gen"
	echo "trace: $(sed -n 's/^records=//p' "$T/gen") records (tests/gen-trace), $(sed -n 's/^bytes=//p' "$T/gen") bytes"
fi

json=0
for format in chrome perfetto speedscope; do
	start=$(date +%s%N)
	tests/peak-rss "$T/$format.rss" tools/ggmlviz export -f "$format" "$T/t.ggmlviz" -o /dev/null \
		2>/dev/null
	end=$(date +%s%N)
	bytes=$(tools/ggmlviz export -f "$format" "$T/t.ggmlviz" -o - 2>/dev/null | wc -c)
	[ "$format" = chrome ] && json=$bytes
	rss=$(tr ' ' '\n' <"$T/$format.rss" | sed -n 's/^maxrss_kib=//p')
	anon=$(tr ' ' '\n' <"$T/$format.rss" | sed -n 's/^anon_kib=//p')
	awk -v f="$format" -v b="$bytes" -v j="$json" -v r="$rss" -v a="$anon" \
		-v ms="$(((end - start) / 1000000))" 'BEGIN {
		printf "%-10s %13d bytes  %5.2fx smaller than JSON  peak RSS %7d KiB  anonymous %6d KiB  %6d ms\n",
			f, b, b ? j / b : 0, r, a, ms }'
done
