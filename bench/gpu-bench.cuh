/*
 * What bench/gpu-probe.cu and bench/gpu-kernel-cost.cu share: a CUDA call
 * checked (its error said under the program's name, GPU_BENCH_NAME, then
 * exit 2), and a kernel that spins for a number of the GPU's cycles.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GPU_BENCH_CUH
#define GGMLVIZ_GPU_BENCH_CUH

#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t e_ = (call);                                                   \
		if (e_ != cudaSuccess) {                                                   \
			fprintf(stderr, "%s: %s: %s\n", GPU_BENCH_NAME, #call,             \
				cudaGetErrorString(e_));                                   \
			exit(2);                                                           \
		}                                                                          \
	} while (0)

/* Spins for cycles of the GPU's clock; the first thread of each block writes how long. */
__global__ void spin(long long cycles, float *out)
{
	long long t0 = clock64();

	while (clock64() - t0 < cycles)
		;
	if (out && threadIdx.x == 0)
		out[blockIdx.x] = (float)(clock64() - t0);
}

#endif /* GGMLVIZ_GPU_BENCH_CUH */
