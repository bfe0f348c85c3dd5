/*
 * The writer thread's life: the file, the thread, its sleep between passes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

void (*ggmlviz__writer_turn_hook)(struct ggmlviz__writer *w);

/* A pass done: counted, and the thread's CPU time so far (a system call a pass). */
static void count_pass(struct ggmlviz__writer *w)
{
	struct timespec ts;

	atomic_fetch_add_explicit(&w->thread_passes, 1, memory_order_relaxed);
	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		atomic_store_explicit(&w->thread_cpu_ns,
				      (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec,
				      memory_order_relaxed);
}

/* Rung as a writer ends; static, so that the ring after the end touches no freed writer. */
static struct ggmlviz__bell ended_bell;

/*
 * The file's end, written by the thread itself, not by the one closing: at
 * exit that one may be exit() from a signal handler that interrupted
 * malloc() (a pass may realloc its scratch) or pthread_join() (glibc's
 * lock on the threads' stacks, which a join takes: a second Ctrl-C
 * during llama-server's cleanup hung it so).
 */
static void finish(struct ggmlviz__writer *w)
{
	/* a ring that moved to a larger buffer after the pass's look: once more */
	for (int i = 0; i < 4 && ggmlviz__drain_pass(w, 1) > 0; i++)
		;
	ggmlviz__drain_windows(w); /* those of a ring the passes could not finish */
	ggmlviz__records_end(w, w->closer_tid);
}

/*
 * Never returns: the thread of a writer closed at exit, not joined, stays
 * until the process ends (a thread that ended unjoined would be a leak to
 * ThreadSanitizer); it blocks every signal but the faults.
 */
static void park(void)
{
	for (;;)
		pause();
}

static void *writer_main(void *arg)
{
	struct ggmlviz__writer *w = arg;
	size_t again = 0; /* rings with records waiting in a larger buffer */
	int parked;

	pthread_setname_np(pthread_self(), "ggmlviz-writer"); /* for top(1) and debuggers */
	for (;;) {
		uint32_t token;

		if (ggmlviz__writer_turn_hook)
			ggmlviz__writer_turn_hook(w);
		if (atomic_load(&w->stop))
			break;
		token = ggmlviz__doorbell_token();

		if (again || ggmlviz__pace_due(w)) {
			again = ggmlviz__drain_pass(w, 0);
			count_pass(w);
		} else if (!atomic_load(&w->stop))
			ggmlviz__doorbell_wait(token, ggmlviz__pace_sleep(w));
	}
	finish(w);
	parked = w->parked;
	atomic_store_explicit(&w->ended, 1, memory_order_release); /* w is the closer's now */
	ggmlviz__bell_ring(&ended_bell, INT32_MAX);
	if (parked)
		park();
	return NULL;
}

static int start_thread(struct ggmlviz__writer *w)
{
	return ggmlviz__output_thread(&w->thread, writer_main, w);
}

int ggmlviz__writer_open(const struct ggmlviz__writer_opts *o, struct ggmlviz__writer **out)
{
	struct ggmlviz__writer *w = ggmlviz__pages_array(1, sizeof *w);
	int rc;

	if (!w)
		return -ENOMEM;
	w->max_events = o->max_events;
	w->flush_ns = (uint64_t)o->flush_interval_ms * 1000000u;
	w->sink = o->sink;
	w->last_pass_ns = ggmlviz__monotonic_ns();
	w->fd = ggmlviz__output_open(o->path, &o->sink);
	if (w->fd < 0) {
		rc = w->fd;
		ggmlviz__pages_free(w);
		return rc;
	}
	rc = ggmlviz__output_start(w);
	if (rc == 0)
		rc = ggmlviz__rotate_setup(w, o);
	if (rc == 0)
		rc = ggmlviz__route_setup(w, o);
	if (rc == 0)
		rc = ggmlviz__drain_prepare(w);
	if (rc == 0) {
		ggmlviz__records_keep_start(w, o);
		rc = w->rotate_bytes ? ggmlviz__rotate_first(w) : ggmlviz__records_preamble(w);
	}
	if (rc == 0)
		rc = start_thread(w);
	if (rc < 0) {
		close(w->fd);
		ggmlviz__writer_free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void ggmlviz__writer_free(struct ggmlviz__writer *w)
{
	if (!w)
		return;
	ggmlviz__pages_free(w->pass);
	ggmlviz__pages_free(w->iov);
	ggmlviz__pages_free(w->meta);
	ggmlviz__pages_free(w->path);
	ggmlviz__kept_free(&w->kept);
	ggmlviz__route_free(w);
	ggmlviz__pages_free(w);
}

/* Bytes written so far: to the trace, and to a snapshot its last pass waits for. */
static uint64_t progress(struct ggmlviz__writer *w)
{
	return atomic_load(&w->bytes) + ggmlviz__snapshot_written();
}

/* Whether the thread ended (0), or wrote no byte for idle_ms (-ETIMEDOUT). */
static int wait_ended(struct ggmlviz__writer *w, unsigned idle_ms)
{
	const uint64_t idle_ns = (uint64_t)idle_ms * 1000000u, slice_ns = 10000000u;
	uint64_t bytes = progress(w), since = ggmlviz__monotonic_ns();

	for (;;) {
		uint32_t token = ggmlviz__bell_token(&ended_bell);
		uint64_t now;

		if (atomic_load_explicit(&w->ended, memory_order_acquire))
			return 0;
		now = ggmlviz__monotonic_ns();
		if (progress(w) != bytes) {
			bytes = progress(w);
			since = now;
		} else if (now - since >= idle_ns)
			return -ETIMEDOUT;
		ggmlviz__bell_wait(&ended_bell, token, slice_ns);
	}
}

int ggmlviz__writer_close(struct ggmlviz__writer *w, uint32_t tid, unsigned exit_idle_ms)
{
	int rc;

	w->closer_tid = tid; /* before `stop`: the thread reads them after */
	w->parked = exit_idle_ms != 0;
	atomic_store(&w->stop, 1);
	ggmlviz__doorbell_ring();
	if (!w->parked)
		pthread_join(w->thread, NULL); /* gone before a dlclose() unmaps its code */
	else if ((rc = wait_ended(w, exit_idle_ms)) < 0)
		return rc;
	rc = atomic_load(&w->error);
	if (close(w->fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

/* The parent's writer, in a child after fork: kept reachable, not a leak but a choice. */
static struct ggmlviz__writer *volatile abandoned;

void ggmlviz__writer_abandon(struct ggmlviz__writer *w)
{
	if (!w)
		return;
	close(w->fd); /* its memory is left: no free() in a child after fork */
	abandoned = w;
}

void ggmlviz__writer_figures(const struct ggmlviz__writer *w, struct ggmlviz__writer_figures *f)
{
	f->meta_written = atomic_load(&w->meta_written);
	f->passes = atomic_load(&w->thread_passes);
	f->cpu_ns = atomic_load(&w->thread_cpu_ns);
	f->bytes = atomic_load(&w->bytes);
	f->error = atomic_load(&w->error);
	f->retired = w->retired;
}
