/*
 * Op timings grouped for stats and diff: a distribution per group (exact
 * count, total, min and max; p50 and p95 from a log-bucketed histogram),
 * the work of the ops that know it, and the sort of the groups.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_AGG_H
#define GGMLVIZ_AGG_H

#include <stdint.h>

#include <ggmlviz/reader.h>

#include "htab.h"

/*
 * Durations in constant memory: values below 64 ns are counted exactly,
 * larger ones in 32 buckets per power of two, so a quantile (the middle of
 * its bucket, kept within [min, max]) is off by less than 1/64 (1.6%) of
 * the true value (the first and last ranks are the exact min and max). At
 * most 1920 counters, allocated for the range seen.
 */
struct ggmlviz__dist {
	uint64_t count, total, min, max;
	uint64_t *buckets; /* n counters for the buckets lo .. lo + n - 1 */
	uint32_t lo, n;
};

/* Adds one value; 0 or -ENOMEM. */
int ggmlviz__dist_add(struct ggmlviz__dist *d, uint64_t v);
/* The q-quantile (0 < q <= 1) by nearest rank, 0 when empty. */
uint64_t ggmlviz__dist_quantile(const struct ggmlviz__dist *d, double q);
void ggmlviz__dist_free(struct ggmlviz__dist *d);

/* What op timings are grouped by (--by). */
enum ggmlviz__by { GGMLVIZ__BY_OP, GGMLVIZ__BY_NAME, GGMLVIZ__BY_LAYER, GGMLVIZ__BY_THREAD,
		   GGMLVIZ__BY_BACKEND };
extern const char *const ggmlviz__by_names[];

/* How groups are sorted (--sort): by a value, biggest first, or by name. */
enum ggmlviz__sort { GGMLVIZ__SORT_TOTAL, GGMLVIZ__SORT_COUNT, GGMLVIZ__SORT_MEAN,
		     GGMLVIZ__SORT_MIN, GGMLVIZ__SORT_MAX, GGMLVIZ__SORT_P50, GGMLVIZ__SORT_P95,
		     GGMLVIZ__SORT_GFLOPS, GGMLVIZ__SORT_NAME };
extern const char *const ggmlviz__sort_names[];

struct ggmlviz__group {
	uint64_t id;       /* op type, layer + 1 (0: none), thread id, backend */
	char *key;         /* by name: the tensor name (owned); else NULL */
	size_t key_len;
	char *name;        /* display name (owned, NUL-terminated), set by _finish */
	size_t name_len;
	struct ggmlviz__dist d;
	uint64_t flops, flops_ns; /* work, and time, of the ops whose work is known */
	uint64_t p50, p95;        /* set by _finish */
	double sort_value;
};

/* GFLOP/s of a group (flops per ns), or -1 when no op knows its work. */
double ggmlviz__group_gflops(const struct ggmlviz__group *g);

struct ggmlviz__agg {
	int by;                       /* enum ggmlviz__by */
	struct ggmlviz__htab groups;
	uint64_t ops, op_ns, graphs, graph_ns;
	uint64_t t_first, t_last;     /* earliest begin, latest end of any timing */
	struct ggmlviz_pairing_counts counts;
	struct ggmlviz__group **sorted; /* n groups, after _finish */
	size_t n;
};

void ggmlviz__agg_init(struct ggmlviz__agg *a, int by);
/* Adds a timing (ops to their group, graphs to the totals); 0 or -ENOMEM. */
int ggmlviz__agg_add(struct ggmlviz__agg *a, const struct ggmlviz_timing *t);
/* Names the groups (with r's names) and lists them; 0 or -ENOMEM. */
int ggmlviz__agg_finish(struct ggmlviz__agg *a, const struct ggmlviz_reader *r);
/* Sorts the list by enum ggmlviz__sort. */
void ggmlviz__agg_sort(struct ggmlviz__agg *a, int sort);
void ggmlviz__agg_free(struct ggmlviz__agg *a);

/* Output formats of stats and diff (--format). */
enum ggmlviz__format { GGMLVIZ__FORMAT_TEXT, GGMLVIZ__FORMAT_CSV, GGMLVIZ__FORMAT_JSON };
extern const char *const ggmlviz__format_names[];

/* The options stats and diff share. */
struct ggmlviz__group_opts {
	int by;       /* enum ggmlviz__by */
	int sort;     /* stats: enum ggmlviz__sort; diff: its own */
	int format;   /* enum ggmlviz__format */
	uint64_t top; /* groups shown, UINT64_MAX: all */
};

#define GGMLVIZ__GROUP_SHORTOPTS "b:s:n:f:"
#define GGMLVIZ__GROUP_LONGOPTS                                                              \
	{ "by", required_argument, NULL, 'b' }, { "sort", required_argument, NULL, 's' },   \
	{ "top", required_argument, NULL, 'n' }, { "format", required_argument, NULL, 'f' }, \
	{ "help", no_argument, NULL, 'h' }

/* Takes --by, --top, --format, and --sort among sorts; 0 or GGMLVIZ__EXIT_USAGE. */
int ggmlviz__group_option(const char *cmd, struct ggmlviz__group_opts *o, int c,
			  const char *arg, const char *const *sorts);

/*
 * Reads the op timings of path into a (ggmlviz_agg_init first): 0;
 * GGMLVIZ__EXIT_DAMAGED after a message when the trace is damaged (what
 * came before is in a, named and listed); -1 after a message when it
 * cannot be read at all.
 */
int ggmlviz__collect(const char *cmd, const char *path, struct ggmlviz__agg *a);

#endif /* GGMLVIZ_AGG_H */
