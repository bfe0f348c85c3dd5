/*
 * The writer's file (see internal.h): every write to it, and whether the
 * last one failed.
 *
 * A write to a pipe whose reader has left raises SIGPIPE at the writing
 * thread, and one past the file size limit (RLIMIT_FSIZE) SIGXFSZ: both
 * end the program by default. The writer thread blocks them, but the
 * file is also written on the program's own threads (start's first
 * records, stop's last pass and TRACE_END, a crash handler's pass): there
 * each write blocks both, and takes back a signal it raised itself, so
 * that the write fails with EPIPE or EFBIG and nothing else happens.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/*
 * The process exits without its session's stop (ggmlviz__output_halt()):
 * no write to a trace begins, and the writes begun are waited for, so
 * that the exit does not cut the file inside a record. A write is in
 * flight from before its check of `halted` until it returns: the two
 * sequentially consistent operations on each side make either the write
 * see `halted`, or the halt see it in flight.
 */
static _Atomic int halted;
static _Atomic unsigned in_flight;
static _Thread_local int writing_here __attribute__((tls_model("initial-exec")));

/* 1: the write may go on (end it with write_end()); 0: the process is exiting. */
static int write_begin(void)
{
	atomic_fetch_add(&in_flight, 1);
	if (atomic_load(&halted)) {
		atomic_fetch_sub(&in_flight, 1);
		return 0;
	}
	writing_here = 1;
	return 1;
}

static void write_end(void)
{
	writing_here = 0;
	atomic_fetch_sub(&in_flight, 1);
}

/*
 * Not for a write of this thread's, which the signal handler that exits
 * interrupted. A signal between write_begin()'s count and its writing_here
 * (or write_end()'s two) leaves this thread counted but not known as
 * writing: the halt then waits wait_ms for it, a delay and never a cut.
 */
void ggmlviz__output_halt(unsigned wait_ms)
{
	const struct timespec ms = { 0, 1000000 };

	atomic_store(&halted, 1);
	for (unsigned i = 0; i < wait_ms && atomic_load(&in_flight) > (unsigned)writing_here; i++)
		nanosleep(&ms, NULL);
}

int ggmlviz__output_halted(void)
{
	return atomic_load_explicit(&halted, memory_order_relaxed);
}

void ggmlviz__output_after_fork_child(void)
{
	atomic_store(&in_flight, 0); /* the parent's writer thread is not in the child */
	atomic_store(&halted, 0);
	writing_here = 0;
}

/* writev() until everything is written, across short writes and IOV_MAX; *done counts. */
static int write_all(int fd, struct iovec *iov, size_t n, uint64_t *done)
{
	*done = 0;
	while (n > 0) {
		ssize_t k = writev(fd, iov, n > IOV_MAX ? IOV_MAX : (int)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		*done += (uint64_t)k;
		for (; n > 0 && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/* SIGPIPE and SIGXFSZ held back on the calling thread, and which were pending before. */
struct quiet {
	sigset_t old;
	int pipe_pending, xfsz_pending, blocked;
};

static void quiet_begin(struct quiet *q)
{
	sigset_t both, pending;

	sigemptyset(&both);
	sigaddset(&both, SIGPIPE);
	sigaddset(&both, SIGXFSZ);
	q->blocked = pthread_sigmask(SIG_BLOCK, &both, &q->old) == 0;
	if (!q->blocked || (sigismember(&q->old, SIGPIPE) && sigismember(&q->old, SIGXFSZ))) {
		q->blocked = 0; /* the writer thread: they stay blocked, pending or not */
		return;
	}
	sigemptyset(&pending);
	sigpending(&pending);
	q->pipe_pending = sigismember(&pending, SIGPIPE);
	q->xfsz_pending = sigismember(&pending, SIGXFSZ);
}

/* Takes sig back, raised by this thread's write (pending now, not before). */
static void take_back(int sig)
{
	sigset_t one;

	sigemptyset(&one);
	sigaddset(&one, sig);
	while (sigtimedwait(&one, NULL, &(struct timespec){ 0, 0 }) < 0 && errno == EINTR)
		;
}

static void quiet_end(const struct quiet *q, int rc)
{
	int saved = errno;

	if (!q->blocked)
		return;
	if (rc == -EPIPE && !q->pipe_pending)
		take_back(SIGPIPE);
	if (rc == -EFBIG && !q->xfsz_pending)
		take_back(SIGXFSZ);
	pthread_sigmask(SIG_SETMASK, &q->old, NULL);
	errno = saved;
}

int ggmlviz__output_write_to(int fd, struct iovec *iov, size_t n)
{
	uint64_t done;
	struct quiet q;
	int rc;

	quiet_begin(&q);
	rc = write_all(fd, iov, n, &done);
	quiet_end(&q, rc);
	return rc;
}

int ggmlviz__output_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n)
{
	uint64_t total = 0, done;
	struct quiet q;
	int rc;

	for (size_t i = 0; i < n; i++)
		total += iov[i].iov_len;
	if (!write_begin())
		return -ECANCELED; /* nothing written: the process ends */
	quiet_begin(&q);
	rc = write_all(w->fd, iov, n, &done);
	quiet_end(&q, rc);
	write_end();
	if (rc < 0) {
		/* Where the file system stopped it (salvage.c keeps below it), and the
		 * file cut back to its last whole record. */
		w->room_end = w->file_size + done;
		if (done > 0 && w->regular && ftruncate(w->fd, (off_t)w->file_size) < 0)
			ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "cannot cut the trace back to "
				     "its last whole record: %s", strerror(errno));
		return rc;
	}
	w->file_size += total;
	if (w->file_size > w->room_end)
		w->room_end = 0; /* past where the last failure stopped: that limit is gone */
	atomic_store_explicit(&w->bytes, w->ended_bytes + w->file_size - w->file_base,
			      memory_order_relaxed);
	return 0;
}

/*
 * The file size limit (RLIMIT_FSIZE) as the offset a regular file may not
 * pass, 0 for none; read at each batch, as the program may raise it.
 */
static uint64_t size_limit(const struct ggmlviz__writer *w)
{
	struct rlimit lim;

	if (!w->regular || getrlimit(RLIMIT_FSIZE, &lim) != 0 || lim.rlim_cur == RLIM_INFINITY)
		return 0;
	return (uint64_t)lim.rlim_cur;
}

int ggmlviz__output_keeping(struct ggmlviz__writer *w, struct iovec *iov, size_t n, uint64_t keep)
{
	uint64_t end = w->file_size, limit = size_limit(w);
	int last;

	for (size_t i = 0; i < n; i++)
		end += iov[i].iov_len;
	/*
	 * A file size limit is where a write will stop, known before one does:
	 * a batch that would end within keep bytes of it is refused as after a
	 * failed write (written whole, it would leave the end no room, and the
	 * next batch would fail with room for TRACE_END alone).
	 */
	if (limit && end + keep > limit && (w->room_end == 0 || limit < w->room_end))
		w->room_end = limit;
	if (w->room_end == 0 || end > w->room_end || end + keep <= w->room_end)
		return ggmlviz__output_append(w, iov, n);
	last = atomic_load(&w->error);
	if (last < 0)
		return last;
	return w->room_end == limit ? -EFBIG : -ENOSPC;
}

int ggmlviz__output_start(struct ggmlviz__writer *w)
{
	struct stat st;

	if (fstat(w->fd, &st) < 0)
		return -errno;
	w->regular = S_ISREG(st.st_mode);
	/* a file written as it is (through /dev/stdout) may hold bytes before the trace */
	w->file_base = w->regular ? (uint64_t)st.st_size : 0;
	w->file_size = w->file_base;
	return 0;
}

/* A write failed: its events are dropped, and the next pass tries again. */
void ggmlviz__output_failed(struct ggmlviz__writer *w, int rc)
{
	atomic_store(&w->error, rc);
	if (rc == -ECANCELED)
		return; /* no failure: the process ends (ggmlviz__output_halt()) */
	if (w->failing++)
		return; /* said once per run of failures */
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "writing the trace failed (%s): what cannot be "
		     "written is counted as dropped, and writing is tried again at each pass",
		     strerror(-rc));
}

void ggmlviz__output_works(struct ggmlviz__writer *w)
{
	if (!w->failing)
		return;
	w->failing = 0;
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_INFO, "writing the trace works again");
}

/*
 * The writer's threads never run the application's handlers of signals
 * sent to the process (they go to its own threads), and a write of their
 * own raises no SIGPIPE or SIGXFSZ (it fails with EPIPE or EFBIG). A fault
 * of their own is left unblocked: blocked, the kernel would kill the
 * process without the application's handler (or the crash handler)
 * seeing it.
 */
int ggmlviz__output_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGTRAP, SIGSYS };
	sigset_t all, old;
	int rc;

	sigfillset(&all);
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		sigdelset(&all, faults[i]);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(t, NULL, fn, arg);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return -rc;
}
