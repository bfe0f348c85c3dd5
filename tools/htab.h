/*
 * A hash table of pointers to the caller's items, found by a hash and an
 * equality callback: open addressing, linear probing at a load of at most
 * one half, deletion by backward shift (no tombstones, so tables that see
 * many inserts and removes, like live allocations, never degrade).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_HTAB_H
#define GGMLVIZ_HTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ggmlviz__hslot {
	uint64_t hash;
	void *item; /* NULL: empty */
};

struct ggmlviz__htab {
	struct ggmlviz__hslot *slots; /* mask + 1 of them, or NULL while empty */
	size_t mask, count;
};

/* Whether item has the key. */
typedef bool (*ggmlviz__htab_eq)(const void *item, const void *key);

/* The item with key, or NULL. */
void *ggmlviz__htab_find(const struct ggmlviz__htab *t, uint64_t hash, ggmlviz__htab_eq eq,
			 const void *key);

/* Adds item (its key must be absent); 0 or -ENOMEM. */
int ggmlviz__htab_add(struct ggmlviz__htab *t, uint64_t hash, void *item);

/* Takes the item with key out of the table and returns it, or NULL. */
void *ggmlviz__htab_remove(struct ggmlviz__htab *t, uint64_t hash, ggmlviz__htab_eq eq,
			   const void *key);

/* Visits every item: start with *cursor = 0; NULL after the last. */
void *ggmlviz__htab_next(const struct ggmlviz__htab *t, size_t *cursor);

/* Frees the table, not the items. */
void ggmlviz__htab_free(struct ggmlviz__htab *t);

/* 64-bit hashes of bytes and of a number. */
uint64_t ggmlviz__hash_bytes(const void *p, size_t n, uint64_t seed);
uint64_t ggmlviz__hash_u64(uint64_t x);

#endif /* GGMLVIZ_HTAB_H */
