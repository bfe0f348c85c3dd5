/*
 * --as-ticks: a trace whose CPU ops were measured (method MEASURED, every
 * worker's share in OP_SHARE records) read as if GGML's CPU backend had
 * only ticked: each op ends where thread 0 ended its share of it (which is
 * where the backend's tick comes), and begins where the op before it in
 * its run ended; the shares are left out. The estimate of ticks.h then
 * reads it as it reads a ticked trace, so that the estimate and the
 * measure of the same runs can be compared (bench/ticks-truth.sh).
 *
 * Thread 0's shares of a run come before the run's ops in the file (both
 * on the thread that computes the graph, the shares at the graph's end,
 * the ops when the run ends), so a map per thread, tensor to end, filled
 * by its shares and read by its ops, is enough. A run's first op keeps
 * its measured begin: the scheduler's last ask, where a ticked run's first
 * op begins, is not in the trace, so the run's start is not compared.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/htab.h"
#include "input/input.h"

#define AS_TICKS_THREADS 64
#define AS_TICKS_SLOTS (1u << 16) /* nodes of a run followed per thread */

struct slot {
	uint64_t tensor, end_ns;
};

struct as_thread {
	uint32_t id;
	bool in_run;       /* an op of the current run was given: the next follows it */
	uint64_t prev_end; /* that op's end, as ticked */
	struct slot *slots;
};

struct cli_as_ticks {
	struct as_thread t[AS_TICKS_THREADS];
	uint32_t n;
	uint64_t unmatched; /* measured ops whose thread 0 share was not found: left measured */
};

bool cli_as_ticks_on;

static struct as_thread *thread_of(struct cli_as_ticks *a, uint32_t id)
{
	for (uint32_t i = 0; i < a->n; i++)
		if (a->t[i].id == id)
			return &a->t[i];
	if (a->n == AS_TICKS_THREADS)
		return NULL;
	a->t[a->n] = (struct as_thread){ .id = id };
	if (!(a->t[a->n].slots = calloc(AS_TICKS_SLOTS, sizeof(struct slot))))
		return NULL;
	return &a->t[a->n++];
}

static struct slot *slot_of(struct as_thread *th, uint64_t tensor)
{
	uint32_t i = (uint32_t)(cli_hash_u64(tensor) & (AS_TICKS_SLOTS - 1));

	for (uint32_t k = 0; k < 64; k++, i = (i + 1) & (AS_TICKS_SLOTS - 1))
		if (th->slots[i].tensor == tensor || !th->slots[i].tensor)
			return &th->slots[i];
	return &th->slots[i]; /* a crowded stretch: its last slot is overwritten */
}

/* 1: t is given (changed or not), 0: t is left out (a share). */
int cli_as_ticks_apply(struct cli_input *in, struct ggmlviz_timing *t)
{
	struct cli_as_ticks *a = in->as_ticks;
	struct as_thread *th;
	struct slot *s;

	if (!a && !(a = in->as_ticks = calloc(1, sizeof *a)))
		return 1; /* no memory: as measured */
	if (t->kind == GGMLVIZ_TIMING_SHARE) {
		if (t->ticks == 0 && (th = thread_of(a, t->thread_id))) {
			s = slot_of(th, t->ptr);
			*s = (struct slot){ t->ptr, t->end_ns };
		}
		return 0;
	}
	if (t->kind == GGMLVIZ_TIMING_SPLIT && (th = thread_of(a, t->thread_id)))
		th->in_run = false;
	if (t->kind != GGMLVIZ_TIMING_OP || t->method != GGMLVIZ_OP_METHOD_MEASURED)
		return 1;
	if (!(th = thread_of(a, t->thread_id)) || (s = slot_of(th, t->ptr))->tensor != t->ptr) {
		a->unmatched++;
		return 1;
	}
	t->method = GGMLVIZ_OP_METHOD_TICK;
	if (th->in_run && th->prev_end <= s->end_ns) {
		t->begin_ns = th->prev_end;
	} else {
		t->node_flags |= GGMLVIZ_NODE_RUN_START;
		t->begin_ns = t->begin_ns < s->end_ns ? t->begin_ns : s->end_ns;
	}
	t->end_ns = s->end_ns;
	t->duration_ns = t->end_ns - t->begin_ns;
	th->prev_end = t->end_ns;
	th->in_run = true;
	return 1;
}

void cli_as_ticks_free(struct cli_input *in)
{
	struct cli_as_ticks *a = in->as_ticks;

	if (!a)
		return;
	for (uint32_t i = 0; i < a->n; i++)
		free(a->t[i].slots);
	free(a);
	in->as_ticks = NULL;
}
