/*
 * Open-addressing hash map, u64 -> u64 (see map.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>

#include "map.h"

#define MAP_MIN_SLOTS 16u

/*
 * The finalizer of MurmurHash3: keys are often aligned addresses or small
 * integers, whose low bits alone would pile up in a few slots.
 */
static inline size_t map_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	key ^= key >> 33;
	key *= 0xc4ceb9fe1a85ec53ull;
	key ^= key >> 33;
	return (size_t)key;
}

/* The slot holding key, or the empty slot where it would go. */
static size_t map_probe(const struct ggmlviz__map *m, uint64_t key)
{
	size_t i = map_hash(key) & m->mask;

	while (m->slots[i].key != 0 && m->slots[i].key != key)
		i = (i + 1) & m->mask;
	return i;
}

void ggmlviz__map_init(struct ggmlviz__map *m)
{
	*m = (struct ggmlviz__map){ 0 };
}

void ggmlviz__map_release(struct ggmlviz__map *m)
{
	free(m->slots);
	ggmlviz__map_init(m);
}

void ggmlviz__map_clear(struct ggmlviz__map *m)
{
	for (size_t i = 0; m->slots && i <= m->mask; i++)
		m->slots[i].key = 0;
	m->count = 0;
	m->has_zero = false;
}

size_t ggmlviz__map_count(const struct ggmlviz__map *m)
{
	return m->count + (m->has_zero ? 1u : 0u);
}

uint64_t *ggmlviz__map_find(struct ggmlviz__map *m, uint64_t key)
{
	size_t i;

	if (key == 0)
		return m->has_zero ? &m->zero_value : NULL;
	if (!m->slots)
		return NULL;
	i = map_probe(m, key);
	return m->slots[i].key ? &m->slots[i].value : NULL;
}

bool ggmlviz__map_get(const struct ggmlviz__map *m, uint64_t key, uint64_t *value)
{
	/* find() changes nothing; it is non-const only to hand out a writable slot */
	const uint64_t *v = ggmlviz__map_find((struct ggmlviz__map *)(uintptr_t)m, key);

	if (v)
		*value = *v;
	return v != NULL;
}

/* Moves every key into a table of n slots (a power of two). */
static bool map_resize(struct ggmlviz__map *m, size_t n)
{
	struct ggmlviz__map_slot *old = m->slots;
	size_t old_n = old ? m->mask + 1 : 0;

	m->slots = calloc(n, sizeof *m->slots);
	if (!m->slots) {
		m->slots = old;
		return false;
	}
	m->mask = n - 1;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].key)
			m->slots[map_probe(m, old[i].key)] = old[i];
	free(old);
	return true;
}

/* Makes room for one more key, keeping the load at one half at most. */
static bool map_reserve_one(struct ggmlviz__map *m)
{
	size_t n = m->slots ? m->mask + 1 : 0;

	if ((m->count + 1) * 2 <= n)
		return true;
	if (n > SIZE_MAX / 2 / sizeof *m->slots)
		return false;
	return map_resize(m, n ? n * 2 : MAP_MIN_SLOTS);
}

uint64_t *ggmlviz__map_insert(struct ggmlviz__map *m, uint64_t key, bool *created)
{
	uint64_t *v = ggmlviz__map_find(m, key);
	size_t i;

	*created = v == NULL;
	if (v)
		return v;
	if (key == 0) {
		m->has_zero = true;
		m->zero_value = 0;
		return &m->zero_value;
	}
	if (!map_reserve_one(m))
		return NULL;
	i = map_probe(m, key);
	m->slots[i] = (struct ggmlviz__map_slot){ .key = key, .value = 0 };
	m->count++;
	return &m->slots[i].value;
}

/*
 * Backward-shift deletion: after emptying slot hole, pull back every later
 * key of the same probe run that may live there, so that no lookup ever
 * stops early at the new hole.
 */
static void map_close_hole(struct ggmlviz__map *m, size_t hole)
{
	size_t i = hole;

	for (;;) {
		i = (i + 1) & m->mask;
		if (m->slots[i].key == 0)
			break;
		size_t home = map_hash(m->slots[i].key) & m->mask;
		/* the key may move to hole if hole lies on its path home..i */
		if (((i - home) & m->mask) >= ((i - hole) & m->mask)) {
			m->slots[hole] = m->slots[i];
			hole = i;
		}
	}
	m->slots[hole].key = 0;
}

bool ggmlviz__map_remove(struct ggmlviz__map *m, uint64_t key)
{
	size_t i;

	if (key == 0) {
		bool had = m->has_zero;
		m->has_zero = false;
		return had;
	}
	if (!m->slots)
		return false;
	i = map_probe(m, key);
	if (m->slots[i].key == 0)
		return false;
	map_close_hole(m, i);
	m->count--;
	return true;
}

bool ggmlviz__map_next(const struct ggmlviz__map *m, size_t *cursor, uint64_t *key,
		       uint64_t *value)
{
	/* cursor 0 is key 0; cursor i + 1 is slot i */
	if (*cursor == 0) {
		*cursor = 1;
		if (m->has_zero) {
			*key = 0;
			*value = m->zero_value;
			return true;
		}
	}
	while (m->slots && *cursor - 1 <= m->mask) {
		const struct ggmlviz__map_slot *s = &m->slots[*cursor - 1];
		(*cursor)++;
		if (s->key) {
			*key = s->key;
			*value = s->value;
			return true;
		}
	}
	return false;
}
