#!/bin/sh
# Instructions that NVTX ranges' hooks cost, counted by callgrind (exact,
# where timings on a shared machine are not): bench_nvtx --once runs one
# session of steps, runs of 32 nodes (asked, ticked, recorded) and op
# begin/end pairs, each workload in one call of its function, and
# callgrind counts inside that function on the emitting thread; the
# difference between SCALE 2 and SCALE 1 is the base count of each (10000
# steps, 500 runs, 10000 pairs), with every first-time cost cancelled out.
# At GGML_VIZ_NVTX=0 and =2 (no tool is attached: NVTX_INJECTION64_PATH is
# unset), for each build given: bench/bench_nvtx.c is compiled against
# its lib/libggmlviz.a, so that a build of a commit before NVTX (which
# ignores GGML_VIZ_NVTX) gives the figures without the hooks.
#
#   bench/nvtx-insns.sh [BUILD_DIR [OTHER_BUILD_DIR ...]]   (default: build)
#
# SPDX-License-Identifier: MIT
set -eu
command -v valgrind >/dev/null || { echo "nvtx-insns: valgrind is not installed" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset NVTX_INJECTION64_PATH

# Instructions in function fn of the main thread: bench level scale fn.
count() {
	valgrind --tool=callgrind --separate-threads=yes --toggle-collect="$4" \
		--callgrind-out-file="$tmp/cg.%p" "$1" --once "$2" "$3" >/dev/null 2>&1
	f=$(find "$tmp" -name "cg.*-01" | head -1)
	sed -n 's/^totals: *//p; s/^summary: *//p' "$f" | head -1
	rm -f "$tmp"/cg.*
}

# Instructions per unit of fn: (count at scale 2 - count at scale 1) / base / per.
per() { # bench level fn base per
	a=$(count "$1" "$2" 1 "$3")
	b=$(count "$1" "$2" 2 "$3")
	awk -v a="$a" -v b="$b" -v n="$4" -v per="$5" 'BEGIN { printf "%9.1f", (b - a) / n / per }'
}

[ $# -gt 0 ] || set -- build
printf "%-28s %-6s %9s %9s %9s %9s\n" "instructions per:" "level" "step" "run" "op" "op pair"
for build in "$@"; do
	lib="$build/lib/libggmlviz.a"
	[ -f "$lib" ] || { echo "nvtx-insns: $lib is not built" >&2; exit 1; }
	inc=$(sed -n 's/^abs_top_srcdir = //p' "$build/Makefile")/include
	bench="$tmp/bench_nvtx.$(basename "$build")"
	"$cc" -O2 -std=c11 -pthread -I"$inc" -I"$src/bench" "$src/bench/bench_nvtx.c" "$lib" -ldl -lm \
		-o "$bench"
	for level in 0 2; do
		printf "%-28s %-6s" "$build" "$level"
		per "$bench" "$level" steps 10000 1
		per "$bench" "$level" runs 500 1
		per "$bench" "$level" runs 500 32
		per "$bench" "$level" pairs 10000 1
		echo
	done
done
