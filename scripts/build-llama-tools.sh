#!/bin/sh
# Builds llama.cpp's own tools traced by libggmlviz: llama-bench, llama-cli,
# llama-completion and llama-server (or the tools --tools names), from the
# release scripts/fetch-ggml.sh fetches, or from your own llama.cpp
# checkout, for the CPU, CUDA or Vulkan, and with GGML's RPC backend and
# its server (--rpc). When GGML_VIZ_OUTPUT is set
# (GGML_VIZ_OUTPUT=run.ggmlviz), a tool traces from its first model load to
# its exit, every llama_decode() and llama_encode() a step; unset, it runs
# as the original does.
#
#     scripts/build-llama-tools.sh [--source DIR] [--cuda [--arch ARCH]] [--vulkan] [--rpc]
#                                  [--portable] [--tools LIST] [OUT]
#     GGML_VIZ_OUTPUT=bench.ggmlviz OUT/build/bin/llama-bench -m model.gguf
#
# Nothing of llama.cpp is edited to trace the decodes: CMake gets
# contrib/llama.cpp/ggmlviz.cmake (CMAKE_PROJECT_INCLUDE), which forces
# contrib/llama.cpp/ggmlviz-llama-tools.h into the compilation of every
# target of common/, tools/ and examples/, so that every call of
# llama_decode() and llama_encode(), wherever upstream puts it, goes through
# the tracer; after the build, a check fails if any object of those targets
# still calls them directly. The source is copied into OUT/src first (DIR is
# never written to); the edits a build needs there are
# contrib/llama.cpp/ggmlviz-edit.py's, each of which says where it did not
# fit: every worker thread's share of every node, measured inside GGML's
# CPU backend (contrib/llama.cpp/ggmlviz-cpu.h: the ops are then measured,
# not estimated, and each worker has its lane), each split graph's id told
# to libggmlviz by GGML's scheduler (contrib/llama.cpp/ggmlviz-sched.h: a
# graph llama.cpp reuses is described once) and kept on its view of a
# whole split (so that a CUDA backend reuses a traced split's CUDA graph as
# it does an untraced one's), no wait for the device after a split whose
# nodes the tracer only asked about (a traced GPU run queues its splits as
# an untraced one does), llama-server's requests (a
# call where a request arrives, starts its prompt, gets its first token and
# ends: `ggmlviz stats --by request`), and
# for --vulkan, each node's GPU time from the Vulkan backend's timestamp
# queries (contrib/llama.cpp/ggmlviz-vulkan.h) and Debian 12's toolchain,
# and GGML's RPC backend, on both sides of the wire: each command the
# client sends and the server serves, and the server's ops
# (contrib/llama.cpp/ggmlviz-rpc.h: doc/rpc.md).
#
#   --source DIR  a llama.cpp checkout (releases of the last months; its
#                 tracked and untracked files, not what git ignores);
#                 default: the fetched release (scripts/fetch-ggml.sh
#                 --source, which this runs if needed), the one the tests use
#   --cuda        GGML's CUDA backend (nvcc: PATH or /usr/local/cuda; CUPTI's
#                 headers of its toolkit, found by scripts/cuda-cupti.sh);
#                 --arch ARCH: CMAKE_CUDA_ARCHITECTURES (default native)
#   --rpc         GGML's RPC backend (GGML_RPC) in the tools (--rpc HOST:PORT),
#                 and its server, ggml-rpc-server, added to the tools built;
#                 both traced (the server when GGML_VIZ_OUTPUT is set)
#   --vulkan      GGML's Vulkan backend (glslc, libvulkan-dev:
#                 scripts/install-deps.sh); on Mesa's software device, run
#                 with GGML_VK_VISIBLE_DEVICES=0
#   --portable    the CPU build without -march=native: AVX2's instructions,
#                 none of AVX-512's, which valgrind 3.19 (Debian 12's) does
#                 not know (bench/op-insns.py counts under callgrind)
#   --tools LIST  the CMake targets to build (default: llama-bench,llama-cli,
#                 llama-completion,llama-server)
#   OUT           default third_party/llama-tools (-cuda, -vulkan, -portable; for
#                 --source, -src-NAME after the checkout's folder, unless
#                 it is the fetched release's source)
#
# libggmlviz is built and installed into OUT/ggmlviz from this checkout,
# whatever state it is in (configured in place, out of tree, or not at
# all), and found by CMake's find_package(ggmlviz). GGML and libllama are
# linked statically. Run again, it builds what changed only. The last line
# printed is the folder holding the tools.
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
contrib="$top/contrib/llama.cpp"
me=build-llama-tools
project=llama.cpp
tools="llama-bench,llama-cli,llama-completion,llama-server"
# shellcheck source=scripts/tools-build.sh
. "$top/scripts/tools-build.sh"
tools_parse_options 'llama-bench,llama-server' "$@"
tools_need_commands

# ---- 1. the source ----
if [ -n "$source_dir" ]; then
	[ -d "$source_dir" ] || die "--source $source_dir: no such folder"
	source_dir=$(cd "$source_dir" && pwd)
	[ -f "$source_dir/include/llama.h" ] && [ -f "$source_dir/CMakeLists.txt" ] &&
		[ -d "$source_dir/ggml" ] ||
		die "--source $source_dir is not a llama.cpp checkout (no include/llama.h, ggml/ or CMakeLists.txt)"
	suffix="-src-$(basename "$source_dir")"
	# the fetched release named as a checkout (~/llama.cpp a link to it) is the default build
	release="$top/third_party/ggml/src"
	if [ -d "$release" ] && [ "$(cd "$source_dir" && pwd -P)" = "$(cd "$release" && pwd -P)" ]; then
		suffix=
	fi
else
	source_dir="$top/third_party/ggml/src"
	if [ ! -f "$source_dir/CMakeLists.txt" ]; then
		say "fetching the release's llama.cpp source (scripts/fetch-ggml.sh --source)"
		"$top/scripts/fetch-ggml.sh" --source >&2 || die "the source could not be fetched"
	fi
	suffix=
fi
[ "$backend" = cpu ] || suffix="$suffix-$backend"
[ -z "$portable" ] || suffix="$suffix-portable"
[ -n "$out" ] || out="$top/third_party/llama-tools$suffix"
mkdir -p "$out"
out=$(cd "$out" && pwd)
case "$out/" in "$source_dir"/*) die "OUT ($out) is inside the source ($source_dir), which is never written to" ;; esac
log="$out/build.log"
: >"$log"

# ---- 2. the copy, made again when the source or the edits changed ----
# the RPC edit always, so that a build with --rpc and one without share the copy (it is compiled
# only where GGML_RPC is on)
edits="--cpu-shares --sched-graph-ids --sched-no-wait --rpc-commands"
case ",$tools," in *,llama-server,*) edits="$edits --server-requests" ;; esac
[ "$backend" = vulkan ] && edits="$edits --vulkan-guards --vulkan-times"
# shellcheck disable=SC2086 # the options are words
"$top/scripts/copy-edited-source.sh" "$source_dir" "$out/src" $edits ||
	die "nothing was built (the message above says what did not fit)"

rpc_flags=
if [ -n "$rpc" ]; then
	rpc_flags="-DGGML_RPC=ON"
	case ",$tools," in *,ggml-rpc-server,*) ;; *) tools="$tools,ggml-rpc-server" ;; esac
fi

# ---- 3. libggmlviz, installed where CMake finds it ----
tools_install_ggmlviz

# ---- 4. the tools ----
tools_cmake_options
say "configuring and building in $out/build (the log: $log)"
# shellcheck disable=SC2086 # the generator's and the backend's words
cmake -S "$out/src" -B "$out/build" $generator -DCMAKE_BUILD_TYPE=Release \
	-DBUILD_SHARED_LIBS=OFF -DGGML_BACKEND_DL=OFF $backend_flags $rpc_flags \
	-DCMAKE_C_FLAGS="$amx" -DCMAKE_CXX_FLAGS="$amx" \
	-DCMAKE_PROJECT_INCLUDE="$contrib/ggmlviz.cmake" -Dggmlviz_DIR="$ggmlviz_dir" \
	-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF \
	-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >>"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "cmake could not configure (the whole log: $log)"; }
grep -q '^-- ggmlviz: [1-9][0-9]* targets' "$log" ||
	die "contrib/llama.cpp/ggmlviz.cmake traced no target of this llama.cpp (see $log)"
tools_build_targets

# ---- 5. no call escapes the tracer ----
"$top/scripts/check-llama-tools.sh" "$out/build" >&2 || die "the tools were built, but not all traced"
say "$(echo "$tools" | sed 's/,/, /g'), traced when GGML_VIZ_OUTPUT is set:"
echo "$out/build/bin"
