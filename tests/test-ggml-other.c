/*
 * A second source file of the test-ggml program: it includes the adapter
 * plainly (no GGMLVIZ_GGML_IMPLEMENTATION) and uses the state that
 * test-ggml.c holds.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggml.h>
#include <ggml-backend.h>
#include <ggmlviz/ggml.h>

#include "test-ggml.h"

enum ggml_status other_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g)
{
	return ggmlviz_ggml_sched_graph_compute(sched, g);
}
