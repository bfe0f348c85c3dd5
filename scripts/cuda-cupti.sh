#!/bin/sh
# Where CUPTI's headers are for the CUDA toolkit an nvcc belongs to: the
# folder to give configure --with-cupti (the one holding include/cupti.h),
# for scripts/build-llama-tools.sh --cuda and scripts/build-ggml-cuda.sh,
# so that a toolkit under /opt/cuda, in a conda environment or Debian's
# gets libggmlviz built with CUPTI as /usr/local/cuda's does.
#
#     scripts/cuda-cupti.sh NVCC
#
# Prints the folder and exits 0, or says where it looked and exits 1. The
# toolkit is the folder above nvcc's bin/, nvcc's link followed or not;
# CUPTI's headers are in its include/ (CUDA 12.5 on, conda's cuda-cupti,
# Debian's libcupti-dev under /usr), its extras/CUPTI/include/ (the
# toolkit's older layout), or its targets/x86_64-linux/include/ (conda).
#
# SPDX-License-Identifier: MIT
set -eu

[ $# -eq 1 ] || { echo "usage: $0 NVCC" >&2; exit 2; }
nvcc=$1
[ -x "$nvcc" ] || { echo "cuda-cupti: $nvcc is not an executable nvcc" >&2; exit 1; }

roots=$(cd "$(dirname "$nvcc")/.." && pwd)
real=$(readlink -f "$nvcc" 2>/dev/null || true)
[ -z "$real" ] || [ "$real" = "$nvcc" ] || roots="$roots $(cd "$(dirname "$real")/.." && pwd)"
looked=
for root in $roots; do
	for dir in "$root" "$root/extras/CUPTI" "$root/targets/x86_64-linux" "$root/targets/sbsa-linux"; do
		if [ -f "$dir/include/cupti.h" ]; then
			echo "$dir"
			exit 0
		fi
		looked="$looked $dir/include"
	done
done
echo "cuda-cupti: no cupti.h for $nvcc (looked in$looked): libggmlviz would record no kernel" >&2
exit 1
