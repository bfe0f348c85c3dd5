#!/bin/sh
# Builds GGML and libllama with CUDA from the fetched release's source, so
# that libggmlviz's GPU op times (CUPTI) can be tried and measured on a
# machine with an NVIDIA GPU and the CUDA toolkit (whose CUPTI the tracer
# loads at run time):
#
#     scripts/fetch-ggml.sh --source              (once, where npm reaches)
#     scripts/build-ggml-cuda.sh [--arch ARCH] [--cpu] [--src SRC] [DIR]
#     ./configure --with-ggml="$PWD/third_party/ggml-cuda" && make
#     bench/bench_llama --gpu-layers 99           (and the GPU checks of the README)
#
# The prebuilt CUDA package of the release is too big to carry to such a
# machine (its libggml-cuda.so alone is 159 MB and needs CUDA 13's
# runtime), but its source builds there: GGML, its CPU and CUDA backends
# and libllama, linked (not loaded as plugins), into DIR (default
# third_party/ggml-cuda) as a prefix that configure takes: include/,
# lib/, and a VERSION naming the release, the CUDA architectures and the
# toolkit. ARCH: CMAKE_CUDA_ARCHITECTURES (default "native": the GPUs of
# this machine; 90 for an H100 or H200). --cpu builds the same prefix
# without CUDA (to try the script where there is no toolkit). SRC: the
# source (default third_party/ggml/src, which fetch-ggml.sh --source
# makes); it is copied into DIR.src and edited there, never itself: its
# CPU backend then measures every worker thread's share of every node
# (scripts/copy-edited-source.sh --cpu-shares, as build-llama-tools.sh
# does), through libggmlviz's functions, which the program that links
# libggmlviz gives the shared GGML (weak references: a program without
# libggmlviz runs GGML as it is), and its scheduler tells libggmlviz each
# split graph's id and keeps it on the view it computes for an eval
# callback, so that a graph llama.cpp reuses is described once and a
# traced split's CUDA graph is reused as an untraced one's
# (--sched-graph-ids, contrib/llama.cpp/ggmlviz-sched.h), and it does not
# wait for the device after a split whose nodes no callback wanted
# (--sched-no-wait). Flash
# attention's CUDA kernels are left out (GGML_CUDA_FA=OFF): they take most
# of the build's time, and llama.cpp then computes attention without them.
# Run again, it builds only what changed.
#
# SPDX-License-Identifier: MIT
set -eu

die() {
	printf 'build-ggml-cuda: error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf 'build-ggml-cuda: %s\n' "$*"
}

usage() {
	printf 'usage: %s [--arch ARCH] [--cpu] [--src SRC] [DIR]\n' "$0"
	printf '  builds GGML and libllama with CUDA from third_party/ggml/src into DIR\n'
	printf '  (default: third_party/ggml-cuda), for configure --with-ggml=DIR\n'
}

top=$(cd "$(dirname "$0")/.." && pwd)
arch=native
cuda=ON
dest=
src="$top/third_party/ggml/src"
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || die "--arch wants a value (90, native, ...)"; arch=$2; shift ;;
	--cpu) cuda=OFF ;;
	--src) [ $# -ge 2 ] || die "--src wants a folder"; src=$2; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$1'" ;;
	*) [ -z "$dest" ] || die "more than one DIR given ('$dest', '$1')"; dest=$1 ;;
	esac
	shift
done
[ -n "$dest" ] || dest="$top/third_party/ggml-cuda"
build="$dest.build"
copy="$dest.src"

[ -f "$src/CMakeLists.txt" ] ||
	die "no llama.cpp source in $src: run scripts/fetch-ggml.sh --source first"
command -v cmake >/dev/null 2>&1 || die "cmake is needed (apt-get install cmake)"
generator=
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"
if [ "$cuda" = ON ]; then
	nvcc=$(command -v nvcc 2>/dev/null || true)
	[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
	[ -n "$nvcc" ] || die "no nvcc: install the CUDA toolkit, or add /usr/local/cuda/bin to PATH"
	toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
	cupti_dir=$("$top/scripts/cuda-cupti.sh" "$nvcc") || say "warning: libggmlviz will not record kernels"
	cuda_flags="-DCMAKE_CUDA_COMPILER=$nvcc -DCMAKE_CUDA_ARCHITECTURES=$arch -DGGML_CUDA_FA=OFF"
else
	toolkit=none
	cuda_flags=
	cupti_dir=
fi

command -v python3 >/dev/null 2>&1 || die "python3 is needed (it edits the copy of the source)"
"$top/scripts/copy-edited-source.sh" "$src" "$copy" --cpu-shares --sched-graph-ids --sched-no-wait ||
	die "nothing was built (the message above says what did not fit)"

# GCC 12's AMX miscompile: GGML without AMX where this CPU would run it
amx=$("$top/scripts/amx-check.sh")
say "configuring in $build (CUDA: $cuda, architectures: $arch)"
# shellcheck disable=SC2086 # the flags are words
cmake -S "$copy" -B "$build" $generator -DCMAKE_BUILD_TYPE=Release \
	-DCMAKE_C_FLAGS="-I$top/include -DGGMLVIZ_CPU_WEAK $amx" \
	-DCMAKE_CXX_FLAGS="-I$top/include -DGGMLVIZ_CPU_WEAK $amx" \
	-DCMAKE_INSTALL_PREFIX="$dest" -DCMAKE_INSTALL_LIBDIR=lib -DCMAKE_INSTALL_RPATH='$ORIGIN' \
	-DBUILD_SHARED_LIBS=ON -DGGML_BACKEND_DL=OFF -DGGML_NATIVE=ON -DGGML_CUDA="$cuda" \
	$cuda_flags -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_COMMON=OFF \
	-DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF \
	-DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF >"$build.log" 2>&1 ||
	{ tail -n 20 "$build.log" >&2; die "cmake could not configure (the whole log: $build.log)"; }
say "building (the log: $build.log)"
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >>"$build.log" 2>&1 ||
	{ tail -n 20 "$build.log" >&2; die "the build failed (the whole log: $build.log)"; }
cmake --install "$build" >>"$build.log" 2>&1 ||
	{ tail -n 20 "$build.log" >&2; die "cmake could not install into $dest"; }
[ -f "$dest/include/ggml.h" ] && [ -f "$dest/include/llama.h" ] &&
	ls "$dest"/lib/libllama.so >/dev/null 2>&1 ||
	die "$dest lacks include/ggml.h, include/llama.h or lib/libllama.so after the install"
{
	grep -v '^source=\|^vulkan=' "$src/../VERSION" 2>/dev/null || echo "source=$src"
	echo "cuda=$cuda"
	echo "cuda_architectures=$arch"
	echo "toolkit=$toolkit"
} >"$dest/VERSION"
say "GGML and libllama (CUDA: $cuda) are in $dest"
say "next: ./configure --with-ggml=$dest${cupti_dir:+ --with-cupti=$cupti_dir} && make && bench/bench_llama --gpu-layers 99"
