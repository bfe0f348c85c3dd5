/*
 * Packed times in the pairing engine (see unpack.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "format/record.h"
#include "pairing-open.h"

/* Bytes of a SHARE_TIMES DEFINE body's identities, before its times (0 for the rest). */
static uint32_t identities_of(const struct ggmlviz_event *ev)
{
	if (ev->type != GGMLVIZ_EVENT_SHARE_TIMES ||
	    ev->data.share_times.mode != GGMLVIZ_DESC_SET_DEFINE)
		return 0;
	return ev->data.share_times.n_shares * GGMLVIZ_SHARE_TIMES_IDENTITY;
}

static uint32_t entries_of(const struct ggmlviz_event *ev)
{
	return ev->type == GGMLVIZ_EVENT_OP_TIMES ? ev->data.op_times.n_ops
						  : ev->data.share_times.n_shares;
}

/* Whether the body holds what the payload says: entries (and identities), no more, no less. */
static int body_fits(const struct ggmlviz_event *ev)
{
	uint64_t want = (uint64_t)entries_of(ev) * GGMLVIZ_OP_TIMES_ENTRY + identities_of(ev);

	return (ev->label ? ev->label_len : 0) == want;
}

/* Keeps a copy of the record's times; 0 or -ENOMEM. */
static int keep(struct ggmlviz__unpack *u, const struct ggmlviz_event *ev)
{
	uint32_t ids = identities_of(ev), len = ev->label_len - ids;

	if (len > u->cap) {
		uint8_t *b = realloc(u->body, len);

		if (!b)
			return -ENOMEM;
		u->body = b;
		u->cap = len;
	}
	if (len) /* a record of no entries may have no body at all */
		memcpy(u->body, ev->label + ids, len);
	u->ev = *ev;
	u->ev.label = NULL; /* the body is kept here; the label was the caller's */
	u->ev.label_len = 0;
	u->next = 0;
	u->n = entries_of(ev);
	u->end_ns = ev->timestamp_ns;
	return 0;
}

/* The next entry's begin and end, in t. */
static void next_times(struct ggmlviz__unpack *u, struct ggmlviz_timing *t)
{
	const uint8_t *e = u->body + GGMLVIZ_OP_TIMES_ENTRY * u->next;

	t->begin_ns = u->end_ns + get_u32(e + TIMES_GAP);
	t->duration_ns = get_u32(e + TIMES_DURATION);
	t->end_ns = u->end_ns = t->begin_ns + t->duration_ns;
	t->begin_offset = t->end_offset = u->ev.offset;
	t->thread_id = u->ev.thread_id;
	u->next++;
}

/* An OP_TIMES record's next op: 1, or 0 when none is left (an op its set lacks is skipped). */
static int take_op(struct ggmlviz_pairing *p, struct ggmlviz__unpack *u, struct ggmlviz_timing *t)
{
	while (u->next < u->n) {
		uint32_t k = u->ev.data.op_times.first + u->next;
		int first = u->next == 0;

		memset(t, 0, sizeof *t);
		next_times(u, t);
		if (!ggmlviz__descs_times_op(&p->descs, u->ev.thread_id, u->ev.data.op_times.set, k,
					     t))
			continue;
		t->method = u->ev.data.op_times.method;
		if (first) /* a RUN_START is the run's first op's */
			t->node_flags |= u->ev.data.op_times.flags & GGMLVIZ_NODE_RUN_START;
		ggmlviz__open_around(p, t->thread_id, t);
		p->counts.paired++;
		return 1;
	}
	return 0;
}

/* The gap before the next entry: the wait after a share. */
static uint32_t next_gap(const struct ggmlviz__unpack *u)
{
	return get_u32(u->body + GGMLVIZ_OP_TIMES_ENTRY * u->next + TIMES_GAP);
}

/* A SHARE_TIMES record's next share, as an OP_SHARE record's timing: 1, or 0 (see take_op). */
static int take_share(struct ggmlviz_pairing *p, struct ggmlviz__unpack *u,
		      struct ggmlviz_timing *t)
{
	while (u->next < u->n) {
		uint32_t k = u->ev.data.share_times.first + u->next;

		memset(t, 0, sizeof *t);
		next_times(u, t);
		t->value = u->next < u->n ? next_gap(u) : u->ev.data.share_times.last_wait_ns;
		if (!ggmlviz__descs_share(&p->descs, u->ev.thread_id, u->ev.data.share_times.set, k,
					  t))
			continue; /* the set was not kept: nothing says which node */
		t->kind = GGMLVIZ_TIMING_SHARE;
		t->n_threads = u->ev.data.share_times.n_threads;
		t->ticks = u->ev.data.share_times.thread_index;
		t->layer = -1;
		t->method = GGMLVIZ_OP_METHOD_MEASURED;
		ggmlviz__open_step_around(p, t->thread_id, t);
		p->counts.paired++;
		return 1;
	}
	return 0;
}

int ggmlviz__unpack_take(struct ggmlviz_pairing *p, struct ggmlviz_timing *t)
{
	struct ggmlviz__unpack *u = &p->unpack;

	if (u->next >= u->n)
		return 0;
	return u->ev.type == GGMLVIZ_EVENT_OP_TIMES ? take_op(p, u, t) : take_share(p, u, t);
}

/* A SHARE_TIMES DEFINE's identities: its part of the thread's set of shares. */
static int define_shares(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev)
{
	return ggmlviz__descs_share_define(&p->descs, ev->thread_id, ev->data.share_times.set,
					   ev->data.share_times.first,
					   ev->data.share_times.n_shares,
					   (const uint8_t *)ev->label);
}

int ggmlviz__unpack_add(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
			struct ggmlviz_timing *t)
{
	int rc;

	if (!body_fits(ev)) {
		ggmlviz__descs_unread(&p->descs, entries_of(ev)); /* its body cannot be read */
		return 0;
	}
	if (identities_of(ev) && (rc = define_shares(p, ev)) < 0)
		return rc;
	if ((rc = keep(&p->unpack, ev)) < 0)
		return rc;
	return ggmlviz__unpack_take(p, t);
}

void ggmlviz__unpack_clear(struct ggmlviz__unpack *u)
{
	u->next = u->n = 0;
}

void ggmlviz__unpack_free(struct ggmlviz__unpack *u)
{
	free(u->body);
	memset(u, 0, sizeof *u);
}
