/*
 * A hash table of pointers to the caller's items, found by a hash and an
 * equality callback: open addressing, linear probing at a load of at most
 * one half, deletion by backward shift (no tombstones, so tables that see
 * many inserts and removes, like live allocations, never degrade).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_HTAB_H
#define CLI_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cli_hslot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct cli_htab {
	struct cli_hslot *slots; /* mask + 1 of them, or NULL while empty */
	size_t mask, count;
};

/* Whether item has the key. */
typedef bool (*cli_htab_eq)(const void *item, const void *key);

/* The item with key, or NULL. */
void *cli_htab_find(const struct cli_htab *t, uint64_t hash, cli_htab_eq eq,
			 const void *key);

/* Adds item (its key must be absent); 0 or -ENOMEM. */
int cli_htab_add(struct cli_htab *t, uint64_t hash, void *item);

/* Takes the item with key out of the table and returns it, or NULL. */
void *cli_htab_remove(struct cli_htab *t, uint64_t hash, cli_htab_eq eq,
			   const void *key);

/* Visits every item: start with *cursor = 0; NULL after the last. */
void *cli_htab_next(const struct cli_htab *t, size_t *cursor);

/* Frees the table, not the items. */
void cli_htab_free(struct cli_htab *t);
/* Frees each item (malloc'd, holding nothing of its own), then the table. */
void cli_htab_free_all(struct cli_htab *t);

/* 64-bit hashes of bytes and of a number. */
uint64_t cli_hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t cli_hash_u64(uint64_t x);

#endif /* CLI_HTAB_H */
