/*
 * ggmlviz stats: the per-op timing table of a trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg.h"
#include "cli.h"

static const char help[] =
	"Usage: ggmlviz stats [OPTIONS] FILE\n"
	"\n"
	"Per-op timing table of a trace: for each group of ops, the count, total,\n"
	"mean, min, p50, p95 and max duration, the share of all op time, and the\n"
	"achieved GFLOP/s of the ops whose work the trace records (OP_INFO).\n"
	"\n"
	"Options:\n"
	"  -b, --by KEY       group by op (default), name (tensor name), layer (the\n"
	"                     trailing -N of llama.cpp tensor names; others go to\n"
	"                     \"(none)\"), thread or backend\n"
	"  -s, --sort KEY     total (default), count, mean, min, max, p50, p95, gflops\n"
	"                     (biggest first) or name\n"
	"  -n, --top N        show the first N groups only\n"
	"  -f, --format FMT   text (default), csv or json; csv and json give times as\n"
	"                     integer nanoseconds and the share as a fraction\n"
	"  -h, --help         show this help\n"
	"\n"
	"Count, total, mean, min and max are exact. p50 and p95 come from a\n"
	"log-bucketed histogram (32 buckets per power of two) that keeps memory\n"
	"constant: they are within 1/64 (1.6%) of the exact percentile (nearest rank),\n"
	"and exact below 64 ns. Memory grows with the number of groups, never with\n"
	"the number of events.\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (the records before the\n"
	"damage are used), 2 bad command line.\n";

static int option(void *ctx, int c, char *arg)
{
	return ggmlviz__group_option("stats", ctx, c, arg, ggmlviz__sort_names);
}

static const struct option longopts[] = { GGMLVIZ__GROUP_LONGOPTS, { NULL, 0, NULL, 0 } };

static const struct ggmlviz__cmd cmd = { "stats", help, GGMLVIZ__GROUP_SHORTOPTS, longopts, 1, 1,
					 option };

static double share(const struct ggmlviz__agg *a, const struct ggmlviz__group *g)
{
	return a->op_ns ? (double)g->d.total / (double)a->op_ns : 0;
}

static double mean(const struct ggmlviz__group *g)
{
	return g->d.count ? (double)g->d.total / (double)g->d.count : 0;
}

static size_t shown(const struct ggmlviz__agg *a, uint64_t top)
{
	return top < a->n ? (size_t)top : a->n;
}

static const char *const columns[] = { "COUNT", "TOTAL", "MEAN", "MIN", "P50",
				       "P95", "MAX", "SHARE", "GFLOP/S", NULL };

static void text_header(struct ggmlviz__table *t, int by)
{
	char title[16];
	size_t i;

	for (i = 0; ggmlviz__by_names[by][i] && i + 1 < sizeof title; i++)
		title[i] = (char)toupper((unsigned char)ggmlviz__by_names[by][i]);
	title[i] = '\0';
	ggmlviz__table_add(t, "%s", title);
	for (const char *const *h = columns; *h; h++)
		ggmlviz__table_add(t, "%s", *h);
}

static void text_row(struct ggmlviz__table *t, const char *name, const struct ggmlviz__dist *d,
		     uint64_t p50, uint64_t p95, double sh, double gflops)
{
	char b[6][32];
	double avg = d->count ? (double)d->total / (double)d->count : 0;

	ggmlviz__table_add(t, "%s", name);
	ggmlviz__table_add(t, "%llu", (unsigned long long)d->count);
	ggmlviz__table_add(t, "%s", ggmlviz__fmt_ns((double)d->total, b[0]));
	ggmlviz__table_add(t, "%s", ggmlviz__fmt_ns(avg, b[1]));
	ggmlviz__table_add(t, "%s", ggmlviz__fmt_ns((double)d->min, b[2]));
	ggmlviz__table_add(t, "%s", p50 == UINT64_MAX ? "" : ggmlviz__fmt_ns((double)p50, b[3]));
	ggmlviz__table_add(t, "%s", p95 == UINT64_MAX ? "" : ggmlviz__fmt_ns((double)p95, b[4]));
	ggmlviz__table_add(t, "%s", ggmlviz__fmt_ns((double)d->max, b[5]));
	ggmlviz__table_add(t, "%.1f%%", sh * 100);
	if (gflops >= 0)
		ggmlviz__table_add(t, "%.1f", gflops);
	else
		ggmlviz__table_add(t, "-");
}

/* The exact totals of all groups, as a distribution without quantiles. */
static struct ggmlviz__dist all_groups(const struct ggmlviz__agg *a)
{
	struct ggmlviz__dist d = { 0 };

	for (size_t i = 0; i < a->n; i++) {
		const struct ggmlviz__dist *g = &a->sorted[i]->d;
		d.min = d.count && d.min < g->min ? d.min : g->min;
		d.max = d.max > g->max ? d.max : g->max;
		d.count += g->count;
		d.total += g->total;
	}
	return d;
}

static void print_text(struct ggmlviz__out *o, const char *path, const struct ggmlviz__agg *a,
		       uint64_t top)
{
	struct ggmlviz__table t;
	struct ggmlviz__dist all = all_groups(a);
	char b[2][32];
	size_t n = shown(a, top);

	ggmlviz__out_printf(o, "%s: %llu ops in %llu graphs; op time %s, trace span %s\n", path,
			    (unsigned long long)a->ops, (unsigned long long)a->graphs,
			    ggmlviz__fmt_ns((double)a->op_ns, b[0]),
			    ggmlviz__fmt_ns(a->t_last > a->t_first ?
						    (double)(a->t_last - a->t_first) : 0, b[1]));
	ggmlviz__table_init(&t, 10);
	text_header(&t, a->by);
	for (size_t i = 0; i < n; i++) {
		const struct ggmlviz__group *g = a->sorted[i];
		char *name = ggmlviz__text_dup(g->name, g->name_len);
		text_row(&t, name ? name : "?", &g->d, g->p50, g->p95, share(a, g),
			 ggmlviz__group_gflops(g));
		free(name);
	}
	if (a->n)
		text_row(&t, "TOTAL", &all, UINT64_MAX, UINT64_MAX, a->op_ns ? 1 : 0, -1);
	ggmlviz__table_print(&t, o, "");
	ggmlviz__table_free(&t);
	if (n < a->n)
		ggmlviz__out_printf(o, "(%zu more groups not shown: --top)\n", a->n - n);
	if (a->counts.unmatched_ends || a->counts.unclosed_begins)
		ggmlviz__out_printf(o, "(%llu ends without a begin, %llu begins never ended: not"
				    " counted)\n", (unsigned long long)a->counts.unmatched_ends,
				    (unsigned long long)a->counts.unclosed_begins);
}

static void print_csv(struct ggmlviz__out *o, const struct ggmlviz__agg *a, uint64_t top)
{
	ggmlviz__out_str(o, "group,count,total_ns,mean_ns,min_ns,p50_ns,p95_ns,max_ns,share,"
			 "gflops,flops\n");
	for (size_t i = 0; i < shown(a, top); i++) {
		const struct ggmlviz__group *g = a->sorted[i];
		double gf = ggmlviz__group_gflops(g);

		ggmlviz__csv_str(o, g->name, g->name_len);
		ggmlviz__out_printf(o, ",%llu,%llu,%.3f,%llu,%llu,%llu,%llu,%.6f,",
				    (unsigned long long)g->d.count, (unsigned long long)g->d.total,
				    mean(g), (unsigned long long)g->d.min,
				    (unsigned long long)g->p50, (unsigned long long)g->p95,
				    (unsigned long long)g->d.max, share(a, g));
		if (gf >= 0)
			ggmlviz__out_printf(o, "%.3f", gf);
		ggmlviz__out_printf(o, ",%llu\n", (unsigned long long)g->flops);
	}
}

static void json_u64(struct ggmlviz__out *o, const char *key, uint64_t v)
{
	ggmlviz__out_printf(o, "\"%s\":", key);
	ggmlviz__out_u64(o, v);
}

static void json_group(struct ggmlviz__out *o, const struct ggmlviz__agg *a,
		       const struct ggmlviz__group *g)
{
	ggmlviz__out_str(o, "{\"name\":");
	ggmlviz__json_str(o, g->name, g->name_len);
	ggmlviz__out_char(o, ',');
	json_u64(o, "count", g->d.count);
	ggmlviz__out_char(o, ',');
	json_u64(o, "total_ns", g->d.total);
	ggmlviz__out_str(o, ",\"mean_ns\":");
	ggmlviz__json_double(o, mean(g));
	ggmlviz__out_char(o, ',');
	json_u64(o, "min_ns", g->d.min);
	ggmlviz__out_char(o, ',');
	json_u64(o, "p50_ns", g->p50);
	ggmlviz__out_char(o, ',');
	json_u64(o, "p95_ns", g->p95);
	ggmlviz__out_char(o, ',');
	json_u64(o, "max_ns", g->d.max);
	ggmlviz__out_str(o, ",\"share\":");
	ggmlviz__json_double(o, share(a, g));
	ggmlviz__out_str(o, ",\"gflops\":");
	ggmlviz__json_double(o, g->flops_ns ? ggmlviz__group_gflops(g) : (double)NAN);
	ggmlviz__out_char(o, ',');
	json_u64(o, "flops", g->flops);
	ggmlviz__out_char(o, '}');
}

static void print_json(struct ggmlviz__out *o, const char *path, const struct ggmlviz__agg *a,
		       uint64_t top)
{
	size_t n = shown(a, top);

	ggmlviz__out_str(o, "{\"file\":");
	ggmlviz__json_cstr(o, path);
	ggmlviz__out_printf(o, ",\"by\":\"%s\",", ggmlviz__by_names[a->by]);
	json_u64(o, "ops", a->ops);
	ggmlviz__out_char(o, ',');
	json_u64(o, "graphs", a->graphs);
	ggmlviz__out_char(o, ',');
	json_u64(o, "op_ns", a->op_ns);
	ggmlviz__out_char(o, ',');
	json_u64(o, "graph_ns", a->graph_ns);
	ggmlviz__out_char(o, ',');
	json_u64(o, "span_ns", a->t_last > a->t_first ? a->t_last - a->t_first : 0);
	ggmlviz__out_char(o, ',');
	json_u64(o, "unmatched_ends", a->counts.unmatched_ends);
	ggmlviz__out_char(o, ',');
	json_u64(o, "unclosed_begins", a->counts.unclosed_begins);
	ggmlviz__out_str(o, ",\"quantile_max_relative_error\":0.015625,\"groups\":[");
	for (size_t i = 0; i < n; i++) {
		if (i)
			ggmlviz__out_char(o, ',');
		json_group(o, a, a->sorted[i]);
	}
	ggmlviz__out_str(o, "],");
	json_u64(o, "groups_not_shown", a->n - n);
	ggmlviz__out_str(o, "}\n");
}

int ggmlviz__cmd_stats(int argc, char **argv)
{
	struct ggmlviz__group_opts opts = { GGMLVIZ__BY_OP, GGMLVIZ__SORT_TOTAL,
					    GGMLVIZ__FORMAT_TEXT, UINT64_MAX };
	struct ggmlviz__agg a;
	struct ggmlviz__out o;
	int first, status = ggmlviz__parse(&cmd, argc, argv, &opts, &first);

	if (status >= 0)
		return status;
	if (ggmlviz__out_open(&o, "stats", NULL) < 0)
		return GGMLVIZ__EXIT_DAMAGED;
	ggmlviz__agg_init(&a, opts.by);
	status = ggmlviz__collect("stats", argv[first], &a);
	if (status < 0) {
		ggmlviz__agg_free(&a);
		ggmlviz__out_close(&o, "stats");
		return GGMLVIZ__EXIT_DAMAGED;
	}
	ggmlviz__agg_sort(&a, opts.sort);
	if (opts.format == GGMLVIZ__FORMAT_TEXT)
		print_text(&o, argv[first], &a, opts.top);
	else if (opts.format == GGMLVIZ__FORMAT_CSV)
		print_csv(&o, &a, opts.top);
	else
		print_json(&o, argv[first], &a, opts.top);
	ggmlviz__agg_free(&a);
	return ggmlviz__out_close(&o, "stats") ? GGMLVIZ__EXIT_DAMAGED : status;
}
