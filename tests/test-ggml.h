/*
 * Shared by tests/test-ggml.c and tests/test-ggml-views.c: the adapter's
 * state is per translation unit, so the build that also times views
 * (GGMLVIZ_GGML_TRACE_VIEWS) lives in a file of its own.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TEST_GGML_H
#define GGMLVIZ_TEST_GGML_H

#include <ggml.h>
#include <ggml-backend.h>

/* ggmlviz_ggml_trace_sched() / _untrace_sched() of the views build. */
int views_trace_sched(ggml_backend_sched_t sched, int n_threads);
void views_untrace_sched(ggml_backend_sched_t sched);

#endif
