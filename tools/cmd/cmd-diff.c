/*
 * ggmlviz diff: the stats of two traces side by side, joined by group
 * name (op numbers may differ between ggml versions, names do not), with
 * the change per group and in total, what moved most first.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "cmd/commands.h"
#include "output/output.h"
#include "base/htab.h"
#include "base/opts.h"

static const char help[] =
	"Usage: ggmlviz diff [OPTIONS] A B\n"
	"\n"
	"Compare the op timings of two traces (A before, B after a change): the same\n"
	"groups as 'ggmlviz stats', joined by name, with the change of the total and\n"
	"of the mean time per group and in total. Groups are sorted by what moved most.\n"
	"\n"
	"Options:\n"
	"  -b, --by KEY       group by op (default), name, layer, thread, backend, or\n"
	"                     part (the parts of a llama.cpp model, as stats --by part)\n"
	"  -s, --sort KEY     total (default: the biggest change of total time first),\n"
	"                     mean (of the mean time), count, or name\n"
	"  -n, --top N        show the first N groups only\n"
	"  -p, --phase PHASE  only the steps of prompt or generation, and their ops;\n"
	"                     the text then gives each trace's op time per token\n"
	"  -S, --steps A-B    only steps A to B of each trace (as stats --by step\n"
	"                     numbers them; A- from A on, -B up to B, A alone)\n"
	"  -f, --format FMT   text (default), csv or json (times in integer ns; changes\n"
	"                     in percent are null when A has no time for the group)\n"
	CLI_RAW_TICKS_HELP
	CLI_AS_TICKS_HELP
	"  -h, --help         show this help\n"
	"\n"
	"A group found in one trace only is compared with zero. When the traces ran\n"
	"different numbers of steps, compare means (--sort mean) rather than totals.\n"
	"\n"
	"Exit status: 0 success, 1 a trace is damaged or unreadable (the records before\n"
	"the damage are used), 2 bad command line.\n";

enum { SORT_TOTAL, SORT_MEAN, SORT_COUNT, SORT_NAME };
static const char *const sorts[] = { "total", "mean", "count", "name", NULL };

static int option(void *ctx, int c, char *arg)
{
	return cli_group_option("diff", ctx, c, arg, sorts);
}

static const struct option longopts[] = { CLI_GROUP_LONGOPTS, { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "diff", help, CLI_GROUP_SHORTOPTS, longopts, 2, 2,
					 option };

struct row {
	const struct cli_group *a, *b; /* either may be NULL */
	const char *name;
	size_t name_len;
	double key;
};

static const struct cli_dist none;

static const struct cli_dist *dist(const struct cli_group *g)
{
	return g ? &g->d : &none;
}

static double mean_of(const struct cli_dist *d)
{
	return d->count ? (double)d->total / (double)d->count : (double)NAN;
}

/* Change from a to b in percent of a; NaN when a is 0 (or unknown). */
static double pct(double a, double b)
{
	return a > 0 ? (b - a) / a * 100 : (double)NAN;
}

static bool name_eq(const void *item, const void *key)
{
	const struct cli_group *g = item;
	const struct row *r = key;

	return g->name_len == r->name_len && !memcmp(g->name, r->name, r->name_len);
}

static uint64_t name_hash(const struct row *r)
{
	return cli_hash_bytes(r->name, r->name_len, 0);
}

static struct row row_of(const struct cli_group *a, const struct cli_group *b)
{
	const struct cli_group *g = a ? a : b;

	return (struct row){ a, b, g->name, g->name_len, 0 };
}

/* The groups of a and b joined by name; NULL when out of memory. */
static struct row *join(const struct cli_agg *a, const struct cli_agg *b, size_t *n)
{
	struct row *rows = calloc(a->n + b->n + 1, sizeof *rows);
	struct cli_htab by_name = { 0 };
	bool ok = rows != NULL;

	*n = 0;
	for (size_t i = 0; ok && i < b->n; i++) {
		struct row key = row_of(NULL, b->sorted[i]);
		ok = cli_htab_add(&by_name, name_hash(&key), b->sorted[i]) == 0;
	}
	for (size_t i = 0; ok && i < a->n; i++) {
		struct row *r = &rows[(*n)++];
		*r = row_of(a->sorted[i], NULL);
		r->b = cli_htab_remove(&by_name, name_hash(r), name_eq, r);
	}
	for (size_t i = 0; ok && i < b->n; i++) {
		struct row key = row_of(NULL, b->sorted[i]);
		if (cli_htab_find(&by_name, name_hash(&key), name_eq, &key))
			rows[(*n)++] = key; /* in B only */
	}
	cli_htab_free(&by_name);
	if (!ok)
		free(rows), rows = NULL;
	return rows;
}

static double sort_key(const struct row *r, int sort)
{
	const struct cli_dist *a = dist(r->a), *b = dist(r->b);
	double ma = a->count ? mean_of(a) : 0, mb = b->count ? mean_of(b) : 0;

	if (sort == SORT_MEAN)
		return fabs(mb - ma);
	if (sort == SORT_COUNT)
		return fabs((double)b->count - (double)a->count);
	return fabs((double)b->total - (double)a->total);
}

static int by_name(const void *pa, const void *pb)
{
	return strverscmp(((const struct row *)pa)->name, ((const struct row *)pb)->name);
}

static int by_key(const void *pa, const void *pb)
{
	const struct row *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? 1 : -1;
	return by_name(pa, pb);
}

static void sort_rows(struct row *rows, size_t n, int sort)
{
	for (size_t i = 0; i < n; i++)
		rows[i].key = sort_key(&rows[i], sort);
	qsort(rows, n, sizeof *rows, sort == SORT_NAME ? by_name : by_key);
}

/* The totals of a trace as a distribution (count and total only). */
/* The TOTAL row, as stats's: the ops and the runs' starts told apart from them (their rows). */
static struct cli_dist totals(const struct cli_agg *a)
{
	return (struct cli_dist){ .count = a->ops + a->starts, .total = a->op_ns };
}

static const char *const columns[] = { "COUNT A", "COUNT B", "TOTAL A", "TOTAL B", "CHANGE",
				       "CHANGE%", "MEAN A", "MEAN B", "MEAN CHANGE%", NULL };

static void text_pct(struct cli_table *t, double v)
{
	if (isnan(v))
		cli_table_add(t, "-");
	else
		cli_table_add(t, "%+.1f%%", v);
}

static void text_row(struct cli_table *t, const char *name, const struct cli_dist *a,
		     const struct cli_dist *b)
{
	char buf[5][32];
	double change = (double)b->total - (double)a->total;

	cli_table_add(t, "%s", name);
	cli_table_add(t, "%llu", (unsigned long long)a->count);
	cli_table_add(t, "%llu", (unsigned long long)b->count);
	cli_table_add(t, "%s", cli_fmt_ns((double)a->total, buf[0]));
	cli_table_add(t, "%s", cli_fmt_ns((double)b->total, buf[1]));
	cli_table_add(t, "%s%s", change < 0 ? "-" : "+",
			   cli_fmt_ns(fabs(change), buf[2]));
	text_pct(t, pct((double)a->total, (double)b->total));
	cli_table_add(t, "%s", a->count ? cli_fmt_ns(mean_of(a), buf[3]) : "-");
	cli_table_add(t, "%s", b->count ? cli_fmt_ns(mean_of(b), buf[4]) : "-");
	text_pct(t, pct(mean_of(a), mean_of(b)));
}

/* GB/S A and B: each group's bytes over its time, where the traces record bytes (OP_BYTES). */
static void text_gbps(struct cli_table *t, const struct cli_group *a, const struct cli_group *b)
{
	const struct cli_group *g[2] = { a, b };

	for (int k = 0; k < 2; k++)
		if (g[k] && cli_group_gbps(g[k]) >= 0)
			cli_table_add(t, "%.2f", cli_group_gbps(g[k]));
		else
			cli_table_add(t, "-");
}

/* Whether either trace records the bytes of some op. */
static bool any_bytes(const struct cli_agg *agg[2])
{
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < agg[k]->n; i++)
			if (agg[k]->sorted[i]->bytes_ns)
				return true;
	return false;
}

/*
 * The two traces; with --phase and tokens in both, each one's op time per
 * token and its change: what compares runs that generated more or fewer tokens.
 */
static void print_head(struct cli_out *o, const struct cli_agg *agg[2], const char *paths[2])
{
	int per_token = agg[0]->phase && agg[0]->tokens && agg[1]->tokens;
	double each[2];
	char buf[2][32];

	for (int k = 0; k < 2; k++) {
		each[k] = agg[k]->tokens ? (double)agg[k]->op_ns / (double)agg[k]->tokens : 0;
		cli_out_printf(o, "%c: %s (%llu ops, %s of op time", 'A' + k, paths[k],
			       (unsigned long long)agg[k]->ops, cli_fmt_ns((double)agg[k]->op_ns, buf[0]));
		if (per_token)
			cli_out_printf(o, "; %llu tokens, %s per token",
				       (unsigned long long)agg[k]->tokens, cli_fmt_ns(each[k], buf[1]));
		cli_out_str(o, ")\n");
	}
	if (per_token)
		cli_out_printf(o, "op time per token: %+.1f%%\n", pct(each[0], each[1]));
}

static void print_text(struct cli_out *o, const struct cli_agg *agg[2],
		       const char *paths[2], const struct row *rows, size_t n, size_t shown)
{
	struct cli_table t;
	struct cli_dist ta = totals(agg[0]), tb = totals(agg[1]);
	char title[16];
	size_t i;

	print_head(o, agg, paths);
	for (i = 0; cli_by_names[agg[0]->by][i] && i + 1 < sizeof title; i++)
		title[i] = (char)toupper((unsigned char)cli_by_names[agg[0]->by][i]);
	title[i] = '\0';
	bool bytes = any_bytes(agg);

	cli_table_init(&t, bytes ? 12 : 10);
	cli_table_add(&t, "%s", title);
	for (const char *const *c = columns; *c; c++)
		cli_table_add(&t, "%s", *c);
	if (bytes)
		cli_table_add(&t, "GB/S A"), cli_table_add(&t, "GB/S B");
	for (i = 0; i < shown; i++) {
		char *name = cli_text_dup(rows[i].name, rows[i].name_len);
		text_row(&t, name ? name : "?", dist(rows[i].a), dist(rows[i].b));
		if (bytes)
			text_gbps(&t, rows[i].a, rows[i].b);
		free(name);
	}
	text_row(&t, "TOTAL", &ta, &tb);
	if (bytes)
		text_gbps(&t, NULL, NULL);
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_not_shown(o, n - shown);
}

static void csv_row(struct cli_out *o, const char *name, size_t len,
		    const struct cli_dist *a, const struct cli_dist *b)
{
	cli_csv_str(o, name, len);
	cli_out_printf(o, ",%llu,%llu,%llu,%llu,%lld,", (unsigned long long)a->count,
			    (unsigned long long)b->count, (unsigned long long)a->total,
			    (unsigned long long)b->total,
			    (long long)((int64_t)b->total - (int64_t)a->total));
	if (a->total)
		cli_out_printf(o, "%.3f", pct((double)a->total, (double)b->total));
	cli_out_char(o, ',');
	if (a->count)
		cli_out_printf(o, "%.3f", mean_of(a));
	cli_out_char(o, ',');
	if (b->count)
		cli_out_printf(o, "%.3f", mean_of(b));
	cli_out_char(o, ',');
	if (a->count && b->count)
		cli_out_printf(o, "%.3f", pct(mean_of(a), mean_of(b)));
	cli_out_char(o, '\n');
}

static void print_csv(struct cli_out *o, const struct cli_agg *agg[2],
		      const struct row *rows, size_t shown)
{
	struct cli_dist ta = totals(agg[0]), tb = totals(agg[1]);

	cli_out_str(o, "group,count_a,count_b,total_a_ns,total_b_ns,total_change_ns,"
			 "total_change_pct,mean_a_ns,mean_b_ns,mean_change_pct\n");
	for (size_t i = 0; i < shown; i++)
		csv_row(o, rows[i].name, rows[i].name_len, dist(rows[i].a), dist(rows[i].b));
	csv_row(o, "TOTAL", 5, &ta, &tb);
}

/* GB/s and GFLOP/s of a trace's group, null where unknown. */
static void json_rates(struct cli_out *o, const struct cli_group *g, char k)
{
	cli_out_printf(o, ",\"gbps_%c\":", k);
	cli_json_double(o, g && g->bytes_ns ? cli_group_gbps(g) : (double)NAN);
	cli_out_printf(o, ",\"gflops_%c\":", k);
	cli_json_double(o, g && g->flops_ns ? cli_group_gflops(g) : (double)NAN);
}

/* A group's row (r), or the totals (r NULL, no rates). */
static void json_row(struct cli_out *o, const struct row *r, const struct cli_dist *a,
		     const struct cli_dist *b)
{
	cli_out_str(o, "{\"name\":");
	cli_json_str(o, r ? r->name : "TOTAL", r ? r->name_len : 5);
	cli_out_printf(o, ",\"count_a\":%llu,\"count_b\":%llu,\"total_a_ns\":%llu,"
			    "\"total_b_ns\":%llu,\"total_change_ns\":%lld,\"total_change_pct\":",
			    (unsigned long long)a->count, (unsigned long long)b->count,
			    (unsigned long long)a->total, (unsigned long long)b->total,
			    (long long)((int64_t)b->total - (int64_t)a->total));
	cli_json_double(o, pct((double)a->total, (double)b->total));
	cli_out_str(o, ",\"mean_a_ns\":");
	cli_json_double(o, mean_of(a));
	cli_out_str(o, ",\"mean_b_ns\":");
	cli_json_double(o, mean_of(b));
	cli_out_str(o, ",\"mean_change_pct\":");
	cli_json_double(o, pct(mean_of(a), mean_of(b)));
	if (r)
		json_rates(o, r->a, 'a'), json_rates(o, r->b, 'b');
	cli_out_char(o, '}');
}

static void print_json(struct cli_out *o, const struct cli_agg *agg[2],
		       const char *paths[2], const struct row *rows, size_t n, size_t shown)
{
	struct cli_dist ta = totals(agg[0]), tb = totals(agg[1]);

	cli_out_str(o, "{\"a\":");
	cli_json_cstr(o, paths[0]);
	cli_out_str(o, ",\"b\":");
	cli_json_cstr(o, paths[1]);
	cli_out_printf(o, ",\"by\":\"%s\",\"total\":", cli_by_names[agg[0]->by]);
	json_row(o, NULL, &ta, &tb);
	cli_out_str(o, ",\"groups\":[");
	for (size_t i = 0; i < shown; i++) {
		if (i)
			cli_out_char(o, ',');
		json_row(o, &rows[i], dist(rows[i].a), dist(rows[i].b));
	}
	cli_out_printf(o, "],\"groups_not_shown\":%zu}\n", n - shown);
}

static int print(const struct cli_group_opts *opts, const struct cli_agg *agg[2],
		 const char *paths[2])
{
	struct cli_out o;
	size_t n, shown;
	struct row *rows = join(agg[0], agg[1], &n);

	if (!rows || cli_out_open(&o, "diff", NULL) < 0) {
		cli_error("diff: %s", ggmlviz_strerror(-ENOMEM));
		free(rows);
		return CLI_EXIT_DAMAGED;
	}
	sort_rows(rows, n, opts->sort);
	shown = opts->top < n ? (size_t)opts->top : n;
	if (opts->format == CLI_FORMAT_TEXT)
		print_text(&o, agg, paths, rows, n, shown);
	else if (opts->format == CLI_FORMAT_CSV)
		print_csv(&o, agg, rows, shown);
	else
		print_json(&o, agg, paths, rows, n, shown);
	free(rows);
	return cli_out_close(&o, "diff");
}

int cli_cmd_diff(struct cli *cli, int argc, char **argv)
{
	struct cli_group_opts opts = { CLI_BY_OP, SORT_TOTAL, CLI_FORMAT_TEXT, UINT64_MAX, 0, false,
				       { 0, 0 } };
	struct cli_agg a, b;
	const struct cli_agg *both[2] = { &a, &b };
	int first, sa, sb, status = cli_parse(&cmd, argc, argv, &opts, &first);
	const char *paths[2];

	if (status >= 0)
		return status;
	if (opts.by == CLI_BY_SEQUENCE || opts.by == CLI_BY_REQUEST || opts.by == CLI_BY_HOST ||
	    opts.by == CLI_BY_COMMAND) {
		cli_error("diff: --by %s compares no ops: see ggmlviz stats --by %s on each trace",
			  cli_by_names[opts.by], cli_by_names[opts.by]);
		return CLI_EXIT_USAGE;
	}
	paths[0] = argv[first];
	paths[1] = argv[first + 1];
	cli_agg_init(&a, opts.by, &cli->names, &cli->dist_bytes);
	cli_agg_init(&b, opts.by, &cli->names, &cli->dist_bytes);
	a.phase = b.phase = (uint32_t)opts.phase;
	a.step_range = b.step_range = opts.step_range; /* the same steps of each */
	a.raw_ticks = b.raw_ticks = opts.raw_ticks;
	sa = cli_collect("diff", paths[0], &a);
	sb = sa < 0 ? -1 : cli_collect("diff", paths[1], &b);
	if (sa < 0 || sb < 0)
		status = CLI_EXIT_DAMAGED;
	else if ((status = cli_step_span_check("diff", paths[0], &a.step_range, &a.span)) == 0 &&
		 (status = cli_step_span_check("diff", paths[1], &b.step_range, &b.span)) == 0)
		status = print(&opts, both, paths);
	cli_agg_free(&a);
	cli_agg_free(&b);
	return status ? status : sa > sb ? sa : sb;
}
