/*
 * The tracer's messages: to the application's log function, or to stderr
 * (warnings and errors always, info only when verbose).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_LOG_H
#define GGMLVIZ_LOG_H

#include <ggmlviz/tracer.h>

/* Where a message goes: a copy of the config's log settings. */
struct ggmlviz__log_sink {
	ggmlviz_log_fn fn;
	void *user;
	int verbose;
};

/* The sink described by a config. */
struct ggmlviz__log_sink ggmlviz__log_sink_of(const struct ggmlviz_config *cfg);

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ggmlviz__log(const struct ggmlviz__log_sink *sink, int level, const char *fmt, ...);

#endif /* GGMLVIZ_LOG_H */
