/*
 * Slices held and written in nesting order (see export.h), for the
 * formats whose slices are a begin and an end event each (Perfetto's
 * SLICE_BEGIN/END, speedscope's O/C): the pairing completes a slice after
 * the slices inside it, and a viewer that sorts by time keeps the file's
 * order at equal times (Perfetto) or reads events in the file's order
 * (speedscope). Held slices are sorted per track by begin, the longer
 * first, then the outer category, then the later completed (a slice
 * completes after those inside it); each is opened in that order and
 * closed when the next one begins at or past its end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

#define DEPTH_MAX 256 /* open slices per track while writing held ones */

static int held_cmp(const void *a, const void *b)
{
	const struct cli_nest_slice *x = a, *y = b;

	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end) /* the longer first: it encloses the other */
		return x->end > y->end ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->seq > y->seq ? -1 : x->seq < y->seq;
}

uint8_t cli_nest_rank(const char *cat)
{
	static const char *const order[] = { "step", "scope", "graph", "split", "op", "kernel" };

	for (uint8_t i = 0; cat && i < sizeof order / sizeof *order; i++)
		if (!strcmp(cat, order[i]))
			return i;
	return 6;
}

int cli_nest_hold(struct cli_nest *n, const struct cli_nest_slice *s, const void *bytes,
		  size_t len)
{
	struct cli_nest_slice *h = n->held;

	if (n->n == n->cap) {
		size_t cap = n->cap ? n->cap * 2 : 1024;

		if (!(h = realloc(n->held, cap * sizeof *h)))
			return -ENOMEM;
		n->held = h, n->cap = cap;
	}
	h[n->n] = *s;
	h[n->n].off = n->arena.len;
	h[n->n].len = (uint32_t)len;
	h[n->n].seq = (uint32_t)n->n;
	cli_pb_raw(&n->arena, bytes, len);
	if (n->arena.failed)
		return -ENOMEM;
	n->n++;
	if (n->n >= CLI_NEST_MAX || n->arena.len >= CLI_NEST_BYTES)
		cli_nest_flush(n);
	return 0;
}

static void close_one(struct cli_nest *n, const struct cli_nest_slice *h)
{
	n->close(n->ctx, h, n->arena.buf + h->off);
}

void cli_nest_flush(struct cli_nest *n)
{
	const struct cli_nest_slice *open[DEPTH_MAX];
	size_t depth = 0;

	if (n->n) /* nothing held: no array to sort (qsort of NULL) */
		qsort(n->held, n->n, sizeof *n->held, held_cmp);
	for (size_t i = 0; i < n->n; i++) {
		const struct cli_nest_slice *h = &n->held[i];

		while (depth && (open[depth - 1]->track != h->track || open[depth - 1]->end <= h->begin))
			close_one(n, open[--depth]);
		n->open(n->ctx, h, n->arena.buf + h->off);
		if (!h->slice)
			continue;
		if (depth == DEPTH_MAX) /* deeper than any trace nests: ends as it began */
			close_one(n, h);
		else
			open[depth++] = h;
	}
	while (depth)
		close_one(n, open[--depth]);
	n->n = 0;
	n->arena.len = 0;
}

void cli_nest_free(struct cli_nest *n)
{
	free(n->held);
	cli_pb_free(&n->arena);
	n->held = NULL;
	n->n = n->cap = 0;
}
