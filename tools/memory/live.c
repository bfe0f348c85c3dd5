/*
 * The live allocations and the top-N heap of live.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/htab.h"
#include "memory/memory.h"

struct where {
	uint64_t pid, ptr;
};

static bool alloc_eq(const void *item, const void *key)
{
	const struct cli_alloc *a = item;
	const struct where *w = key;

	return a->ptr == w->ptr && a->pid == w->pid;
}

static uint64_t hash_of(uint64_t pid, uint64_t ptr)
{
	return cli_hash_u64(ptr ^ cli_hash_u64(pid));
}

/* The slot of pid, or the last slot for a process past the table. */
static size_t pid_slot(const struct cli_live *l, uint64_t pid)
{
	for (size_t i = 0; i < l->npids; i++)
		if (l->per_pid[i].pid == pid)
			return i;
	return l->npids - 1;
}

static uint64_t *pid_bytes(struct cli_live *l, uint64_t pid)
{
	size_t i = l->npids ? pid_slot(l, pid) : 0;

	if ((!l->npids || l->per_pid[i].pid != pid) && l->npids < CLI_LIVE_PIDS) {
		i = l->npids++;
		l->per_pid[i].pid = pid;
		l->per_pid[i].bytes = 0;
	}
	return &l->per_pid[i].bytes;
}

uint64_t cli_live_bytes(const struct cli_live *l, uint64_t pid)
{
	return l->npids ? l->per_pid[pid_slot(l, pid)].bytes : 0;
}

/* Takes pid's ptr out of the live set; false if it was not live. */
static bool take(struct cli_live *l, uint64_t pid, uint64_t ptr, uint64_t *size)
{
	struct where w = { pid, ptr };
	struct cli_alloc *a;

	a = cli_htab_remove(&l->allocs, hash_of(pid, ptr), alloc_eq, &w);

	if (!a)
		return false;
	*size = a->size;
	l->bytes -= a->size;
	l->count--;
	*pid_bytes(l, pid) -= a->size;
	free(a);
	return true;
}

int cli_live_alloc(struct cli_live *l, const struct cli_alloc *a)
{
	struct cli_alloc *copy;
	uint64_t old;

	if (l->count >= CLI_MAX_LIVE) {
		l->untracked++; /* hostile input: memory stays bounded; the free is then unknown */
		return 0;
	}
	copy = malloc(sizeof *copy);
	if (!copy)
		return -ENOMEM;
	if (take(l, a->pid, a->ptr, &old))
		l->reallocs++;
	*copy = *a;
	if (cli_htab_add(&l->allocs, hash_of(a->pid, a->ptr), copy) < 0) {
		free(copy);
		return -ENOMEM;
	}
	l->bytes += a->size;
	l->count++;
	*pid_bytes(l, a->pid) += a->size;
	return 0;
}

bool cli_live_free(struct cli_live *l, uint64_t pid, uint64_t ptr, uint64_t *size)
{
	*size = 0;
	if (take(l, pid, ptr, size))
		return true;
	l->unknown_frees++;
	return false;
}

int cli_live_event(struct cli_live *l, uint64_t pid, const struct ggmlviz_event *ev)
{
	struct cli_alloc a = { pid, ev->data.memory.ptr, ev->data.memory.size, ev->timestamp_ns,
			       ev->offset, NULL, 0 };
	uint64_t size;

	if (ev->type == GGMLVIZ_EVENT_TENSOR_FREE) {
		cli_live_free(l, pid, a.ptr, &size);
		return 0;
	}
	return cli_live_alloc(l, &a);
}

const struct cli_alloc *cli_live_next(const struct cli_live *l, size_t *cursor)
{
	return cli_htab_next(&l->allocs, cursor);
}

void cli_live_release(struct cli_live *l)
{
	struct cli_alloc *a;
	size_t cursor = 0;

	while ((a = cli_htab_next(&l->allocs, &cursor)))
		free(a);
	cli_htab_free(&l->allocs);
	memset(l, 0, sizeof *l);
}

int cli_top_init(struct cli_top *t, size_t cap)
{
	t->n = 0;
	t->cap = cap;
	t->items = cap ? calloc(cap, sizeof *t->items) : NULL;
	return cap && !t->items ? -ENOMEM : 0;
}

/* Whether a ranks below b: smaller, or as large and later in the file. */
static bool below(const struct cli_alloc *a, const struct cli_alloc *b)
{
	return a->size != b->size ? a->size < b->size : a->offset > b->offset;
}

static void swap(struct cli_alloc *a, struct cli_alloc *b)
{
	struct cli_alloc tmp = *a;

	*a = *b;
	*b = tmp;
}

static void sift_down(struct cli_alloc *h, size_t n, size_t i)
{
	for (;;) {
		size_t least = i, l = 2 * i + 1, r = l + 1;

		if (l < n && below(&h[l], &h[least]))
			least = l;
		if (r < n && below(&h[r], &h[least]))
			least = r;
		if (least == i)
			return;
		swap(&h[i], &h[least]);
		i = least;
	}
}

void cli_top_offer(struct cli_top *t, const struct cli_alloc *a)
{
	size_t i;

	if (t->n == t->cap) {
		if (!t->n || !below(&t->items[0], a))
			return;
		t->items[0] = *a;
		sift_down(t->items, t->n, 0);
		return;
	}
	for (i = t->n++, t->items[i] = *a; i && below(&t->items[i], &t->items[(i - 1) / 2]);
	     i = (i - 1) / 2)
		swap(&t->items[i], &t->items[(i - 1) / 2]);
}

void cli_top_sort(struct cli_top *t)
{
	/* heapsort: the least goes to the end, leaving the largest first */
	for (size_t n = t->n; n > 1; n--) {
		swap(&t->items[0], &t->items[n - 1]);
		sift_down(t->items, n - 1, 0);
	}
}

void cli_top_release(struct cli_top *t)
{
	free(t->items);
	t->items = NULL;
	t->n = t->cap = 0;
}
