/*
 * Shared by tests/test-ggml.c, which holds the adapter's state
 * (GGMLVIZ_GGML_IMPLEMENTATION), and tests/test-ggml-other.c, which only
 * includes the adapter: a scheduler traced in one file is known in the
 * other.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TEST_GGML_H
#define GGMLVIZ_TEST_GGML_H

#include <ggml.h>
#include <ggml-backend.h>

/* ggmlviz_ggml_sched_graph_compute(), called from test-ggml-other.c. */
enum ggml_status other_sched_graph_compute(ggml_backend_sched_t sched, struct ggml_cgraph *g);

#endif
