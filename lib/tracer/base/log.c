/*
 * The tracer's messages.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "tracer/base/base.h"

struct ggmlviz__log_sink ggmlviz__log_sink_of(const struct ggmlviz_config *cfg)
{
	struct ggmlviz__log_sink sink = { cfg->log_fn, cfg->log_user, cfg->verbose };

	return sink;
}

/* One write(2) per line, so lines of several threads never interleave. */
static void write_stderr(const char *msg)
{
	char line[600];
	int n = snprintf(line, sizeof line, "ggmlviz: %s\n", msg);

	if (n > (int)sizeof line - 1)
		n = (int)sizeof line - 1;
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n) < 0)
		return; /* nowhere left to report it */
}

void ggmlviz__log(const struct ggmlviz__log_sink *sink, int level, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	/*
	 * Unasked, the library prints only one thing: that a setting the user
	 * gave (a GGML_VIZ_* variable) was refused. Errors are returned as
	 * codes and by ggmlviz_get_stats(); they are printed when verbose.
	 */
	if (!sink->fn && level != GGMLVIZ_LOG_WARN && !sink->verbose)
		return;
	if (sink->fn && level == GGMLVIZ_LOG_INFO && !sink->verbose)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (sink->fn)
		sink->fn(sink->user, level, msg);
	else
		write_stderr(msg);
}
