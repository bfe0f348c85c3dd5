/*
 * The writer's doorbell (see doorbell.h), on a bell: a futex word counting
 * rings and a count of the threads that sleep on it, so that ringing makes
 * a system call only when there is someone to wake.
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

static struct ggmlviz__bell writer_bell; /* producers ring it, the writer sleeps on it */
static _Atomic uint64_t wakeups;

void ggmlviz__bell_ring(struct ggmlviz__bell *b, int n)
{
	atomic_fetch_add_explicit(&b->word, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&b->sleepers, memory_order_seq_cst))
		syscall(SYS_futex, &b->word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

uint32_t ggmlviz__bell_token(struct ggmlviz__bell *b)
{
	return atomic_load_explicit(&b->word, memory_order_seq_cst);
}

void ggmlviz__bell_wait(struct ggmlviz__bell *b, uint32_t token, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	atomic_fetch_add_explicit(&b->sleepers, 1, memory_order_seq_cst);
	/* a ring between the token and here changed the word: the wait returns at once */
	if (atomic_load_explicit(&b->word, memory_order_seq_cst) == token)
		syscall(SYS_futex, &b->word, FUTEX_WAIT_PRIVATE, token, &ts, NULL, 0);
	atomic_fetch_sub_explicit(&b->sleepers, 1, memory_order_seq_cst);
}

void ggmlviz__doorbell_ring(void)
{
	ggmlviz__bell_ring(&writer_bell, 1);
}

uint32_t ggmlviz__doorbell_token(void)
{
	return ggmlviz__bell_token(&writer_bell);
}

void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns)
{
	ggmlviz__bell_wait(&writer_bell, token, ns);
	atomic_fetch_add_explicit(&wakeups, 1, memory_order_relaxed);
}

uint64_t ggmlviz__doorbell_wakeups(void)
{
	return atomic_load_explicit(&wakeups, memory_order_relaxed);
}
