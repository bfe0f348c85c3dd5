/*
 * A session whose writer thread is held at the top of its loop
 * (ggmlviz__writer_turn_hook) until the stop, so that the test runs the
 * writer's passes itself (ggmlviz__drain_pass(), the same pass) between
 * its own events, in the order it wants. For the tests that include it
 * (test-races, test-packed): each has its own copy.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_HELD_WRITER_H
#define GGMLVIZ_HELD_WRITER_H

#include <stdatomic.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "tracer/writer/internal.h"

static struct ggmlviz__writer *_Atomic held_writer_now; /* the session's writer, its thread held */

/* The writer thread's turns: none until the stop (the test passes instead). */
static void held_writer_turn(struct ggmlviz__writer *w)
{
	atomic_store(&held_writer_now, w);
	while (!atomic_load(&w->stop))
		usleep(200);
}

/* Starts a session of cfg with its writer thread held; the writer. */
static struct ggmlviz__writer *start_held(struct ggmlviz_config *cfg)
{
	struct ggmlviz__writer *w;

	atomic_store(&held_writer_now, NULL);
	ggmlviz__writer_turn_hook = held_writer_turn;
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	while (!(w = atomic_load(&held_writer_now)))
		usleep(200);
	return w;
}

/* Stops it (ggmlviz_stop() returning rc), the writer's loop as it was. */
static void stop_held(int rc)
{
	ck_assert_int_eq(ggmlviz_stop(), rc);
	ggmlviz__writer_turn_hook = NULL;
}

#endif /* GGMLVIZ_HELD_WRITER_H */
