/*
 * The ggmlviz command's state, one struct made by main() for the command
 * it runs and passed down (as curl's GlobalConfig is): what the traces
 * name, the ids --anonymize gives, and the memory every distribution of
 * the command shares. Each layer gets the part it needs (a struct
 * cli_names *, a struct cli_anon *); no file of tools/ keeps state of its
 * own between calls.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_CLI_H
#define CLI_CLI_H

#include <stdint.h>

#include "base/anon.h"
#include "input/input.h"

struct cli {
	struct cli_anon anon;   /* --anonymize: one id per address for the whole run */
	struct cli_names names; /* what the traces name by number (a first pass learns it) */
	uint64_t dist_bytes;    /* counter memory of every distribution (stats.h's budget) */
};

/* A fresh state: nothing named, nothing anonymized. */
void cli_init(struct cli *cli);

/* Frees what the command left in it. */
void cli_free(struct cli *cli);

#endif /* CLI_CLI_H */
