#!/bin/sh
# Instructions per recorded event, counted by callgrind (where the machine
# has no hardware counters): bench_tracer --emit-only runs a session that
# records N op begin/end pairs twice, and callgrind counts only inside its
# emit loop (the writer's work is elsewhere); the difference between
# N = 20000 and N = 40000 is 2 x 20000 pairs, 80000 events, with the first
# event's slow path cancelled out. Then the same loop in a shared object
# that linked lib/libggmlviz.a (bench/emit-so.c): the archive is built
# position-independent, and its thread-locals use the initial-exec model.
#
#   bench/insns.sh [BUILD_DIR]    (default: build)
#
# SPDX-License-Identifier: MIT
set -eu
build=${1:-build}
bench="$build/bench/bench_tracer"
command -v valgrind >/dev/null || { echo "insns: valgrind is not installed" >&2; exit 1; }
[ -x "$bench" ] || { echo "insns: $bench is not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Instructions of the thread that emitted (main thread: callgrind's thread 1).
count() { # pairs [program and its arguments before the pairs]
	n=$1
	shift
	[ $# -gt 0 ] || set -- "$bench" --emit-only
	valgrind --tool=callgrind --separate-threads=yes --toggle-collect=emit_pairs \
		--callgrind-out-file="$tmp/cg.%p" "$@" "$n" >/dev/null 2>&1
	f=$(find "$tmp" -name "cg.*-01" | head -1)
	total=$(sed -n 's/^totals: *//p; s/^summary: *//p' "$f" | head -1)
	rm -f "$tmp"/cg.*
	echo "$total"
}
per_event() { # what
	awk -v a="$a" -v b="$b" -v what="$1" 'BEGIN {
		printf "instructions per recorded event (callgrind, the emitting thread), %s: %.1f\n",
			what, (b - a) / 80000
	}'
}
a=$(count 20000)
b=$(count 40000)
per_event "in a program"

src=$(cd "$(dirname "$0")/.." && pwd)
cc=${CC:-cc}
"$cc" -O2 -fPIC -shared -I"$src/include" "$src/bench/emit-so.c" "$build/lib/libggmlviz.a" \
	-pthread -o "$tmp/libemit.so"
"$cc" -O2 -DEMIT_SO_MAIN -I"$src/include" "$src/bench/emit-so.c" "$tmp/libemit.so" \
	-Wl,-rpath,"$tmp" -o "$tmp/emit-so"
a=$(count 20000 "$tmp/emit-so" "$tmp/so.ggmlviz")
b=$(count 40000 "$tmp/emit-so" "$tmp/so.ggmlviz")
per_event "in a shared object"
