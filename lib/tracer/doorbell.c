/*
 * The writer's doorbell (see doorbell.h): a futex word counting rings, and
 * a flag saying whether the writer sleeps, so that a ring makes a system
 * call only when there is someone to wake.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "doorbell.h"

static _Atomic uint32_t rings;
static _Atomic int sleeping;
static _Atomic uint64_t wakeups;

void ggmlviz__doorbell_ring(void)
{
	atomic_fetch_add_explicit(&rings, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&sleeping, memory_order_seq_cst))
		syscall(SYS_futex, &rings, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

uint32_t ggmlviz__doorbell_token(void)
{
	return atomic_load_explicit(&rings, memory_order_seq_cst);
}

void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	atomic_store_explicit(&sleeping, 1, memory_order_seq_cst);
	/* a ring between the token and here changed the word: the wait returns at once */
	if (atomic_load_explicit(&rings, memory_order_seq_cst) == token)
		syscall(SYS_futex, &rings, FUTEX_WAIT_PRIVATE, token, &ts, NULL, 0);
	atomic_store_explicit(&sleeping, 0, memory_order_seq_cst);
	atomic_fetch_add_explicit(&wakeups, 1, memory_order_relaxed);
}

uint64_t ggmlviz__doorbell_wakeups(void)
{
	return atomic_load_explicit(&wakeups, memory_order_relaxed);
}
