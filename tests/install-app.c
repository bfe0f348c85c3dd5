/*
 * A threaded program built against an installed libggmlviz with nothing
 * but `cc install-app.c $(pkg-config --cflags --libs ggmlviz)` (run by
 * tests/run-all.sh): it traces two threads and reads the trace back.
 *
 *   install-app TRACE     exit 0 if all 2000 events came back
 *
 * SPDX-License-Identifier: MIT
 */
#include <pthread.h>
#include <stdio.h>

#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

static void *work(void *arg)
{
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark("work", (uint64_t)i);
	return arg;
}

static int count_marks(const char *path)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int n = 0;

	if (ggmlviz_reader_open(path, &r) < 0)
		return -1;
	while (ggmlviz_reader_next(r, &ev) == 1)
		n += ev.type == GGMLVIZ_EVENT_MARK;
	ggmlviz_reader_close(r);
	return n;
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	pthread_t threads[2];
	int n;

	if (argc != 2)
		return 2;
	ggmlviz_config_init(&cfg);
	cfg.output = argv[1];
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	if (ggmlviz_start(&cfg) < 0)
		return 1;
	for (int i = 0; i < 2; i++)
		pthread_create(&threads[i], NULL, work, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(threads[i], NULL);
	if (ggmlviz_stop() < 0)
		return 1;
	n = count_marks(argv[1]);
	printf("install-app: %d of 2000 events read back\n", n);
	return n == 2000 ? 0 : 1;
}
