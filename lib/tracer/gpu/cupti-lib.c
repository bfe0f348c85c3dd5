/*
 * libcupti, loaded at run time with dlopen(3) (see cupti.h): its
 * functions, which versions this build reads, and why it refused, in
 * words.
 *
 * Which versions: the records read here (kernels, copies, sets, external
 * correlations) keep the members used at the same offsets in every layout
 * since CUDA 11 (Kernel4 to Kernel10, Memcpy4 to Memcpy6, Memset3 and 4),
 * and the functions keep their signatures; so a CUPTI from CUDA 11.8 (API
 * version 18) up to the generation of the headers this was built with is
 * read. A newer generation may change a layout: it is refused.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "tracer/gpu/gpu.h"

#if HAVE_CUPTI

#include <dlfcn.h>
#include <string.h>

#include "tracer/gpu/cupti.h"

#define OLDEST_VERSION 18u /* CUDA 11.8 */

struct ggmlviz__cupti_api ggmlviz__cupti_api;
uint32_t ggmlviz__cupti_version;
char ggmlviz__cupti_path[256];

static void *lib;

#define LOAD(field, symbol) \
	(*(void **)&ggmlviz__cupti_api.field = dlsym(lib, symbol)) != NULL
#define LOAD_OPTIONAL(field, symbol) (*(void **)&ggmlviz__cupti_api.field = dlsym(lib, symbol))

static int load_symbols(void)
{
	LOAD_OPTIONAL(subscribe_v2, "cuptiSubscribe_v2");
	LOAD_OPTIONAL(enable_runtime_api, "cuptiActivityEnableRuntimeApi");
	LOAD_OPTIONAL(enable_driver_api, "cuptiActivityEnableDriverApi");
	LOAD_OPTIONAL(set_attribute, "cuptiActivitySetAttribute");
	return LOAD(get_version, "cuptiGetVersion") && LOAD(subscribe, "cuptiSubscribe") &&
	       LOAD(unsubscribe, "cuptiUnsubscribe") && LOAD(enable_callback, "cuptiEnableCallback") &&
	       LOAD(register_callbacks, "cuptiActivityRegisterCallbacks") &&
	       LOAD(enable, "cuptiActivityEnable") && LOAD(disable, "cuptiActivityDisable") &&
	       LOAD(next_record, "cuptiActivityGetNextRecord") &&
	       LOAD(dropped, "cuptiActivityGetNumDroppedRecords") &&
	       LOAD(flush_all, "cuptiActivityFlushAll") &&
	       LOAD(push, "cuptiActivityPushExternalCorrelationId") &&
	       LOAD(pop, "cuptiActivityPopExternalCorrelationId") &&
	       LOAD(timestamp, "cuptiGetTimestamp") && LOAD(result_string, "cuptiGetResultString");
}

/* The CUDA major version of a CUPTI API version: 11, 12, 13...; 0 when older than 11.8. */
static uint32_t generation(uint32_t version)
{
	if (version >= 10000)
		return version / 10000; /* CUDA 13's numbering: xxyyzz */
	return version >= 19 ? 12 : version >= OLDEST_VERSION ? 11 : 0;
}

static int open_lib(const char *path, char *why, size_t size)
{
	static const char *const places[] = {
		"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
		"/usr/local/cuda/lib64/libcupti.so",
	};

	for (size_t i = 0; !lib && i < (path ? 1 : sizeof places / sizeof places[0]); i++) {
		const char *p = path ? path : places[i];
		if ((lib = dlopen(p, RTLD_NOW | RTLD_LOCAL)))
			snprintf(ggmlviz__cupti_path, sizeof ggmlviz__cupti_path, "%s", p);
	}
	if (lib)
		return 0;
	snprintf(why, size, "not recorded: %s could not be loaded (%s); GGML_VIZ_CUPTI=PATH names it",
		 path ? path : "libcupti (CUDA's profiling library)",
		 path ? dlerror() : "not found where the dynamic loader and /usr/local/cuda look");
	return path ? -1 : -2; /* none here and none named: nothing to say unasked */
}

int ggmlviz__cupti_load(const char *path, char *why, size_t size)
{
	uint32_t v = 0;
	int rc;

	if (!lib && (rc = open_lib(path, why, size)) < 0)
		return rc;
	if (!load_symbols()) {
		snprintf(why, size, "not recorded: %s lacks a function of CUPTI's activity API",
			 ggmlviz__cupti_path);
		return -1;
	}
	if (ggmlviz__cupti_api.get_version(&v) != CUPTI_SUCCESS || v < OLDEST_VERSION ||
	    generation(v) > generation(CUPTI_API_VERSION)) {
		snprintf(why, size, "not recorded: %s has CUPTI API version %u (CUDA %u); this "
			 "libggmlviz reads CUDA 11.8's (version %u) to its headers' (version %u, "
			 "CUDA %u)", ggmlviz__cupti_path, v, generation(v), OLDEST_VERSION,
			 (unsigned)CUPTI_API_VERSION, generation(CUPTI_API_VERSION));
		return -1;
	}
	ggmlviz__cupti_version = v;
	return 0;
}

void ggmlviz__cupti_unload(void)
{
	if (lib)
		dlclose(lib);
	lib = NULL;
}

int ggmlviz__cupti_null_buffer_ok(void)
{
	return ggmlviz__cupti_version >= 27;
}

const char *ggmlviz__cupti_error(CUptiResult rc)
{
	const char *s = NULL;

	if (ggmlviz__cupti_api.result_string &&
	    ggmlviz__cupti_api.result_string(rc, &s) == CUPTI_SUCCESS && s)
		return s;
	return "an error CUPTI does not name";
}

/*
 * The CUDA version the loaded driver supports (12040: 12.4), or 0 when no
 * driver is loaded in this process. The driver stays as the program
 * loaded it: RTLD_NOLOAD.
 */
static int driver_version(void)
{
	void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
	int (*get)(int *);
	int v = 0;

	if (!cuda)
		return 0;
	*(void **)&get = dlsym(cuda, "cuDriverGetVersion");
	if (!get || get(&v) != 0)
		v = 0;
	dlclose(cuda); /* only drops the reference NOLOAD took */
	return v;
}

/* The oldest driver this CUPTI works with: one of its own CUDA version (major and minor). */
static int needed_driver(void)
{
	static const struct { uint32_t api; int cuda; } versions[] = {
		{ 28, 12090 }, { 27, 12090 }, { 26, 12080 }, { 24, 12060 }, { 23, 12050 },
		{ 22, 12040 }, { 21, 12030 }, { 20, 12020 }, { 19, 12000 }, { 18, 11080 },
	};
	uint32_t v = ggmlviz__cupti_version;

	if (v >= 10000)
		return (int)(v / 10000 * 1000 + v / 100 % 100 * 10);
	for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
		if (v >= versions[i].api)
			return versions[i].cuda;
	return 0;
}

void ggmlviz__cupti_refused(const char *what, CUptiResult rc, char *why, size_t size)
{
	int have = driver_version(), need = needed_driver();

	if (!have)
		snprintf(why, size, "not recorded: CUPTI refused to %s (%s): no NVIDIA driver is "
			 "loaded in this process (libcuda.so.1)", what, ggmlviz__cupti_error(rc));
	else if (have < need)
		snprintf(why, size, "not recorded: CUPTI refused to %s (%s): the NVIDIA driver "
			 "supports CUDA %d.%d, older than this CUPTI's CUDA %d.%d (%s), which needs "
			 "a driver at least as new as its toolkit", what, ggmlviz__cupti_error(rc),
			 have / 1000, have % 1000 / 10, need / 1000, need % 1000 / 10,
			 ggmlviz__cupti_path);
	else
		snprintf(why, size, "not recorded: CUPTI refused to %s (%s)", what,
			 ggmlviz__cupti_error(rc));
}

#endif /* HAVE_CUPTI */
