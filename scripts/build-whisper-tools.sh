#!/bin/sh
# Builds whisper.cpp's own tools traced by libggmlviz: whisper-cli,
# whisper-bench and whisper-server (or the tools --tools names), from the
# release scripts/fetch-whisper.sh fetches, or from your own whisper.cpp
# checkout, for the CPU, CUDA or Vulkan. When GGML_VIZ_OUTPUT is set
# (GGML_VIZ_OUTPUT=run.ggmlviz), a tool traces from its model load to its
# exit: each encoder run a step of phase encode, each decoder call a step
# (the prompt, each generated token; whisper_full's decoders, beams or
# best-of, the sequences of its batch), the mel spectrogram a scope, every
# op timed in its layer (the encoder's or the decoder's); unset, it runs as
# the original does.
#
#     scripts/build-whisper-tools.sh [--source DIR] [--cuda [--arch ARCH]] [--vulkan]
#                                    [--portable] [--tools LIST] [OUT]
#     GGML_VIZ_OUTPUT=cli.ggmlviz OUT/build/bin/whisper-cli -m model.bin -f speech.wav
#
# whisper.cpp has no eval callback to give: contrib/whisper.cpp/ggmlviz.cmake
# (CMAKE_PROJECT_INCLUDE) forces contrib/whisper.cpp/ggmlviz-whisper.h into
# the compilation of whisper.cpp's library, so that every graph it
# computes, wherever upstream puts the call, goes through the tracer, which
# traces its scheduler (ggmlviz_ggml_trace_sched(3)); after the build, a
# check fails if any object of the library still calls GGML's compute
# functions itself. The source is copied into OUT/src first (DIR is never
# written to); the edits a build needs there are
# contrib/whisper.cpp/ggmlviz-edit.py's, each of which says where it did
# not fit: whisper.cpp's stages wrapped where they are called (the encoder,
# the decoder, the mel spectrogram, the model load, in src/whisper.cpp),
# whisper-server's requests (`ggmlviz stats --by request`), and, in
# whisper.cpp's own GGML, those llama.cpp's tools get (scripts/build-llama-tools.sh):
# every worker thread's share of every node measured, the split graphs'
# ids, no wait for the device after a split, and for --vulkan the nodes'
# GPU times and Debian 12's toolchain.
#
#   --source DIR  a whisper.cpp checkout (its tracked and untracked files,
#                 not what git ignores); default: the fetched release
#                 (scripts/fetch-whisper.sh, which this runs if needed),
#                 the one the tests use
#   --cuda        GGML's CUDA backend (nvcc: PATH or /usr/local/cuda; CUPTI's
#                 headers of its toolkit, found by scripts/cuda-cupti.sh);
#                 --arch ARCH: CMAKE_CUDA_ARCHITECTURES (default native)
#   --vulkan      GGML's Vulkan backend (glslc, libvulkan-dev:
#                 scripts/install-deps.sh)
#   --portable    the CPU build without -march=native: AVX2's instructions,
#                 none of AVX-512's, which valgrind 3.19 (Debian 12's) does
#                 not know (bench/op-insns.py counts under callgrind)
#   --tools LIST  the CMake targets to build (default: whisper-cli,
#                 whisper-bench,whisper-server)
#   OUT           default third_party/whisper-tools (-cuda, -vulkan, -portable; for
#                 --source, -src-NAME after the checkout's folder)
#
# libggmlviz is built from this checkout and installed into OUT/ggmlviz
# (scripts/install-ggmlviz-cmake.sh). GGML and whisper.cpp are linked
# statically. Run again, it builds what changed only. The last line
# printed is the folder holding the tools.
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
contrib="$top/contrib/whisper.cpp"
me=build-whisper-tools
project=whisper.cpp
tools="whisper-cli,whisper-bench,whisper-server"
# shellcheck source=scripts/tools-build.sh
. "$top/scripts/tools-build.sh"
tools_parse_options 'whisper-cli,whisper-bench' "$@"
for t in $(echo "$tools" | tr ',' ' '); do
	case "$t" in
	whisper-cli | whisper-bench | whisper-server) ;;
	*) die "--tools: '$t' is not one of whisper-cli, whisper-bench, whisper-server" ;;
	esac
done
tools_need_commands

# ---- 1. the source ----
release="$top/third_party/whisper.cpp/src"
if [ -n "$source_dir" ]; then
	[ -d "$source_dir" ] || die "--source $source_dir: no such folder"
	source_dir=$(cd "$source_dir" && pwd)
	[ -f "$source_dir/include/whisper.h" ] && [ -f "$source_dir/src/whisper.cpp" ] &&
		[ -f "$source_dir/CMakeLists.txt" ] && [ -d "$source_dir/ggml" ] ||
		die "--source $source_dir is not a whisper.cpp checkout (no include/whisper.h, src/whisper.cpp, ggml/ or CMakeLists.txt)"
	suffix="-src-$(basename "$source_dir")"
	if [ -d "$release" ] && [ "$(cd "$source_dir" && pwd -P)" = "$(cd "$release" && pwd -P)" ]; then
		suffix=
	fi
else
	source_dir=$release
	if [ ! -f "$source_dir/CMakeLists.txt" ]; then
		say "fetching whisper.cpp's source (scripts/fetch-whisper.sh)"
		"$top/scripts/fetch-whisper.sh" >&2 || die "the source could not be fetched"
	fi
	suffix=
fi
[ "$backend" = cpu ] || suffix="$suffix-$backend"
[ -z "$portable" ] || suffix="$suffix-portable"
[ -n "$out" ] || out="$top/third_party/whisper-tools$suffix"
out=$(realpath -m "$out") # not made yet: the source is never written to, not even a folder
case "$out/" in "$(realpath "$source_dir")"/*) die "OUT ($out) is inside the source ($source_dir), which is never written to" ;; esac
mkdir -p "$out"
log="$out/build.log"
: >"$log"

# ---- 2. the copy, made again when the source or the edits changed ----
edits="--whisper-stages --cpu-shares --sched-graph-ids --sched-no-wait"
case ",$tools," in *,whisper-server,*) edits="$edits --server-requests" ;; esac
[ "$backend" = vulkan ] && edits="$edits --vulkan-guards --vulkan-times"
# shellcheck disable=SC2086 # the options are words
"$top/scripts/copy-edited-source.sh" --for whisper.cpp "$source_dir" "$out/src" $edits ||
	die "nothing was built (the message above says what did not fit)"

# ---- 3. libggmlviz, installed where CMake finds it ----
tools_install_ggmlviz

# ---- 4. the tools ----
tools_cmake_options
say "configuring and building in $out/build (the log: $log)"
# shellcheck disable=SC2086 # the generator's and the backend's words
cmake -S "$out/src" -B "$out/build" $generator -DCMAKE_BUILD_TYPE=Release \
	-DBUILD_SHARED_LIBS=OFF -DGGML_BACKEND_DL=OFF $backend_flags \
	-DCMAKE_C_FLAGS="$amx" -DCMAKE_CXX_FLAGS="$amx" \
	-DCMAKE_PROJECT_INCLUDE="$contrib/ggmlviz.cmake" -Dggmlviz_DIR="$ggmlviz_dir" \
	-DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_EXAMPLES=ON -DWHISPER_BUILD_SERVER=ON \
	-DWHISPER_SDL2=OFF -DWHISPER_CURL=OFF -DWHISPER_COMMON_FFMPEG=OFF >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "cmake could not configure (the whole log: $log)"; }
grep -q '^-- ggmlviz: whisper traced' "$log" ||
	die "contrib/whisper.cpp/ggmlviz.cmake traced no target of this whisper.cpp (see $log)"
tools_build_targets

# ---- 5. no graph escapes the tracer ----
"$top/scripts/check-whisper-tools.sh" "$out/build" >&2 || die "the tools were built, but not all traced"
say "$(echo "$tools" | sed 's/,/, /g'), traced when GGML_VIZ_OUTPUT is set:"
echo "$out/build/bin"
