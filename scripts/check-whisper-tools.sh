#!/bin/sh
# Whether any object of whisper.cpp's library or tools still computes a
# graph itself, around the tracer: every call of GGML's compute functions
# (ggml_backend_sched_graph_compute() and its kin) in src/whisper.cpp
# should have become one of contrib/whisper.cpp/ggmlviz-whisper.h's
# wrappers, and the tools (examples/) should compute none of their own.
# scripts/build-whisper-tools.sh runs it after each build; it fails on a
# build of whisper.cpp without libggmlviz, or with the edits of another way.
#
#     scripts/check-whisper-tools.sh BUILD     (the CMake build folder)
#
# Prints each object and the function it calls directly; exits 1 if any
# does, if the library's object does not call the tracer's wrapper, or if
# the folder holds no object of the library.
#
# SPDX-License-Identifier: MIT
set -u
build=${1:?usage: check-whisper-tools.sh BUILD}
NM=${NM:-nm}
computes='ggml_backend_sched_graph_compute ggml_backend_sched_graph_compute_async ggml_backend_graph_compute ggml_backend_graph_compute_async ggml_graph_compute ggml_graph_compute_with_ctx'
checked=0
escaped=0
wrapped=0
for o in $(find "$build/src/CMakeFiles/whisper.dir" "$build/examples" \( -name '*.o' -o -name '*.obj' \) 2>/dev/null); do
	checked=$((checked + 1))
	undefined=$("$NM" -u "$o" 2>/dev/null | awk '$1 == "U" { print $2 }')
	for f in $undefined; do
		[ "$f" != ggmlviz_whisper_sched_compute ] || wrapped=$((wrapped + 1))
		case " $computes " in
		*" $f "*)
			echo "check-whisper-tools: ${o#"$build"/} calls $f() past the tracer"
			escaped=$((escaped + 1)) ;;
		esac
	done
done
if [ "$checked" -eq 0 ]; then
	echo "check-whisper-tools: no object of src/ (whisper) or examples/ under $build"
	exit 1
fi
if [ "$wrapped" -eq 0 ]; then
	echo "check-whisper-tools: no object calls ggmlviz_whisper_sched_compute(): whisper.cpp was built without contrib/whisper.cpp/ggmlviz-whisper.h"
	exit 1
fi
[ "$escaped" -eq 0 ] || exit 1
echo "check-whisper-tools: $checked objects, no graph computed past the tracer"
