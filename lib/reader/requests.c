/*
 * A server's requests, paired by id (see requests.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader/requests.h"

/* A free item for a new request: its index, or UINT32_MAX when out of memory. */
static uint32_t take_item(struct ggmlviz__requests *q)
{
	for (uint32_t k = 0; k < q->n; k++) {
		uint32_t i = (q->free_hint + k) % q->n;
		if (!q->items[i].kind) {
			q->free_hint = i + 1;
			return i;
		}
	}
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? q->cap * 2 : 64;
		void *p = realloc(q->items, cap * sizeof *q->items);
		if (!p)
			return UINT32_MAX;
		q->items = p;
		q->cap = cap;
	}
	return q->n++;
}

static struct ggmlviz_timing *open_request(const struct ggmlviz__requests *q, uint64_t id)
{
	uint64_t i;

	return ggmlviz__map_get(&q->open, id, &i) ? &q->items[i] : NULL;
}

static void forget(struct ggmlviz__requests *q, struct ggmlviz_timing *r)
{
	ggmlviz__map_remove(&q->open, r->ptr);
	memset(r, 0, sizeof *r);
}

/* What a record tells of its request, whichever it is: the slot and the tokens known. */
static void learn(struct ggmlviz_timing *r, const struct ggmlviz_event *ev)
{
	if (ev->data.request.slot >= 0)
		r->seq_id = ev->data.request.slot;
	if (ev->data.request.prompt_tokens)
		r->n_tokens = ev->data.request.prompt_tokens;
	if (ev->data.request.cached_tokens)
		r->context_tokens = ev->data.request.cached_tokens;
}

static int begin(struct ggmlviz__requests *q, const struct ggmlviz_event *ev,
		 struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz_timing *r = open_request(q, ev->data.request.request_id);
	uint64_t *slot;
	bool created;
	uint32_t i;

	if (r) { /* the same id again: the older never ended */
		c->unclosed_begins++;
		forget(q, r);
	}
	if (ggmlviz__map_count(&q->open) >= GGMLVIZ__MAX_OPEN_REQUESTS) {
		c->over_limit++;
		return 0;
	}
	if ((i = take_item(q)) == UINT32_MAX ||
	    !(slot = ggmlviz__map_insert(&q->open, ev->data.request.request_id, &created)))
		return -ENOMEM;
	*slot = i;
	r = &q->items[i];
	memset(r, 0, sizeof *r);
	r->kind = GGMLVIZ_TIMING_REQUEST;
	r->ptr = ev->data.request.request_id;
	r->op_type = ev->data.request.what;
	r->thread_id = ev->thread_id;
	r->begin_ns = ev->timestamp_ns;
	r->begin_offset = ev->offset;
	r->label = ev->label;
	r->label_len = ev->label ? ev->label_len : 0;
	r->seq_id = -1;
	r->layer = -1;
	learn(r, ev);
	return 0;
}

static void stage(struct ggmlviz_timing *r, const struct ggmlviz_event *ev)
{
	learn(r, ev);
	if (ev->data.request.what == GGMLVIZ_REQUEST_PROMPT && !r->value)
		r->value = ev->timestamp_ns;
	else if (ev->data.request.what == GGMLVIZ_REQUEST_FIRST_TOKEN && !r->first_token_ns)
		r->first_token_ns = ev->timestamp_ns;
}

static void end(struct ggmlviz__requests *q, struct ggmlviz_timing *r,
		const struct ggmlviz_event *ev, struct ggmlviz_timing *t)
{
	learn(r, ev);
	*t = *r;
	t->end_ns = ev->timestamp_ns;
	t->duration_ns = t->end_ns >= t->begin_ns ? t->end_ns - t->begin_ns : 0;
	t->end_offset = ev->offset;
	t->status = (int32_t)ev->data.request.what;
	t->n_nodes = ev->data.request.generated_tokens;
	t->type_name = ev->label;
	t->type_name_len = ev->label ? ev->label_len : 0;
	forget(q, r);
}

int ggmlviz__requests_add(struct ggmlviz__requests *q, const struct ggmlviz_event *ev,
			  struct ggmlviz_pairing_counts *c, struct ggmlviz_timing *t)
{
	struct ggmlviz_timing *r;

	if (ev->type == GGMLVIZ_EVENT_REQUEST_BEGIN)
		return begin(q, ev, c);
	r = open_request(q, ev->data.request.request_id);
	if (!r) {
		c->unmatched_ends += ev->type == GGMLVIZ_EVENT_REQUEST_END;
		return 0;
	}
	if (ev->type == GGMLVIZ_EVENT_REQUEST_STAGE) {
		stage(r, ev);
		return 0;
	}
	end(q, r, ev, t);
	c->paired++;
	return 1;
}

uint32_t ggmlviz__requests_open(const struct ggmlviz__requests *q)
{
	return (uint32_t)ggmlviz__map_count(&q->open);
}

void ggmlviz__requests_clear(struct ggmlviz__requests *q)
{
	ggmlviz__map_clear(&q->open);
	q->n = 0;
	q->free_hint = 0;
}

void ggmlviz__requests_free(struct ggmlviz__requests *q)
{
	ggmlviz__map_release(&q->open);
	free(q->items);
	memset(q, 0, sizeof *q);
}
