/*
 * GPU kernels in a session (see gpu.h): started before the writer opens,
 * whose first records say whether they are recorded, and stopped before
 * the mask closes, so that the kernels still buffered go in too.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include <ggmlviz/tracer.h>

#include "tracer/gpu/gpu.h"

#define DEFAULT_BUFFER_KIB 8192u

static int recording; /* this session records kernels */
static const struct ggmlviz__gpu_profiler *profiler = &ggmlviz__cupti;

void ggmlviz__gpu_use(const struct ggmlviz__gpu_profiler *p)
{
	profiler = p ? p : &ggmlviz__cupti;
}

int ggmlviz__gpu_start(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink,
		       char *what, size_t size)
{
	uint32_t kib = cfg->gpu_buffer_kib ? cfg->gpu_buffer_kib : DEFAULT_BUFFER_KIB;
	int rc;

	recording = 0;
	if (!cfg->op_timing || !cfg->gpu_kernels) {
		snprintf(what, size, "not recorded: %s",
			 cfg->op_timing ? "GGML_VIZ_GPU_KERNELS=0" : "op timing is off");
		return 0;
	}
	rc = profiler->start((uint64_t)kib << 10, cfg->cupti_path, what, size);
	if (rc == -1)
		ggmlviz__log(sink, GGMLVIZ_LOG_INFO, "GPU kernels %s", what);
	if (rc < 0)
		return 0;
	recording = 1;
	ggmlviz__log(sink, GGMLVIZ_LOG_INFO, "GPU kernels %s", what);
	return 1;
}

void ggmlviz__gpu_stop(void)
{
	if (!recording)
		return;
	profiler->flush(); /* every buffer handed over: the kernels recorded */
	profiler->stop();
	ggmlviz__gpu_settle(1); /* those whose run never came, without one */
	recording = 0;
}
