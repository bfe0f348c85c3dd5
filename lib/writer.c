/*
 * The writer's life: the file, the thread, its sleep, and every write.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "record.h"
#include "registry.h"
#include "session.h"
#include "writer.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_cond;
static pthread_once_t wake_once = PTHREAD_ONCE_INIT;
static unsigned wake_seq;

/* The condition variable times out on the monotonic clock. */
static void init_wake_cond(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&wake_cond, &attr);
	pthread_condattr_destroy(&attr);
}

void ggmlviz__writer_wake(void)
{
	pthread_mutex_lock(&wake_lock);
	wake_seq++;
	pthread_cond_signal(&wake_cond);
	pthread_mutex_unlock(&wake_lock);
}

static void sleep_until_woken(struct ggmlviz__writer *w, uint64_t ns)
{
	uint64_t deadline = ggmlviz__monotonic_ns() + ns;
	struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
	unsigned seen;

	pthread_mutex_lock(&wake_lock);
	seen = wake_seq;
	while (!atomic_load(&w->stop) && wake_seq == seen)
		if (pthread_cond_timedwait(&wake_cond, &wake_lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&wake_lock);
}

static void *writer_main(void *arg)
{
	struct ggmlviz__writer *w = arg;

	pthread_setname_np(pthread_self(), "ggmlviz-writer"); /* for top(1) and debuggers */
	while (!atomic_load(&w->stop)) {
		if (ggmlviz__writer_due(w))
			ggmlviz__writer_pass(w, 0);
		sleep_until_woken(w, w->next_sleep_ns);
	}
	return NULL;
}

/* writev() until everything is written, across short writes and IOV_MAX. */
static int write_all(int fd, struct iovec *iov, size_t n)
{
	while (n > 0) {
		ssize_t k = writev(fd, iov, n > IOV_MAX ? IOV_MAX : (int)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		for (; n > 0 && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

int ggmlviz__writer_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n)
{
	uint64_t total = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		total += iov[i].iov_len;
	rc = write_all(w->fd, iov, n);
	if (rc < 0) {
		/* Cut what this write left half-done: the file ends at a whole record. */
		if (ftruncate(w->fd, (off_t)w->file_size) < 0)
			ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "cannot cut the trace back to "
				     "its last whole record: %s", strerror(errno));
		return rc;
	}
	w->file_size += total;
	atomic_store_explicit(&w->bytes, w->file_size, memory_order_relaxed);
	return 0;
}

static const char *program_name(void)
{
#if HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME
	return program_invocation_short_name;
#else
	return "";
#endif
}

/* The header and this process's PROCESS record. */
static int write_preamble(struct ggmlviz__writer *w, uint32_t tid)
{
	uint8_t buf[GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + 256];
	const char *prog = program_name();
	uint32_t len = (uint32_t)strnlen(prog, 256);
	struct iovec iov;

	put_header(buf);
	iov.iov_base = buf;
	iov.iov_len = GGMLVIZ_HEADER_SIZE +
		      put_meta(buf + GGMLVIZ_HEADER_SIZE, ggmlviz__now_ns(), tid, GGMLVIZ_META_PROCESS,
			       (uint64_t)getpid(), 0, 0, prog, len);
	atomic_store_explicit(&w->meta_written, 1, memory_order_relaxed);
	return ggmlviz__writer_append(w, &iov, 1);
}

/* The writer never runs the application's signal handlers. */
static int start_thread(struct ggmlviz__writer *w)
{
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&w->thread, NULL, writer_main, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}

int ggmlviz__writer_open(const struct ggmlviz__writer_opts *o, struct ggmlviz__writer **out)
{
	struct ggmlviz__writer *w = calloc(1, sizeof *w);
	int rc;

	if (!w)
		return -ENOMEM;
	pthread_once(&wake_once, init_wake_cond);
	w->max_events = o->max_events;
	w->flush_ns = (uint64_t)o->flush_interval_ms * 1000000u;
	w->next_sleep_ns = w->flush_ns < GGMLVIZ__POLL_NS ? w->flush_ns : GGMLVIZ__POLL_NS;
	w->sink = o->sink;
	w->last_pass_ns = ggmlviz__monotonic_ns();
	w->fd = open(o->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w->fd < 0) {
		rc = -errno;
		free(w);
		return rc;
	}
	rc = write_preamble(w, o->tid);
	if (rc == 0)
		rc = start_thread(w);
	if (rc < 0) {
		close(w->fd);
		free(w);
		return rc;
	}
	*out = w;
	return 0;
}

void ggmlviz__writer_free(struct ggmlviz__writer *w)
{
	if (!w)
		return;
	free(w->pass);
	free(w->iov);
	free(w->meta);
	free(w);
}

int ggmlviz__writer_close(struct ggmlviz__writer *w, uint32_t tid)
{
	int rc;

	atomic_store(&w->stop, 1);
	ggmlviz__writer_wake();
	pthread_join(w->thread, NULL);
	ggmlviz__writer_pass(w, 1);
	ggmlviz__writer_end(w, tid);
	rc = atomic_load(&w->error);
	if (close(w->fd) < 0 && rc == 0)
		rc = -errno;
	return rc;
}

void ggmlviz__writer_abandon(struct ggmlviz__writer *w)
{
	/*
	 * The writer thread does not exist here: the lock it may have held and
	 * the condition it may have waited on start over.
	 */
	pthread_mutex_init(&wake_lock, NULL);
	init_wake_cond();
	if (!w)
		return;
	close(w->fd);
	ggmlviz__writer_free(w);
}
