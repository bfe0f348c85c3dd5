/*
 * Saving the rings when the program crashes (see writer.h).
 *
 * The handler runs on the crashing thread. It waits (a second at most) for
 * the writer to finish the pass it may be in, takes the writer over for
 * good, makes one last pass without the registry's lock and ends the file
 * with a CRASH record (ggmlviz__crash_save: no lock, no allocation, no
 * stdio). Other threads that crash meanwhile wait for it.
 * Then the program's own actions are put back and the signal goes on to
 * them: a fault happens again when the handler returns, a signal that was
 * sent (abort(), kill) is raised again.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "tracer/writer/internal.h"

static const int signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define N_SIGNALS (sizeof signals / sizeof signals[0])

static struct sigaction previous[N_SIGNALS];
static struct ggmlviz__writer *_Atomic armed;
static _Atomic int installed;  /* our handlers are in place */
static _Atomic int crashing;   /* a handler has begun the last pass */
static _Atomic int saved;      /* it is done */
static _Atomic int in_handler; /* handlers running now */

static void pause_ms(long ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

void ggmlviz__crash_save(struct ggmlviz__writer *w, int sig)
{
	int got = 0;

	if (pthread_equal(pthread_self(), w->thread))
		return; /* the writer itself crashed: its pass cannot be trusted */
	for (int i = 0; i < 1000 && !got; i++) {
		got = !atomic_exchange(&w->busy, 1); /* and never given back */
		if (!got)
			pause_ms(1);
	}
	if (!got)
		return;
	w->sink = (struct ggmlviz__log_sink){ NULL, NULL, 0 }; /* not a word from a handler */
	ggmlviz__drain_unlocked(w);
	ggmlviz__records_crash(w, sig);
}

static void restore_all(void)
{
	if (!atomic_exchange(&installed, 0))
		return;
	for (size_t i = 0; i < N_SIGNALS; i++)
		sigaction(signals[i], &previous[i], NULL);
}

static void on_crash(int sig, siginfo_t *si, void *context)
{
	int saved_errno = errno;
	struct ggmlviz__writer *w;

	(void)context;
	atomic_fetch_add(&in_handler, 1);
	if (!atomic_exchange(&crashing, 1)) {
		w = atomic_load(&armed);
		if (w)
			ggmlviz__crash_save(w, sig);
		atomic_store(&saved, 1);
	} else {
		for (int i = 0; i < 2000 && !atomic_load(&saved); i++)
			pause_ms(1); /* another thread is saving the rings */
	}
	restore_all();
	atomic_fetch_sub(&in_handler, 1);
	errno = saved_errno;
	if (si->si_code <= 0)
		raise(sig); /* sent, not a fault: delivered to the old action on return */
}

int ggmlviz__crash_arm(struct ggmlviz__writer *w)
{
	struct sigaction sa;

	if (atomic_load(&installed))
		return -EALREADY;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	atomic_store(&crashing, 0);
	atomic_store(&saved, 0);
	atomic_store(&armed, w);
	for (size_t i = 0; i < N_SIGNALS; i++) {
		if (sigaction(signals[i], &sa, &previous[i]) < 0) {
			int rc = -errno;

			while (i-- > 0)
				sigaction(signals[i], &previous[i], NULL);
			atomic_store(&armed, NULL);
			return rc;
		}
	}
	atomic_store(&installed, 1);
	return 0;
}

/* Whether our handler still holds sig (the program may have set its own since). */
static int ours(int sig)
{
	struct sigaction now;

	return sigaction(sig, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
	       now.sa_sigaction == on_crash;
}

void ggmlviz__crash_disarm(void)
{
	atomic_store(&armed, NULL);
	while (atomic_load(&in_handler))
		pause_ms(1);
	if (!atomic_exchange(&installed, 0))
		return;
	for (size_t i = 0; i < N_SIGNALS; i++)
		if (ours(signals[i]))
			sigaction(signals[i], &previous[i], NULL);
}

void ggmlviz__crash_forget(void)
{
	atomic_store(&armed, NULL);
	ggmlviz__crash_disarm();
}
