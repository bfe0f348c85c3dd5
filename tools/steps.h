/*
 * What stats shows of steps and splits: a table of steps or phases (tokens,
 * time per token, tokens per second, how much of each step its ops cover),
 * and the runs of nodes of each backend (steps-print.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_STEPS_H
#define CLI_STEPS_H

#include <stdint.h>

#include "agg.h"
#include "out.h"

/* The step or phase table of a (by step or phase), its first top groups. */
void cli_steps_text(struct cli_out *o, const struct cli_agg *a, uint64_t top);

/* ,"steps":..,"tokens":..,"step_ns":..,"ns_per_token":..,"tokens_per_s":.. of a group. */
void cli_steps_json(struct cli_out *o, const struct cli_group *g);

/* One line per backend that ran splits, under a table; nothing if none. */
void cli_splits_text(struct cli_out *o, const struct cli_agg *a);

/* ,"splits":[{...}, ...] */
void cli_splits_json(struct cli_out *o, const struct cli_agg *a);

#endif /* CLI_STEPS_H */
