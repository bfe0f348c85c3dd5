/*
 * Which requests advise --request or --slow judged, their figures and the
 * run's normal, before the window's findings (slow.h); as text and JSON.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "advise/slow.h"

#define LISTED 10 /* requests named by id in the text, at most */

/* A figure in words, or "-" where the requests have none. */
static const char *figure(size_t n, uint64_t ns, char buf[32])
{
	return n ? cli_fmt_ns((double)ns, buf) : "-";
}

/* The medians of the judged requests (chosen) or the normal ones: time to first token, per token. */
static void medians(struct cli_out *o, const struct cli_slow *w, bool chosen)
{
	uint64_t ttft, per;
	size_t nt = cli_slow_median(w, chosen, CLI_REQ_TTFT, &ttft);
	size_t np = cli_slow_median(w, chosen, CLI_REQ_PER_TOKEN, &per);
	char b[2][32];

	cli_out_printf(o, "time to first token %s, %s a generated token", figure(nt, ttft, b[0]),
		       figure(np, per, b[1]));
}

static void judged_ids(struct cli_out *o, const struct cli_slow *w)
{
	for (size_t k = 0; k < w->n_chosen && k < LISTED; k++)
		cli_out_printf(o, "%s%" PRIu64, k ? ", " : "", w->req.r[w->chosen[k]].id);
	if (w->n_chosen > LISTED)
		cli_out_printf(o, " and %zu more", w->n_chosen - LISTED);
}

/* --slow found none: said, with the run's medians. */
static void none(struct cli_out *o, const char *path, const struct cli_slow *w)
{
	cli_out_printf(o, "%s: no slow request: none of its %zu took over twice the run's median"
		       " time to first token or per generated token (", path, w->req.n);
	medians(o, w, false);
	cli_out_str(o, "; 5 requests or more with a figure make its median)\n");
}

void cli_slow_text(struct cli_out *o, const char *path, const struct cli_slow *w,
		     const struct cli_slow_ask *ask)
{
	char b[3][32];

	if (!w->n_chosen) {
		none(o, path, w);
		return;
	}
	if (ask->slow)
		cli_out_printf(o, "%s: slow requests: %zu of %zu (time to first token or per generated"
			       " token over twice the run's median)\n  judged: ", path, w->n_chosen,
			       w->req.n);
	else
		cli_out_printf(o, "%s: request ", path);
	judged_ids(o, w);
	cli_out_str(o, w->n_chosen == 1 ? "\n  its figures: " : "\n  their medians: ");
	medians(o, w, true);
	cli_out_printf(o, "\n  the run's normal (%zu request%s wholly outside the window): ",
		       w->n_normal, cli_s(w->n_normal));
	medians(o, w, false);
	cli_out_printf(o, "\n  the window: %zu stretch%s, %s of the trace's %s, from +%s\n\n",
		       w->n_spans, w->n_spans == 1 ? "" : "es", cli_fmt_ns((double)w->window_ns, b[0]),
		       cli_fmt_ns((double)(w->last_ns - w->first_ns), b[1]),
		       cli_fmt_ns((double)(w->spans[0].begin > w->first_ns
					   ? w->spans[0].begin - w->first_ns : 0), b[2]));
}

/* ns, or null where no request had the figure (n 0). */
static void json_ns(struct cli_out *o, size_t n, uint64_t ns)
{
	if (n)
		cli_out_printf(o, "%" PRIu64, ns);
	else
		cli_out_str(o, "null");
}

static void request_json(struct cli_out *o, const struct cli_request *r)
{
	cli_out_printf(o, "{\"request\":%" PRIu64 ",\"slot\":%d,\"status\":", r->id, r->slot);
	cli_json_cstr(o, cli_request_status(r->status));
	for (int f = 0; f < CLI_REQ_FIGURES; f++) {
		uint64_t ns;

		bool has = cli_request_figure(r, (enum cli_request_figure)f, &ns) == 0;

		cli_out_printf(o, ",\"%s_ns\":", cli_request_figure_names[f]);
		json_ns(o, has, has ? ns : 0);
	}
	cli_out_char(o, '}');
}

void cli_slow_json(struct cli_out *o, const struct cli_slow *w)
{
	uint64_t ttft, per;
	size_t nt = cli_slow_median(w, false, CLI_REQ_TTFT, &ttft);
	size_t np = cli_slow_median(w, false, CLI_REQ_PER_TOKEN, &per);

	cli_out_str(o, "\"judged\":[");
	for (size_t k = 0; k < w->n_chosen; k++)
		cli_out_str(o, k ? "," : ""), request_json(o, &w->req.r[w->chosen[k]]);
	cli_out_printf(o, "],\"requests\":%zu,\"normal\":{\"requests\":%zu,\"ttft_ns\":", w->req.n,
		       w->n_normal);
	json_ns(o, nt, ttft);
	cli_out_str(o, ",\"per_token_ns\":");
	json_ns(o, np, per);
	cli_out_printf(o, "},\"window\":{\"stretches\":%zu,\"ns\":%" PRIu64 ",\"trace_ns\":%" PRIu64
		       "},", w->n_spans, w->window_ns, w->last_ns - w->first_ns);
}
