/*
 * ggmlviz mem: what it learns of a trace's TENSOR_ALLOC and TENSOR_FREE
 * records (cmd-mem.c), and how it prints it (mem-print.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_MEM_H
#define CLI_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "live.h"
#include "out.h"

#define CLI_SIZE_CLASSES 65 /* 0 bytes, then [2^k, 2^(k+1)) for k = 0..63 */

/* One interval of the timeline. */
struct cli_mem_point {
	uint64_t max;  /* most live bytes after any event of the interval */
	uint64_t last; /* live bytes after its last event */
	bool seen;     /* it had an event; else it carries the previous interval's last */
};

struct cli_mem {
	const char *path;
	struct cli_live live;
	struct cli_top largest, still; /* largest allocations; largest live at the end */
	uint64_t allocs, frees, alloc_bytes, freed_bytes;
	struct cli_alloc peak;         /* the allocation that reached the peak */
	uint64_t peak_bytes, peak_count;    /* live bytes and allocations at the peak */
	uint64_t t0, t_end, width;          /* timeline: start, end, interval length */
	size_t points;
	struct cli_mem_point *timeline;
	uint64_t class_count[CLI_SIZE_CLASSES], class_bytes[CLI_SIZE_CLASSES];
	uint64_t end_bytes, end_count;      /* live at the end */
};

void cli_mem_print_text(struct cli_out *o, const struct cli_mem *m);
void cli_mem_print_json(struct cli_out *o, const struct cli_mem *m);

#endif /* CLI_MEM_H */
