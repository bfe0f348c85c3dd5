/*
 * Loads two shared objects that each linked lib/libggmlviz.a, each with
 * RTLD_LOCAL (as a plugin host or Python does): two copies of the tracer
 * in one process. Prints one line per step for tests/test-embed.sh:
 *   a: RC              the first copy's start
 *   b: RC MESSAGE      the second copy's start, and what it was told
 *   a-stop: RC, b-again: RC   after the first stopped, the second still refused
 *
 *   embed-main LIBA LIBB TRACE_A TRACE_B
 *
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*start_fn)(const char *, char *, size_t);
typedef int (*stop_fn)(void);

static int load(const char *lib, start_fn *start, stop_fn *stop)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "embed-main: %s\n", dlerror());
		return -1;
	}
	*(void **)start = dlsym(h, "embed_start");
	*(void **)stop = dlsym(h, "embed_stop");
	return *start && *stop ? 0 : -1;
}

int main(int argc, char **argv)
{
	start_fn a_start, b_start;
	stop_fn a_stop, b_stop;
	char said[1024];

	if (argc != 5 || load(argv[1], &a_start, &a_stop) < 0 || load(argv[2], &b_start, &b_stop) < 0)
		return 2;
	printf("a: %d\n", a_start(argv[3], said, sizeof said));
	printf("b: %d %s\n", b_start(argv[4], said, sizeof said), said);
	printf("a-stop: %d\n", a_stop());
	printf("b-again: %d\n", b_start(argv[4], said, sizeof said));
	b_stop();
	return 0;
}
