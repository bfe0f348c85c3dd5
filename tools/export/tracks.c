/*
 * Tracks without partial overlaps (see tracks.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>

#include "export/export.h"

struct thread_tracks {
	uint32_t tid;
	bool used[CLI_TRACK_LEVELS];
	uint64_t begin[CLI_TRACK_LEVELS][CLI_TRACK_RECENT], end[CLI_TRACK_LEVELS][CLI_TRACK_RECENT];
	unsigned next[CLI_TRACK_LEVELS]; /* where the next slice is kept */
};

static bool tid_eq(const void *item, const void *key)
{
	return ((const struct thread_tracks *)item)->tid == *(const uint32_t *)key;
}

/* Whether [b, e) begins inside a slice of the track and ends after it. */
static bool overlaps(const struct thread_tracks *tt, int level, uint64_t b, uint64_t e)
{
	for (unsigned i = 0; i < CLI_TRACK_RECENT; i++) {
		uint64_t pb = tt->begin[level][i], pe = tt->end[level][i];

		if (pe > pb && b > pb && b < pe && e > pe)
			return true;
	}
	return false;
}

static struct thread_tracks *thread_of(struct cli_tracks *t, uint32_t tid)
{
	uint64_t hash = cli_hash_u64(tid);
	struct thread_tracks *tt = cli_htab_find(&t->threads, hash, tid_eq, &tid);

	if (tt)
		return tt;
	tt = calloc(1, sizeof *tt);
	if (tt && cli_htab_add(&t->threads, hash, tt) < 0) {
		free(tt);
		tt = NULL;
	}
	if (tt)
		tt->tid = tid;
	return tt;
}

uint32_t cli_track_of(struct cli_tracks *t, uint32_t tid, uint64_t begin, uint64_t end,
		      int *level, bool *first)
{
	struct thread_tracks *tt = thread_of(t, tid);
	int l = 0;

	*level = 0;
	*first = false;
	if (!tt)
		return tid; /* out of memory: as before */
	while (l < CLI_TRACK_LEVELS - 1 && overlaps(tt, l, begin, end))
		l++;
	tt->begin[l][tt->next[l]] = begin;
	tt->end[l][tt->next[l]] = end;
	tt->next[l] = (tt->next[l] + 1) % CLI_TRACK_RECENT;
	*first = l && !tt->used[l];
	tt->used[l] = true;
	*level = l;
	t->moved += l != 0;
	return tid + ((uint32_t)l << 28);
}

void cli_tracks_free(struct cli_tracks *t)
{
	size_t cursor = 0;
	void *item;

	while ((item = cli_htab_next(&t->threads, &cursor)))
		free(item);
	cli_htab_free(&t->threads);
}
