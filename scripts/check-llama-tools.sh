#!/bin/sh
# Whether any object of llama.cpp's tools, common library or examples still
# calls llama_decode() or llama_encode() itself, around the tracer: every
# such call should have become one of contrib/llama.cpp/ggmlviz-llama-tools.h's
# wrappers (a call through a pointer to the function is the way past it).
# scripts/build-llama-tools.sh runs it after each build; it fails on a build
# of llama.cpp's tools without libggmlviz, or with the edits of another way.
#
#     scripts/check-llama-tools.sh BUILD     (the CMake build folder)
#
# Prints each object and the function it calls directly; exits 1 if any
# does, or if the folder holds no object of those targets.
#
# SPDX-License-Identifier: MIT
set -u
build=${1:?usage: check-llama-tools.sh BUILD}
NM=${NM:-nm}
checked=0
escaped=0
for dir in common tools examples; do
	[ -d "$build/$dir" ] || continue
	for o in $(find "$build/$dir" -name '*.o' -o -name '*.obj'); do
		checked=$((checked + 1))
		calls=$("$NM" -u "$o" 2>/dev/null | awk '$1 == "U" && ($2 == "llama_decode" || $2 == "llama_encode") { print $2 }')
		for f in $calls; do
			echo "check-llama-tools: ${o#"$build"/} calls $f() past the tracer"
			escaped=$((escaped + 1))
		done
	done
done
if [ "$checked" -eq 0 ]; then
	echo "check-llama-tools: no object of common/, tools/ or examples/ under $build"
	exit 1
fi
[ "$escaped" -eq 0 ] || exit 1
echo "check-llama-tools: $checked objects, no call of llama_decode() or llama_encode() past the tracer"
