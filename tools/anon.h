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

/* Turns the replacing on for the rest of the run. */
void cli_anon_enable(void);

/* Whether it is on. */
bool cli_anon_on(void);

/* The id of addr when on; addr itself when off. */
uint64_t cli_anon(uint64_t addr);

/* Frees the table. */
void cli_anon_forget(void);

#endif /* CLI_ANON_H */
