/*
 * Progress of a long read, shown on a terminal only (progress.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

/* Shows how far a long read went, on a terminal only (progress.c). */
struct cli_progress {
	bool on, shown;
	const char *what, *stage; /* the file; "" or "pass 1 of 2: " */
	uint64_t total;
	double start, last;
	uint32_t tick;
};

void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total);
void cli_progress_update(struct cli_progress *p, uint64_t done);
void cli_progress_done(struct cli_progress *p);

#endif /* CLI_PROGRESS_H */
