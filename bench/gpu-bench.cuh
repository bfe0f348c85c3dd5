/*
 * What bench/gpu-probe.cu, gpu-kernel-cost.cu and cupti-modes.cu share: a
 * CUDA call checked (its error said under the program's name,
 * GPU_BENCH_NAME, then exit 2), a kernel that spins for a number of the
 * GPU's cycles, and a CUDA graph of such kernels on a stream of its own.
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

/* A CUDA graph of n kernels that each spin for spin_ns, captured on a stream of its own. */
struct spin_graph {
	cudaStream_t stream;
	cudaGraph_t graph;
	float *buf;
	long long cycles; /* each kernel's spin, in the GPU's cycles */
};

/* Makes g on GPU 0; 0, or 77 after saying so where there is no GPU (a CUDA error exits 2). */
static inline int spin_graph_make(struct spin_graph *g, int n, int spin_ns)
{
	int clock_khz = 0, devices = 0;

	if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
		fprintf(stderr, "%s: no CUDA GPU\n", GPU_BENCH_NAME);
		return 77;
	}
	CHECK(cudaSetDevice(0));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	CHECK(cudaStreamCreate(&g->stream));
	CHECK(cudaMalloc(&g->buf, 1 << 20));
	g->cycles = (long long)clock_khz * spin_ns / 1000000;
	CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeGlobal));
	for (int i = 0; i < n; i++)
		spin<<<1, 32, 0, g->stream>>>(g->cycles, g->buf);
	CHECK(cudaStreamEndCapture(g->stream, &g->graph));
	return 0;
}

#endif /* GGMLVIZ_GPU_BENCH_CUH */
