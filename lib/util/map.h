/*
 * A small open-addressing hash map from u64 keys to u64 values (numbers,
 * indices, or pointers cast through uintptr_t), used by the reader's name
 * tables and by the pairing engine.
 *
 * Linear probing at a load of at most one half, deletion by backward shift
 * (no tombstones, so a map that sees many inserts and removes of the same
 * few keys never degrades nor grows). Key 0 lives outside the table, so no
 * key value is reserved. A map allocates only when its key count grows
 * past a power of two; lookups and removals never allocate.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_MAP_H
#define GGMLVIZ_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ggmlviz__map_slot {
	uint64_t key; /* 0 = empty slot */
	uint64_t value;
};

struct ggmlviz__map {
	struct ggmlviz__map_slot *slots; /* mask + 1 slots, or NULL while empty */
	size_t mask;
	size_t count;   /* keys in slots, key 0 excluded */
	bool has_zero;  /* key 0 is present, its value in zero_value */
	uint64_t zero_value;
};

/* A map with no key; allocates nothing. A zeroed struct is the same. */
void ggmlviz__map_init(struct ggmlviz__map *m);

/* Frees the table; the map is empty and usable again. Values are not freed. */
void ggmlviz__map_release(struct ggmlviz__map *m);

/* Removes every key, keeping the table for reuse. */
void ggmlviz__map_clear(struct ggmlviz__map *m);

/* Number of keys. */
size_t ggmlviz__map_count(const struct ggmlviz__map *m);

/* Copies the value of key into *value; false if key is absent. */
bool ggmlviz__map_get(const struct ggmlviz__map *m, uint64_t key, uint64_t *value);

/*
 * The value of key, to read or change in place, or NULL if key is absent.
 * Valid until the next insert.
 */
uint64_t *ggmlviz__map_find(struct ggmlviz__map *m, uint64_t key);

/*
 * The value of key, inserting key with value 0 if absent (*created then
 * says so). Valid until the next insert. NULL when the table could not grow
 * (out of memory); the map is then unchanged.
 */
uint64_t *ggmlviz__map_insert(struct ggmlviz__map *m, uint64_t key, bool *created);

/* Removes key; false if it was absent. */
bool ggmlviz__map_remove(struct ggmlviz__map *m, uint64_t key);

/*
 * Visits every key once, in no particular order: start with *cursor = 0,
 * call until it returns false. The map must not change during the visit.
 */
bool ggmlviz__map_next(const struct ggmlviz__map *m, size_t *cursor, uint64_t *key,
		       uint64_t *value);

#endif /* GGMLVIZ_MAP_H */
