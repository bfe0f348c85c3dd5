/*
 * Live tensor memory (mem, export): the allocations not freed yet, by
 * process and pointer, with the bytes live per process; and the N largest
 * of a stream of allocations. Memory grows with what is live at one time,
 * never with the number of events.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_LIVE_H
#define CLI_LIVE_H

#include <stdbool.h>
#include <stdint.h>

#include "htab.h"

struct cli_alloc {
	uint64_t pid, ptr, size, ts, offset;
	const char *label; /* borrowed from the reader: valid until it closes */
	uint32_t label_len;
};

#define CLI_LIVE_PIDS 16

struct cli_live {
	struct cli_htab allocs;
	uint64_t bytes, count;    /* live now, all processes */
	uint64_t unknown_frees;   /* frees of a pointer not allocated in the trace */
	uint64_t reallocs;        /* allocations of a pointer still live (the old one is dropped) */
	uint64_t untracked;       /* allocations not followed: CLI_MAX_LIVE were live already */
	struct {
		uint64_t pid, bytes;
	} per_pid[CLI_LIVE_PIDS]; /* the first processes seen; the rest share the last */
	size_t npids;
};

/* Adds a live allocation (a live one at the same pointer is dropped); 0 or -ENOMEM. */
int cli_live_alloc(struct cli_live *l, const struct cli_alloc *a);
/* Frees pid's ptr: true with *size the bytes it held, false if it was not live (counted). */
bool cli_live_free(struct cli_live *l, uint64_t pid, uint64_t ptr, uint64_t *size);
/* Bytes live in process pid. */
uint64_t cli_live_bytes(const struct cli_live *l, uint64_t pid);
/* Visits the live allocations: start with *cursor = 0; NULL after the last. */
const struct cli_alloc *cli_live_next(const struct cli_live *l, size_t *cursor);
void cli_live_release(struct cli_live *l);

/* The cap largest allocations of those offered (a min-heap). */
struct cli_top {
	struct cli_alloc *items;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int cli_top_init(struct cli_top *t, size_t cap);
void cli_top_offer(struct cli_top *t, const struct cli_alloc *a);
/* Sorts the kept items, largest first (no offer after this). */
void cli_top_sort(struct cli_top *t);
void cli_top_release(struct cli_top *t);

/* Live allocations followed at most (about 100 MB of memory). */
#define CLI_MAX_LIVE ((uint64_t)1 << 20)

#endif /* CLI_LIVE_H */
