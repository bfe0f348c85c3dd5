/*
 * Tensor memory (tools/memory/): the allocations live at each moment and
 * the largest ones (live.c, for mem, export and the report), and what mem
 * prints of them (mem-print.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_MEMORY_H
#define CLI_MEMORY_H

#include <ggmlviz/reader.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/htab.h"

#include "output/output.h"

/* ---- The allocations live at each moment, and the largest (live.c) ---- */

struct cli_alloc {
	uint64_t pid, ptr, size, ts, offset;
	const char *label; /* borrowed from the reader: valid until it closes */
	uint32_t label_len;
};

#define CLI_LIVE_PIDS 16

struct cli_live {
	struct cli_htab allocs;
	uint64_t bytes, count;    /* live now, all processes */
	uint64_t unknown_frees;   /* frees of a pointer not allocated in the trace */
	uint64_t reallocs;        /* allocations of a pointer still live (the old one is dropped) */
	uint64_t untracked;       /* allocations not followed: CLI_MAX_LIVE were live already */
	struct {
		uint64_t pid, bytes;
	} per_pid[CLI_LIVE_PIDS]; /* the first processes seen; the rest share the last */
	size_t npids;
};

/* Adds a live allocation (a live one at the same pointer is dropped); 0 or -ENOMEM. */
int cli_live_alloc(struct cli_live *l, const struct cli_alloc *a);
/* Frees pid's ptr: true with *size the bytes it held, false if it was not live (counted). */
bool cli_live_free(struct cli_live *l, uint64_t pid, uint64_t ptr, uint64_t *size);
/* Applies a TENSOR_ALLOC or TENSOR_FREE record of process pid (a free of what is not live is counted); 0 or -ENOMEM. */
int cli_live_event(struct cli_live *l, uint64_t pid, const struct ggmlviz_event *ev);
/* Bytes live in process pid. */
uint64_t cli_live_bytes(const struct cli_live *l, uint64_t pid);
/* Visits the live allocations: start with *cursor = 0; NULL after the last. */
const struct cli_alloc *cli_live_next(const struct cli_live *l, size_t *cursor);
void cli_live_release(struct cli_live *l);

/* The cap largest allocations of those offered (a min-heap). */
struct cli_top {
	struct cli_alloc *items;
	size_t n, cap;
};

/* 0 or -ENOMEM. */
int cli_top_init(struct cli_top *t, size_t cap);
void cli_top_offer(struct cli_top *t, const struct cli_alloc *a);
/* Sorts the kept items, largest first (no offer after this). */
void cli_top_sort(struct cli_top *t);
void cli_top_release(struct cli_top *t);

/* Live allocations followed at most (about 100 MB of memory). */
#define CLI_MAX_LIVE ((uint64_t)1 << 20)

/* ---- What mem learns of TENSOR_ALLOC and TENSOR_FREE, and prints (mem-print.c) ---- */

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

/* ---- Memory by device and part (devices.c): info, stats, advise ---- */

/* What an adapter's buffer holds, by its label's first word. */
enum { CLI_MEM_WEIGHTS, CLI_MEM_KV, CLI_MEM_COMPUTE, CLI_MEM_OTHER, CLI_MEM_ROLES };
extern const char *const cli_mem_role_names[CLI_MEM_ROLES]; /* "weights", "KV cache", ... */

#define CLI_MEM_DEVICES 16
#define CLI_MEM_DEVICE_BUFFERS 65536 /* live allocations followed by device; more are counted */

/* One device (META DEVICE's name; else a buffer's own name, or "(not said)"). */
struct cli_mem_device {
	char name[32];
	uint64_t live, peak;                  /* bytes live now, and the most at once */
	uint64_t role_live[CLI_MEM_ROLES];    /* ... by part */
	uint64_t role_peak[CLI_MEM_ROLES];    /* the most of each part at once */
	uint64_t at_peak[CLI_MEM_ROLES];      /* each part's bytes when the device peaked */
	uint64_t total;                       /* its memory (META DEVICE), 0: not said */
	uint64_t free_seen;                   /* the least free when one of its buffers was first used */
};

struct cli_mem_devices {
	struct cli_mem_device d[CLI_MEM_DEVICES];
	size_t n;
	bool any;            /* the trace has TENSOR_ALLOC records */
	bool devices_said;   /* ... and META DEVICE records */
	uint64_t devices_over, untracked;
	struct cli_htab live; /* the buffers live, by address */
	void *pending;        /* the buffer recorded last, its device not known yet */
	int error;
};

/* A record read, in file order (zeroed first); after the last, cli_mem_devices_end(). */
void cli_mem_devices_event(struct cli_mem_devices *m, const struct ggmlviz_event *ev);
void cli_mem_devices_end(struct cli_mem_devices *m);
/* Reads path's records (a reader of its own); 0, -ENOMEM, or -1 where path cannot be read again. */
int cli_mem_devices_read(const char *path, struct cli_mem_devices *m);
void cli_mem_devices_free(struct cli_mem_devices *m);
/* A line per device: its parts' most, its peak, its memory where said. */
void cli_mem_devices_text(struct cli_out *o, const struct cli_mem_devices *m, const char *indent);
/* The same as a JSON array. */
void cli_mem_devices_json(struct cli_out *o, const struct cli_mem_devices *m);

void cli_mem_print_text(struct cli_out *o, const struct cli_mem *m);
void cli_mem_print_json(struct cli_out *o, const struct cli_mem *m);

#endif /* CLI_MEMORY_H */
