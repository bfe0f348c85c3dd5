/*
 * The hash table of htab.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "base/htab.h"

uint64_t cli_hash_u64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit moves every output bit */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

uint64_t cli_hash_bytes(const void *p, size_t n, uint64_t seed)
{
	const unsigned char *s = p;
	uint64_t h = 0xcbf29ce484222325ull ^ seed; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return cli_hash_u64(h);
}

static size_t find_slot(const struct cli_htab *t, uint64_t hash, cli_htab_eq eq,
			const void *key)
{
	size_t i = (size_t)hash & t->mask;

	for (; t->slots[i].item; i = (i + 1) & t->mask)
		if (t->slots[i].hash == hash && eq(t->slots[i].item, key))
			return i;
	return SIZE_MAX;
}

void *cli_htab_find(const struct cli_htab *t, uint64_t hash, cli_htab_eq eq,
			 const void *key)
{
	size_t i = t->slots ? find_slot(t, hash, eq, key) : SIZE_MAX;

	return i == SIZE_MAX ? NULL : t->slots[i].item;
}

static void place(struct cli_hslot *slots, size_t mask, uint64_t hash, void *item)
{
	size_t i = (size_t)hash & mask;

	while (slots[i].item)
		i = (i + 1) & mask;
	slots[i].hash = hash;
	slots[i].item = item;
}

static int grow(struct cli_htab *t)
{
	size_t n = t->slots ? (t->mask + 1) * 2 : 16;
	struct cli_hslot *slots = calloc(n, sizeof *slots);

	if (!slots)
		return -ENOMEM;
	for (size_t i = 0; t->slots && i <= t->mask; i++)
		if (t->slots[i].item)
			place(slots, n - 1, t->slots[i].hash, t->slots[i].item);
	free(t->slots);
	t->slots = slots;
	t->mask = n - 1;
	return 0;
}

int cli_htab_add(struct cli_htab *t, uint64_t hash, void *item)
{
	if ((!t->slots || (t->count + 1) * 2 > t->mask + 1) && grow(t) < 0)
		return -ENOMEM;
	place(t->slots, t->mask, hash, item);
	t->count++;
	return 0;
}

/* Whether the item wanting slot home may move back from j to the hole at i. */
static bool may_fill(size_t home, size_t hole, size_t j)
{
	return hole <= j ? home <= hole || home > j : home <= hole && home > j;
}

void *cli_htab_remove(struct cli_htab *t, uint64_t hash, cli_htab_eq eq,
			   const void *key)
{
	size_t hole = t->slots ? find_slot(t, hash, eq, key) : SIZE_MAX, j;
	void *item;

	if (hole == SIZE_MAX)
		return NULL;
	item = t->slots[hole].item;
	for (j = (hole + 1) & t->mask; t->slots[j].item; j = (j + 1) & t->mask) {
		if (may_fill((size_t)t->slots[j].hash & t->mask, hole, j)) {
			t->slots[hole] = t->slots[j];
			hole = j;
		}
	}
	t->slots[hole].item = NULL;
	t->count--;
	return item;
}

void *cli_htab_next(const struct cli_htab *t, size_t *cursor)
{
	for (; t->slots && *cursor <= t->mask; (*cursor)++)
		if (t->slots[*cursor].item)
			return t->slots[(*cursor)++].item;
	return NULL;
}

void cli_htab_free(struct cli_htab *t)
{
	free(t->slots);
	t->slots = NULL;
	t->mask = t->count = 0;
}

void cli_htab_free_all(struct cli_htab *t)
{
	size_t cursor = 0;
	void *item;

	while ((item = cli_htab_next(t, &cursor)))
		free(item);
	cli_htab_free(t);
}
