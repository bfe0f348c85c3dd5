/*
 * A shared object that linked lib/libggmlviz.a (tests/test-embed.sh builds
 * it twice, as libembed-a.so and libembed-b.so): it starts tracing into a
 * file of its own, records a few marks, and stops, saying through its log
 * function what the tracer told it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <string.h>

#include <ggmlviz/tracer.h>

int embed_start(const char *path, char *said, size_t size);
int embed_stop(void);

static char *said_buf;
static size_t said_size;

static void keep(void *user, int level, const char *msg)
{
	(void)user;
	(void)level;
	if (said_buf && said_size)
		snprintf(said_buf, said_size, "%s", msg);
}

/* Starts tracing to path and records 10 marks; ggmlviz_start()'s result. */
int embed_start(const char *path, char *said, size_t size)
{
	struct ggmlviz_config cfg;
	int rc;

	said_buf = said;
	said_size = size;
	if (said && size)
		said[0] = '\0';
	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.log_fn = keep;
	rc = ggmlviz_start(&cfg);
	for (int i = 0; i < 10; i++)
		ggmlviz_mark("embed", (uint64_t)i);
	return rc;
}

int embed_stop(void)
{
	return ggmlviz_stop();
}
