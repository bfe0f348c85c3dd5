#!/bin/sh
# The GPU benchmarks of bench/gpu-check.sh build here as they will on a GPU
# machine (TAP): bench/gpu-probe.cu, gpu-kernel-cost.cu (against this
# build's libggmlviz.a) and cupti-modes.cu (against the toolkit's CUPTI),
# compiled with nvcc as gpu-check.sh compiles them, and run: without a GPU
# the two that take none exit 77 saying so, gpu-probe its usage (2). So a
# GPU session spends its minutes on measuring, not on mending a build.
# Skipped without the CUDA toolkit (nvcc and cupti.h: /usr/local/cuda),
# which CI's machine has not, and in sanitized builds.
#
# SPDX-License-Identifier: MIT
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$(dirname "$0")/tap.sh"

nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
toolkit=
[ -n "$nvcc" ] && toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
if [ -z "$nvcc" ] || [ ! -f "$toolkit/include/cupti.h" ]; then
	echo "1..0 # SKIP no CUDA toolkit (nvcc and cupti.h): bench/gpu-check.sh builds these on a GPU machine"
	exit 0
fi
if [ -n "${SAN_FLAGS:-}" ]; then
	echo "1..0 # SKIP sanitized build: gpu-check.sh links the plain library"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-gpu-bench.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
lib=$top_builddir/lib/libggmlviz.a
cupti_lib=$(find "$toolkit" -name 'libcupti.so' 2>/dev/null | head -n 1)
cupti_dir=$(dirname "${cupti_lib:-$toolkit/lib64/libcupti.so}")

# build NAME NVCC-ARGS...: compiled as bench/gpu-check.sh compiles it
build() {
	name=$1
	shift
	"$nvcc" -std=c++17 -O2 "$@" -o "$T/$name" >"$T/$name.build" 2>&1
	ok $? "bench/$name.cu builds with nvcc as bench/gpu-check.sh builds it"
	[ -x "$T/$name" ] || sed 's/^/# /' "$T/$name.build" | head -10
}

build gpu-probe -I"$top_srcdir/include" "$top_srcdir/bench/gpu-probe.cu" "$lib" -lpthread -ldl
build gpu-kernel-cost -I"$top_srcdir/include" "$top_srcdir/bench/gpu-kernel-cost.cu" "$lib" \
	-lpthread -ldl
build cupti-modes -I"$toolkit/include" "$top_srcdir/bench/cupti-modes.cu" -L"$cupti_dir" -lcupti \
	-Xlinker -rpath -Xlinker "$cupti_dir"

if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi >/dev/null 2>&1; then
	echo "# a GPU is here: bench/gpu-check.sh runs them"
else
	"$T/gpu-probe" >/dev/null 2>"$T/probe.err"
	[ $? -eq 2 ] && grep -q "usage: gpu-probe" "$T/probe.err"
	ok $? "gpu-probe runs, and says its usage (2)"
	for name in gpu-kernel-cost cupti-modes; do
		"$T/$name" 1 2000 >/dev/null 2>"$T/$name.err"
		[ $? -eq 77 ] && grep -q "no CUDA GPU" "$T/$name.err"
		ok $? "$name runs, and without a GPU says so (77)"
	done
fi
echo "1..$n"
