/*
 * --anonymize: the addresses a trace holds (tensors, graphs, backends,
 * allocations; they reveal the program's memory layout) are replaced by
 * ids, 0x1, 0x2, ... in the order they are first seen, the same address
 * always by the same id within one run of the command; 0 stays 0.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_ANON_H
#define CLI_ANON_H

#include <stdbool.h>
#include <stdint.h>

#include "base/htab.h"

/* The ids of one run of the command (zeroed: off). */
struct cli_anon {
	bool on;
	uint64_t key;               /* of the fallback ids past the table */
	uint64_t next_id;
	struct cli_htab ids;        /* address -> struct of anon.c, kept in chunks */
	struct cli_anon_chunk *chunks;
	uint32_t chunk_used;        /* entries used in the newest chunk */
};

/* Turns the replacing on for the rest of the run. */
void cli_anon_enable(struct cli_anon *a);

/* The id of addr when on; addr itself when off (or when a is NULL). */
uint64_t cli_anon(struct cli_anon *a, uint64_t addr);

/* Whether replacing is on (a may be NULL: off). */
static inline bool cli_anon_on(const struct cli_anon *a)
{
	return a && a->on;
}

/* Frees the table; a may be NULL. */
void cli_anon_free(struct cli_anon *a);

#endif /* CLI_ANON_H */
