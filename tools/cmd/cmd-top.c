/*
 * ggmlviz top: a trace followed as it is written, redrawn about once a
 * second (input/follow.c reads what is new, stats/recent.c holds its last
 * seconds): tokens per second, the ops or layers of the last seconds, a
 * server's requests, live memory, dropped events, the trace's state. Interactive on a terminal (keys to
 * switch views, sort, pause and quit; output/term.c), else, or with
 * --batch, one table every N seconds, as top -b. --replay plays a
 * finished trace at a chosen speed.
 *
 * It reads only what is new at each refresh, so that its memory stays
 * flat however long the trace runs.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "input/input.h"
#include "output/output.h"
#include "stats/stats.h"

static const char help[] =
	"Usage: ggmlviz top [OPTIONS] FILE\n"
	"\n"
	"Follow a trace as it is written and show its last seconds, refreshed: tokens\n"
	"per second of prompts and generation over their steps' time, as stats --by\n"
	"phase gives them (in the last seconds and since the start), and over the last\n"
	"seconds' wall time; the ops, the layers or the model's parts (stats --by part)\n"
	"by their share of the last seconds (with GB/s and what bounds them), a\n"
	"server's requests in flight and ended with their latency percentiles, live\n"
	"tensor memory, dropped events, and the trace's state: being written, ended,\n"
	"crashed, or no longer growing.\n"
	"\n"
	"Keys: o ops, l layers, m the model's parts, r requests; s the sort (time,\n"
	"count, name); p pause; q quit.\n"
	"\n"
	"Options:\n"
	"  -b, --batch N       no screen: a table every N seconds (as top -b); also\n"
	"                      when standard output is no terminal (every second)\n"
	"  -n, --iterations N  stop after N tables (batch) or redraws\n"
	"      --replay SPEED  play a finished trace SPEED times as fast as it was\n"
	"                      recorded (1: as it ran), instead of following it\n"
	"      --view VIEW     what the table shows first: ops (default), layers,\n"
	"                      parts or requests (the only view of a batch)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Ops are shown as ticked (the wait at GGML's barrier in the op after it):\n"
	"stats estimates it, which needs the whole trace.\n"
	"Exit status: 0 when quit, or when the trace ended (batch); 1 when it cannot\n"
	"be read, or is damaged; 2 bad command line.\n";

#define OPT_REPLAY 0x101
#define OPT_VIEW 0x102
#define NS_PER_S 1000000000ull
#define MIN_ROWS 13
#define MIN_COLS 60

/* The groupings' views are the window's kinds (0 ops, 1 layers, 2 parts: cli_recent_groups()). */
enum { VIEW_OPS, VIEW_LAYERS, VIEW_PARTS, VIEW_REQUESTS };
static const char *const view_names[] = { "ops", "layers", "parts", "requests", NULL };
enum { SORT_TIME, SORT_COUNT, SORT_NAME, SORTS };
static const char *const sort_names[SORTS] = { "time", "count", "name" };

struct top {
	struct cli *cli;
	const char *path;
	struct cli_follow f;      /* the trace, its reader and pairing engine */
	struct cli_recent *w;
	uint64_t batch_ns, iterations, shown;
	double replay;            /* 0: follow */
	bool batch, paused, quit;
	int view, sort;
	uint64_t t0_trace, t0_wall; /* replay: the first record's time, and when the replay began */
	struct ggmlviz_event next; /* replay: the record read but not due yet */
	bool has_next;
	char note[160];           /* news for the status line: a small terminal */
};

static int option(void *ctx, int c, char *arg)
{
	struct top *tp = ctx;
	uint64_t n;

	switch (c) {
	case 'b':
		if (cli_parse_count("top", "--batch", arg, &n) < 0 || !n || n > UINT64_MAX / NS_PER_S)
			return cli_usage("top", "--batch wants the seconds between tables (1 to %" PRIu64
					 ", whose nanoseconds fit 64 bits): '%s'",
					 (uint64_t)(UINT64_MAX / NS_PER_S), arg);
		tp->batch = true, tp->batch_ns = n * NS_PER_S;
		return 0;
	case 'n':
		return cli_parse_count("top", "--iterations", arg, &tp->iterations);
	case OPT_VIEW:
		return cli_parse_choice("top", "--view", arg, view_names, &tp->view);
	case OPT_REPLAY:
		tp->replay = strtod(arg, NULL);
		if (!(tp->replay > 0) || tp->replay > 1e6)
			return cli_usage("top", "--replay wants a speed above 0 (1: as recorded): '%s'",
					 arg);
		return 0;
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "batch", required_argument, NULL, 'b' }, { "iterations", required_argument, NULL, 'n' },
	{ "replay", required_argument, NULL, OPT_REPLAY }, { "help", no_argument, NULL, 'h' },
	{ "view", required_argument, NULL, OPT_VIEW },
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "top", help, "b:n:", longopts, 1, 1, option };

/* ---- reading what is new ---- */

/* Opens the trace from its start, the window empty; 0, or the reader's code (nothing left open). */
static int open_trace(struct top *tp)
{
	int rc;

	tp->has_next = false;
	if ((rc = cli_follow_open(&tp->f, tp->path)) == 0)
		tp->w->reader = tp->f.r; /* the ops' names, to place them in parts */
	return rc;
}

/* Closes what is open of the trace; the window emptied (its names were the reader's). */
static void close_trace(struct top *tp)
{
	cli_follow_close(&tp->f);
	cli_recent_free(tp->w);
	memset(tp->w, 0, sizeof *tp->w);
}

static void on_timing(void *arg, const struct ggmlviz_timing *t)
{
	cli_recent_timing(arg, t);
}

static void feed(struct top *tp, const struct ggmlviz_event *ev)
{
	cli_recent_event(tp->w, ev);
	cli_follow_feed(&tp->f, ev, on_timing, tp->w);
}

/* Whether ev is due in a replay: its time within what has been played so far. */
static bool due(struct top *tp, const struct ggmlviz_event *ev)
{
	uint64_t played;

	if (tp->replay <= 0 || ev->type == GGMLVIZ_EVENT_META || !ev->timestamp_ns)
		return true;
	if (!tp->t0_trace)
		tp->t0_trace = ev->timestamp_ns, tp->t0_wall = cli_mono_ns();
	played = (uint64_t)((double)(cli_mono_ns() - tp->t0_wall) * tp->replay);
	return ev->timestamp_ns <= tp->t0_trace + played;
}

/* Reads every record there is now (a replay: those due); the file looked at again first. */
static void advance(struct top *tp)
{
	struct ggmlviz_event ev;
	int rc = tp->replay > 0 ? 0 : cli_follow_refresh(&tp->f);

	if (rc != 0) { /* read again from its start, or not readable now: what was drawn goes */
		cli_recent_free(tp->w);
		memset(tp->w, 0, sizeof *tp->w);
		tp->w->reader = tp->f.r; /* the ops' names, to place them in parts */
		tp->has_next = false;
		if (rc < 0)
			return;
	}
	if (tp->has_next) {
		if (!due(tp, &tp->next))
			return;
		feed(tp, &tp->next), tp->has_next = false;
	}
	while (cli_follow_next(&tp->f, &ev) == 1) {
		if (!due(tp, &ev)) {
			tp->next = ev, tp->has_next = true; /* its pointers stay valid: the file stays mapped */
			break;
		}
		feed(tp, &ev);
	}
	if (tp->has_next)
		tp->f.read_rc = 0;
}

/* ---- drawing ---- */

static void state_line(struct top *tp, struct cli_out *o)
{
	const struct cli_recent *w = tp->w;
	const struct cli_follow *f = &tp->f;
	int state = cli_follow_state(f, w->state);

	cli_out_printf(o, "ggmlviz top: %s: ", tp->path);
	if (state == CLI_FOLLOW_ENDED)
		cli_out_str(o, "ended");
	else if (state == CLI_FOLLOW_CRASHED)
		cli_out_printf(o, "crashed (signal %" PRIu64 "): what it recorded was saved", w->crash_signal);
	else if (state == CLI_FOLLOW_DAMAGED)
		cli_out_printf(o, "damaged at byte %" PRIu64 ": %s; not read further", f->read_at,
			       ggmlviz_strerror(f->read_rc));
	else if (tp->replay > 0)
		cli_out_printf(o, "replayed at %gx%s", tp->replay, tp->has_next ? "" : ", to its end");
	else if (state == CLI_FOLLOW_CUT)
		cli_out_str(o, "read from a pipe to its end, no TRACE_END: cut short");
	else if (state == CLI_FOLLOW_WRITING)
		cli_out_str(o, "being written");
	else if (state == CLI_FOLLOW_GONE)
		cli_out_str(o, "not readable now");
	else
		cli_out_printf(o, "not growing for %.0f s, no TRACE_END: idle, or cut short",
			       (double)(cli_mono_ns() - f->grew_ns) / 1e9);
	if (w->now_ns && w->first_ns)
		cli_out_printf(o, "; trace +%.3f s", (double)(w->now_ns - w->first_ns) / 1e9);
	cli_out_printf(o, "%s%s%s%s%s\n", tp->paused ? "; PAUSED" : "", f->note[0] ? "; " : "",
		       f->note, tp->note[0] ? "; " : "", tp->note);
}

/*
 * tokens/s as stats --by phase gives them (a phase's tokens over its
 * steps' time), in the window and since the start; then what the program
 * put through in the window's wall time, which its idle time lowers.
 */
static void summary(struct top *tp, struct cli_out *o)
{
	const struct cli_recent *w = tp->w;
	double pr, pa, gr, ga, span = cli_recent_span_s(w);
	uint64_t ns, tp_prompt = cli_recent_tokens(w, GGMLVIZ_PHASE_PROMPT, &ns),
		     tp_gen = cli_recent_tokens(w, GGMLVIZ_PHASE_GENERATION, &ns);
	char b[2][32];

	cli_recent_rates(w, GGMLVIZ_PHASE_PROMPT, &pr, &pa);
	cli_recent_rates(w, GGMLVIZ_PHASE_GENERATION, &gr, &ga);
	cli_out_printf(o, "tokens/s   prompt %.1f (%.1f all), generation %.1f (%.1f all)", pr, pa, gr,
		       ga);
	if (w->tokens[GGMLVIZ_PHASE_ENCODE]) { /* whisper.cpp's encoder: its audio positions */
		cli_recent_rates(w, GGMLVIZ_PHASE_ENCODE, &pr, &pa);
		cli_out_printf(o, ", encode %.1f (%.1f all)", pr, pa);
	}
	cli_out_printf(o, ": over their steps' time\n");
	cli_out_printf(o, "wall time  prompt %.1f, generation %.1f tokens/s over the last %.1f s\n",
		       span > 0 ? (double)tp_prompt / span : 0, span > 0 ? (double)tp_gen / span : 0, span);
	cli_out_printf(o, "steps      %" PRIu64 " (%" PRIu64 " tokens of prompts, %" PRIu64
		       " generated)\n", w->steps, w->tokens[GGMLVIZ_PHASE_PROMPT],
		       w->tokens[GGMLVIZ_PHASE_GENERATION]);
	if (w->begun || w->n_recent) {
		uint64_t ended = w->ended[0] + w->ended[1] + w->ended[2], p[3];
		cli_out_printf(o, "requests   %" PRIu64 " in flight; %" PRIu64 " done, %" PRIu64
			       " cancelled, %" PRIu64 " failed", w->begun > ended ? w->begun - ended : 0,
			       w->ended[0], w->ended[1], w->ended[2]);
		if (cli_recent_percentiles(w, CLI_REQ_TTFT, p))
			cli_out_printf(o, "; TTFT p50 %s, p99 %s", cli_fmt_ns((double)p[0], b[0]),
				       cli_fmt_ns((double)p[2], b[1]));
		cli_out_char(o, '\n');
	}
	cli_out_printf(o, "memory     %s live (peak %s); dropped events %" PRIu64 "\n\n",
		       cli_fmt_bytes(w->live_bytes, b[0]), cli_fmt_bytes(w->peak_bytes, b[1]),
		       w->dropped);
}

static int sort_kind; /* the view's sort, for qsort */
static const struct top *sorting;

static const char *group_name(const struct top *tp, int kind, uint64_t key,
			      char buf[CLI_OP_NAME_MAX])
{
	return cli_recent_group_name(&tp->cli->names, tp->f.r, kind, key, buf);
}

static int by_sort(const void *a, const void *b)
{
	const struct cli_win_group *x = a, *y = b;
	char n[2][CLI_OP_NAME_MAX];

	switch (sort_kind) {
	case SORT_COUNT:
		return (y->sum.count > x->sum.count) - (y->sum.count < x->sum.count);
	case SORT_NAME:
		return strcmp(group_name(sorting, sorting->view, x->key, n[0]),
			      group_name(sorting, sorting->view, y->key, n[1]));
	default:
		return (y->sum.ns > x->sum.ns) - (y->sum.ns < x->sum.ns);
	}
}

static void group_row(struct top *tp, struct cli_table *t, const struct cli_win_group *g,
		      uint64_t total)
{
	struct cli_group cg = { .flops = g->sum.flops, .flops_ns = g->sum.flops_ns,
				.bytes = g->sum.bytes, .bytes_ns = g->sum.bytes_ns };
	double gbps = cli_group_gbps(&cg), share;
	int bound = cli_roofline(&cg, &tp->w->peak, &share);
	char name[CLI_OP_NAME_MAX], b[32];
	const char *raw = group_name(tp, tp->view, g->key, name);
	char *shown = cli_text_dup(raw, strlen(raw)); /* the trace's bytes never drive the terminal */

	cli_table_add(t, "%s", shown ? shown : "?");
	free(shown);
	cli_table_add(t, "%" PRIu64, g->sum.count);
	cli_table_add(t, "%s", cli_fmt_ns((double)g->sum.ns, b));
	cli_table_add(t, "%.1f%%", total ? 100.0 * (double)g->sum.ns / (double)total : 0);
	cli_table_add(t, gbps < 0 ? "-" : "%.2f", gbps);
	if (tp->w->peak.known) {
		if (bound == CLI_BOUND_UNKNOWN)
			cli_table_add(t, "-");
		else
			cli_table_add(t, "%s %.0f%%", bound == CLI_BOUND_MEMORY ? "memory" : "compute",
				      share * 100);
	}
}

static void groups_table(struct top *tp, struct cli_out *o, size_t rows)
{
	struct cli_win_group g[CLI_WIN_KEYS];
	struct cli_table t;
	size_t n, shown = 0;
	uint64_t total;

	cli_recent_groups(tp->w, tp->view, g, &n, &total);
	sort_kind = tp->sort, sorting = tp;
	qsort(g, n, sizeof *g, by_sort);
	cli_table_init(&t, tp->w->peak.known ? 6 : 5);
	cli_table_add(&t, tp->view == VIEW_PARTS ? "PART" : tp->view ? "LAYER" : "OP");
	cli_table_add(&t, "COUNT");
	cli_table_add(&t, "TIME");
	cli_table_add(&t, "SHARE");
	cli_table_add(&t, "GB/S");
	if (tp->w->peak.known)
		cli_table_add(&t, "BOUND");
	for (size_t i = 0; i < n && shown < rows; i++)
		if (g[i].sum.count)
			group_row(tp, &t, &g[i], total), shown++;
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_printf(o, "(the last %.1f s, by %s; %zu of %zu shown", cli_recent_span_s(tp->w),
		       sort_names[tp->sort], shown, n);
	if (tp->w->keys_over)
		cli_out_printf(o, "; %" PRIu64 " timings of op types or layers past the %d followed",
			       tp->w->keys_over, CLI_WIN_KEYS);
	cli_out_str(o, ")\n");
}

static void requests_table(struct top *tp, struct cli_out *o)
{
	static const char *const words[CLI_REQ_FIGURES] = { "queue", "prompt", "time to first token",
							    "per token", "total" };
	struct cli_table t;
	char b[3][32];

	cli_table_init(&t, 5);
	cli_table_add(&t, "FIGURE"), cli_table_add(&t, "REQUESTS"), cli_table_add(&t, "P50");
	cli_table_add(&t, "P95"), cli_table_add(&t, "P99");
	for (int f = 0; f < CLI_REQ_FIGURES; f++) {
		uint64_t p[3];
		size_t n = cli_recent_percentiles(tp->w, (enum cli_request_figure)f, p);

		cli_table_add(&t, "%s", words[f]);
		cli_table_add(&t, "%zu", n);
		for (int k = 0; k < 3; k++)
			cli_table_add(&t, "%s", n ? cli_fmt_ns((double)p[k], b[k]) : "-");
	}
	cli_table_print(&t, o, "");
	cli_table_free(&t);
	cli_out_printf(o, "(the last %d requests ended at most)\n", CLI_WIN_REQUESTS);
}

static void render(struct top *tp, struct cli_out *o, size_t rows)
{
	state_line(tp, o);
	summary(tp, o);
	if (tp->view == VIEW_REQUESTS)
		requests_table(tp, o);
	else
		groups_table(tp, o, rows);
}

/* ---- batch: a table every N seconds ---- */

static bool finished(const struct top *tp)
{
	return tp->w->state != CLI_WIN_WRITING || cli_follow_damaged(&tp->f) ||
	       (tp->replay > 0 && !tp->has_next && tp->f.read_rc == 0) ||
	       (tp->replay <= 0 && tp->f.copied); /* a pipe: read to its end when opened */
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / NS_PER_S), (long)(ns % NS_PER_S) };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static int run_batch(struct top *tp)
{
	struct cli_out o;

	if (cli_out_open(&o, "top", "-") < 0)
		return CLI_EXIT_DAMAGED;
	for (;;) {
		advance(tp);
		render(tp, &o, 40);
		cli_out_char(&o, '\n');
		if (cli_out_flush(&o) < 0 || ++tp->shown == tp->iterations || finished(tp))
			break; /* each table out as soon as it is made; a closed pipe ends it */
		sleep_ns(tp->batch_ns);
	}
	return cli_out_close(&o, "top");
}

/* ---- interactive ---- */

static void key(struct top *tp, int c)
{
	switch (c) {
	case 'q': case 'Q': tp->quit = true; break;
	case 'p': case ' ': tp->paused = !tp->paused; break;
	case 'o': tp->view = VIEW_OPS; break;
	case 'l': tp->view = VIEW_LAYERS; break;
	case 'm': tp->view = VIEW_PARTS; break;
	case 'r': tp->view = VIEW_REQUESTS; break;
	case 's': tp->sort = (tp->sort + 1) % SORTS; break;
	default: break;
	}
}

static void draw(struct top *tp)
{
	struct cli_out o;
	int rows, cols;

	cli_term_size(&rows, &cols);
	cli_out_memory(&o);
	if (rows < MIN_ROWS || cols < MIN_COLS) {
		cli_out_printf(&o, "the terminal is %dx%d:\ntop needs %dx%d\n(q quits)\n", cols, rows,
			       MIN_COLS, MIN_ROWS);
	} else {
		render(tp, &o, (size_t)rows - 12);
		cli_out_printf(&o, "\nkeys: o ops  l layers  m parts  r requests  s sort (%s)  p pause  q quit",
			       sort_names[tp->sort]);
	}
	cli_term_draw(o.buf, o.len, rows, cols);
	free(o.buf);
}

static int run_screen(struct top *tp)
{
	uint64_t next = 0;

	if (cli_term_enter() < 0)
		return run_batch(tp);
	while (!tp->quit && !cli_term_signal()) {
		uint64_t now = cli_mono_ns();
		int c;

		if (now >= next || cli_term_resized()) {
			if (!tp->paused)
				advance(tp);
			draw(tp);
			next = now + NS_PER_S;
			if (++tp->shown == tp->iterations)
				break;
		}
		c = cli_term_key((int)((next > now ? next - now : 0) / 1000000) + 1);
		if (c >= 0) {
			key(tp, c);
			draw(tp);
		}
	}
	cli_term_leave();
	return CLI_EXIT_OK;
}

int cli_cmd_top(struct cli *cli, int argc, char **argv)
{
	struct top tp = { .cli = cli, .batch_ns = NS_PER_S };
	int first, rc, status = cli_parse(&cmd, argc, argv, &tp, &first);

	if (status >= 0)
		return status;
	tp.path = argv[first];
	if (!(tp.w = calloc(1, sizeof *tp.w)))
		return CLI_EXIT_DAMAGED;
	if ((rc = open_trace(&tp)) < 0) {
		cli_error("%s: cannot read it: %s", tp.path, cli_unreadable_why(tp.path, rc));
		free(tp.w);
		return CLI_EXIT_DAMAGED;
	}
	status = tp.batch || !isatty(STDOUT_FILENO) ? run_batch(&tp) : run_screen(&tp);
	if (status == CLI_EXIT_OK && cli_follow_damaged(&tp.f))
		status = CLI_EXIT_DAMAGED;
	close_trace(&tp);
	free(tp.w);
	return status;
}
