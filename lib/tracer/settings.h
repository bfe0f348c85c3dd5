/*
 * Tracing settings: the range checks that ggmlviz_start() and the
 * GGML_VIZ_* variables share.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SETTINGS_H
#define GGMLVIZ_SETTINGS_H

#include <stdint.h>

#include <ggmlviz/tracer.h>

#include "log.h"

int ggmlviz__buffer_events_ok(uint64_t n);
int ggmlviz__flush_ms_ok(uint64_t ms);
/* The most events a ring may grow to: buffer_events_max, or its default for 0. */
uint64_t ggmlviz__ring_max_events(const struct ggmlviz_config *cfg);
/* Range checks of a config given to ggmlviz_start(); 0 or -EINVAL (said to sink). */
int ggmlviz__config_check(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink);

#endif /* GGMLVIZ_SETTINGS_H */
