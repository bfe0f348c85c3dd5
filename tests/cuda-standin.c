/*
 * A stand-in for the NVIDIA driver's libcuda.so.1, as far as libggmlviz
 * asks it anything: the CUDA version it supports (cuDriverGetVersion), so
 * that a test can play a driver older than CUPTI. Built by the tests as
 * tests/standin-driver/libcuda.so.1 (that soname), and loaded by the test
 * program as a CUDA program loads the driver. CUDA_STANDIN_DRIVER: the
 * version it gives (default 13000: CUDA 13.0).
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdlib.h>

__attribute__((visibility("default"))) int cuDriverGetVersion(int *version);

int cuDriverGetVersion(int *version)
{
	const char *s = getenv("CUDA_STANDIN_DRIVER");

	if (!version)
		return 1; /* CUDA_ERROR_INVALID_VALUE */
	*version = s && *s ? atoi(s) : 13000;
	return 0;
}
