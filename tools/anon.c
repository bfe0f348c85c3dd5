/*
 * --anonymize (see anon.h). An open-addressing table from address to id,
 * grown by doubling up to 2^22 addresses (64 MiB); past that, an address
 * gets a keyed 64-bit mix with the top bit set instead: still one id per
 * address, no longer small, and the memory stays bounded.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "anon.h"

#define MAX_SLOTS ((size_t)1 << 23) /* half full at most */

struct slot {
	uint64_t addr, id;
};

static bool on;
static struct slot *slots;
static size_t n_slots, used;
static uint64_t next_id = 1, key;

void cli_anon_enable(void)
{
	on = true;
	key = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32;
}

bool cli_anon_on(void)
{
	return on;
}

static uint64_t mix(uint64_t x)
{
	x ^= key;
	x *= 0xBF58476D1CE4E5B9ull;
	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	return x ^ (x >> 29);
}

static struct slot *find(struct slot *table, size_t n, uint64_t addr)
{
	size_t i = (size_t)mix(addr) & (n - 1);

	while (table[i].addr && table[i].addr != addr)
		i = (i + 1) & (n - 1);
	return &table[i];
}

static bool grow(void)
{
	size_t n = n_slots ? n_slots * 2 : 4096;
	struct slot *bigger;

	if (n > MAX_SLOTS || !(bigger = calloc(n, sizeof *bigger)))
		return false;
	for (size_t i = 0; i < n_slots; i++)
		if (slots[i].addr)
			*find(bigger, n, slots[i].addr) = slots[i];
	free(slots);
	slots = bigger;
	n_slots = n;
	return true;
}

uint64_t cli_anon(uint64_t addr)
{
	struct slot *s;

	if (!on || addr == 0)
		return addr;
	if (n_slots) {
		s = find(slots, n_slots, addr);
		if (s->addr)
			return s->id;
	}
	if ((used + 1) * 2 > n_slots && !grow())
		return mix(addr) | (uint64_t)1 << 63; /* past the table: still one id per address */
	s = find(slots, n_slots, addr);
	*s = (struct slot){ addr, next_id++ };
	used++;
	return s->id;
}

void cli_anon_forget(void)
{
	free(slots);
	slots = NULL;
	n_slots = used = 0;
	next_id = 1;
}
