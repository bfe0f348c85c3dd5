/*
 * The adapter built to time the nodes that compute nothing too.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#define GGMLVIZ_GGML_TRACE_VIEWS 1
#include <ggml.h>
#include <ggml-backend.h>
#include <ggmlviz/ggml.h>

#include "test-ggml.h"

int views_trace_sched(ggml_backend_sched_t sched, int n_threads)
{
	return ggmlviz_ggml_trace_sched(sched, n_threads, NULL, NULL);
}

void views_untrace_sched(ggml_backend_sched_t sched)
{
	ggmlviz_ggml_untrace_sched(sched);
}
