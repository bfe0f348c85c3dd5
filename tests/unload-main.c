/*
 * A host that loads a traced plugin, unloads it and loads it again, its
 * own threads living on (tests/test-unload.sh): usage
 *   unload-main PLUGIN.so TRACE1 TRACE2 stop|nostop [rolling]
 * Round 1: the plugin is loaded, starts tracing into TRACE1, THREADS host
 * threads work through it, it is unloaded (after ggmlviz_stop() with
 * "stop", without it otherwise). Round 2: loaded again, it starts tracing
 * into TRACE2 (the claim of the first copy must be gone), the same threads
 * work through it and more are made, and it is unloaded. Then every
 * thread exits: glibc runs the thread keys' destructors of whatever is
 * still registered, which must not be code that was unloaded.
 * Prints "round N: start R" and "round N: unloaded yes" (the plugin is no
 * longer mapped) for each round, and "threads exited" at the end; with
 * UNLOAD_CUPTI (the tests' stand-in libcupti, which the plugin recorded
 * kernels through), "cupti callbacks N" after each unload: whether CUPTI
 * still holds the plugin's buffer callbacks.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti-standin.h"

#define THREADS 4

typedef int (*start_fn)(const char *, int);
typedef int (*work_fn)(int);
typedef int (*stop_fn)(void);

/* What the threads are to do next: run `work` (through the loaded plugin), or exit. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static work_fn work;
static unsigned round_no, done, leave;

static void *worker(void *arg)
{
	unsigned seen = 0;
	int me = (int)(intptr_t)arg;

	pthread_mutex_lock(&lock);
	for (;;) {
		while (round_no == seen && !leave)
			pthread_cond_wait(&cond, &lock);
		if (round_no == seen)
			break; /* leave: exits after the plugin is gone */
		seen = round_no;
		pthread_mutex_unlock(&lock);
		work(me);
		pthread_mutex_lock(&lock);
		done++;
		pthread_cond_broadcast(&cond);
	}
	pthread_mutex_unlock(&lock);
	return NULL;
}

/*
 * Every thread runs fn once, through the plugin, th[from, to) made for it
 * first; returns when all have.
 */
static void run_round(work_fn fn, pthread_t *th, intptr_t from, intptr_t to)
{
	pthread_mutex_lock(&lock);
	work = fn;
	done = 0;
	round_no++;
	for (intptr_t i = from; i < to; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	pthread_cond_broadcast(&cond);
	while (done < (unsigned)to)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
}

/* UNLOAD_CUPTI: whether the stand-in still holds a buffer callback (of the unloaded plugin). */
static void cupti_callbacks(int r)
{
	const char *path = getenv("UNLOAD_CUPTI");
	void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
	cupti_standin_counts_fn counts;
	struct cupti_standin_counts got;

	if (!h)
		return;
	*(void **)&counts = dlsym(h, "cupti_standin_counts");
	if (counts) {
		counts(&got);
		printf("round %d: cupti callbacks %d\n", r, got.callbacks);
	}
	dlclose(h);
}

static void *load(const char *so, start_fn *start, work_fn *w, stop_fn *stop)
{
	void *h = dlopen(so, RTLD_NOW | RTLD_LOCAL);

	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		exit(2);
	}
	*start = (start_fn)(uintptr_t)dlsym(h, "plugin_start");
	*w = (work_fn)(uintptr_t)dlsym(h, "plugin_work");
	*stop = (stop_fn)(uintptr_t)dlsym(h, "plugin_stop");
	if (!*start || !*w || !*stop) {
		fprintf(stderr, "dlsym: %s\n", dlerror());
		exit(2);
	}
	return h;
}

int main(int argc, char **argv)
{
	pthread_t th[2 * THREADS];
	start_fn start;
	work_fn w;
	stop_fn stop;
	void *h;
	int stopping, rolling, rc;

	if (argc < 5)
		return 2;
	stopping = !strcmp(argv[4], "stop");
	rolling = argc > 5 && !strcmp(argv[5], "rolling");
	for (int r = 1; r <= 2; r++) {
		h = load(argv[1], &start, &w, &stop);
		rc = start(argv[1 + r], rolling);
		printf("round %d: start %d\n", r, rc);
		fflush(stdout);
		/* the first round's threads, and more in the second, which work in its copy only */
		run_round(w, th, r == 1 ? 0 : THREADS, r * THREADS);
		if (stopping)
			stop();
		if (dlclose(h) != 0) {
			fprintf(stderr, "dlclose: %s\n", dlerror());
			return 2;
		}
		h = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
		printf("round %d: unloaded %s\n", r, h ? "no" : "yes");
		fflush(stdout);
		if (h)
			dlclose(h);
		cupti_callbacks(r);
	}
	pthread_mutex_lock(&lock);
	leave = 1;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < 2 * THREADS; i++)
		pthread_join(th[i], NULL);
	printf("threads exited\n");
	return 0;
}
