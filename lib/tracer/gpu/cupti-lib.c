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
	LOAD_OPTIONAL(finalize, "cuptiFinalize");
	LOAD_OPTIONAL(enable_domain, "cuptiEnableDomain");
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

/* Where libcupti usually is, in the order tried when none is named. */
static const char *const places[] = {
	"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so",
	"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
	"/usr/local/cuda/lib64/libcupti.so",
};

/*
 * The library opened from p: 0 when it has every function and a version
 * this build reads (then kept, its version and path set); else -1 with
 * why, closed again.
 */
static int try_lib(const char *p, char *why, size_t size)
{
	uint32_t v = 0;

	if (!(lib = dlopen(p, RTLD_NOW | RTLD_LOCAL))) {
		snprintf(why, size, "%s could not be loaded (%s)", p, dlerror());
		return -1;
	}
	snprintf(ggmlviz__cupti_path, sizeof ggmlviz__cupti_path, "%s", p);
	if (!load_symbols()) {
		snprintf(why, size, "%s lacks a function of CUPTI's activity API", p);
	} else if (ggmlviz__cupti_api.get_version(&v) != CUPTI_SUCCESS || v < OLDEST_VERSION ||
		   generation(v) > generation(CUPTI_API_VERSION)) {
		snprintf(why, size, "%s has CUPTI API version %u (CUDA %u); this libggmlviz reads "
			 "CUDA 11.8's (version %u) to its headers' (version %u, CUDA %u)", p, v,
			 generation(v), OLDEST_VERSION, (unsigned)CUPTI_API_VERSION,
			 generation(CUPTI_API_VERSION));
	} else {
		ggmlviz__cupti_version = v;
		return 0;
	}
	dlclose(lib);
	lib = NULL;
	return -1;
}

/* The next candidate of a list separated by ':' into out; 0 at its end. */
static int next_named(const char **list, char *out, size_t size)
{
	const char *s = *list, *colon;
	size_t n;

	while (*s == ':')
		s++;
	if (!*s)
		return 0;
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	snprintf(out, size, "%.*s", (int)n, s);
	*list = s + n;
	return 1;
}

int ggmlviz__cupti_load(const char *path, char *why, size_t size)
{
	char one[256], last[384] = "";
	const char *list = path;
	unsigned tried = 0, opened = 0;

	if (lib)
		return 0;
	for (size_t i = 0; path ? next_named(&list, one, sizeof one)
				: i < sizeof places / sizeof places[0]; i++) {
		const char *p = path ? one : places[i];

		tried++;
		if (try_lib(p, last, sizeof last) == 0)
			return 0;
		opened += strstr(last, "could not be loaded") == NULL;
		if (!path && !opened)
			last[0] = '\0'; /* not found where it usually is: not worth saying */
	}
	if (!path && !opened) {
		snprintf(why, size, "not recorded: libcupti (CUDA's profiling library) could not be "
			 "loaded (not found where the dynamic loader and /usr/local/cuda look); "
			 "GGML_VIZ_CUPTI=PATH names it");
		return -2; /* none here and none named: nothing to say unasked */
	}
	snprintf(why, size, "not recorded: %s%s; GGML_VIZ_CUPTI=PATH[:PATH...] names it", last,
		 tried > 1 ? " (the last of the CUPTIs tried, none of which could be used)" : "");
	return -1;
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
