/*
 * --anonymize (see anon.h): the ids in the command's hash table (htab.c),
 * their entries in chunks, so that millions of addresses cost no
 * allocation each.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "base/anon.h"

#define MAX_IDS ((size_t)1 << 22) /* past it, an address gets a keyed hash as its id */
#define CHUNK 4096u

struct entry {
	uint64_t addr, id;
};

struct cli_anon_chunk {
	struct cli_anon_chunk *next;
	struct entry e[CHUNK];
};

void cli_anon_enable(struct cli_anon *a)
{
	a->on = true;
	a->next_id = 1;
	a->key = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32;
}

static bool entry_eq(const void *item, const void *key)
{
	return ((const struct entry *)item)->addr == *(const uint64_t *)key;
}

/* Room for a new entry, or NULL when out of memory. */
static struct entry *new_entry(struct cli_anon *a)
{
	struct cli_anon_chunk *c;

	if (!a->chunks || a->chunk_used == CHUNK) {
		if (!(c = malloc(sizeof *c)))
			return NULL;
		c->next = a->chunks;
		a->chunks = c;
		a->chunk_used = 0;
	}
	return &a->chunks->e[a->chunk_used++];
}

/* An id for an address the table has no room for: a keyed hash, one per address. */
static uint64_t fallback(const struct cli_anon *a, uint64_t addr)
{
	uint64_t x = addr ^ a->key;

	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	return (x ^ (x >> 29)) | (uint64_t)1 << 63;
}

uint64_t cli_anon(struct cli_anon *a, uint64_t addr)
{
	uint64_t hash = cli_hash_u64(addr);
	struct entry *e;

	if (!cli_anon_on(a) || addr == 0)
		return addr;
	if ((e = cli_htab_find(&a->ids, hash, entry_eq, &addr)))
		return e->id;
	if (a->ids.count >= MAX_IDS || !(e = new_entry(a)))
		return fallback(a, addr);
	*e = (struct entry){ addr, a->next_id };
	if (cli_htab_add(&a->ids, hash, e) < 0) {
		a->chunk_used--;
		return fallback(a, addr);
	}
	return a->next_id++;
}

void cli_anon_free(struct cli_anon *a)
{
	if (!a)
		return;
	cli_htab_free(&a->ids);
	while (a->chunks) {
		struct cli_anon_chunk *c = a->chunks;
		a->chunks = c->next;
		free(c);
	}
	*a = (struct cli_anon){ 0 };
}
