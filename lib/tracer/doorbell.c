/*
 * The writer's doorbell (see doorbell.h): a condition variable on the
 * monotonic clock and a sequence number, so a ring between two waits is
 * never lost.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <time.h>

#include "clock.h"
#include "doorbell.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned seq;

/* The condition variable times out on the monotonic clock. */
static void init_cond(void)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&cond, &attr);
	pthread_condattr_destroy(&attr);
}

void ggmlviz__doorbell_ring(void)
{
	pthread_once(&once, init_cond);
	pthread_mutex_lock(&lock);
	seq++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

void ggmlviz__doorbell_wait(const _Atomic int *stop, uint64_t ns)
{
	uint64_t deadline = ggmlviz__monotonic_ns() + ns;
	struct timespec ts = { (time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u) };
	unsigned seen;

	pthread_once(&once, init_cond);
	pthread_mutex_lock(&lock);
	seen = seq;
	while (!atomic_load(stop) && seq == seen)
		if (pthread_cond_timedwait(&cond, &lock, &ts) == ETIMEDOUT)
			break;
	pthread_mutex_unlock(&lock);
}

void ggmlviz__doorbell_reset(void)
{
	/* the writer thread does not exist in the child: whatever it held starts over */
	pthread_mutex_init(&lock, NULL);
	init_cond();
}
