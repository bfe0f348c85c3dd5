/*
 * The Chrome Trace Event JSON writer of chrome.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/anon.h"
#include "export/export.h"
#include "output/output.h"

void cli_chrome_begin(struct cli_chrome *c, struct cli_out *o, uint64_t t0, struct cli_anon *anon)
{
	c->o = o;
	c->anon = anon;
	c->t0 = t0;
	c->events = 0;
	cli_out_str(o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
}

void cli_chrome_event(struct cli_chrome *c, char ph, uint64_t pid, uint32_t tid,
			   const char *name, size_t name_len, uint64_t ts)
{
	/* one event per line, so that line tools (grep, head) work on the file */
	if (c->events++)
		cli_out_write(c->o, ",\n", 2);
	cli_out_str(c->o, "{\"ph\":\"");
	cli_out_char(c->o, ph);
	cli_out_str(c->o, "\",\"pid\":");
	cli_out_u64(c->o, pid);
	cli_out_str(c->o, ",\"tid\":");
	cli_out_u64(c->o, tid);
	cli_out_str(c->o, ",\"name\":");
	cli_json_str(c->o, name ? name : "", name ? name_len : 0);
	if (ts == UINT64_MAX)
		return;
	c->ts = ts > c->t0 ? ts - c->t0 : 0;
	cli_out_str(c->o, ",\"ts\":");
	cli_json_us(c->o, c->ts);
}

void cli_chrome_end_event(struct cli_chrome *c)
{
	cli_out_char(c->o, '}');
}

/* Microseconds as a viewer reads what cli_json_us() wrote: the nearest double. */
static double as_read(uint64_t ns)
{
	char b[32];

	snprintf(b, sizeof b, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
	return strtod(b, NULL);
}

/*
 * The duration to write for a slice of ns from c->ts: one whose sum with ts,
 * in a viewer's double arithmetic, is the end's own ts (so that the next
 * slice, which begins there, neither overlaps it nor leaves a gap, and a
 * slice ending with its parent ends with it): ns, else the nearest within
 * 3 ns. Where none is, a slice that encloses others reaches past the end,
 * so that they stay inside it, and one that does not stops short of it, so
 * that it does not overlap the next (520.120 + 145.425 is
 * 665.5450000000001 in doubles, past 665.545). The walk is bounded: past
 * 52 days from the start a double's step is coarser than VIEWER_WALK ns
 * and nothing a viewer shows would move (a fuzzed trace once made it
 * endless); ns is then written as it is.
 */
#define VIEWER_WALK 64

static uint64_t viewer_dur(uint64_t ts, uint64_t ns, bool encloses)
{
	double start, end;
	uint64_t d = ns;

	if (ts > UINT64_MAX - VIEWER_WALK || ns > UINT64_MAX - VIEWER_WALK - ts)
		return ns;
	start = as_read(ts), end = as_read(ts + ns);
	for (uint64_t k = 0; k <= 3; k++) {
		if (start + as_read(ns + k) == end)
			return ns + k;
		if (k <= ns && start + as_read(ns - k) == end)
			return ns - k;
	}
	while (encloses && start + as_read(d) < end && d - ns < VIEWER_WALK)
		d++;
	while (!encloses && d > 0 && start + as_read(d) > end && ns - d < VIEWER_WALK)
		d--;
	return d == ns + VIEWER_WALK || ns - d == VIEWER_WALK ? ns : d;
}

void cli_chrome_dur(struct cli_chrome *c, uint64_t ns, bool encloses)
{
	cli_out_str(c->o, ",\"dur\":");
	cli_json_us(c->o, viewer_dur(c->ts, ns, encloses));
}

void cli_chrome_cat(struct cli_chrome *c, const char *cat)
{
	cli_out_str(c->o, ",\"cat\":");
	cli_json_cstr(c->o, cat);
}

void cli_chrome_name(struct cli_chrome *c, const char *what, uint64_t pid, uint32_t tid,
			  const char *name, size_t len)
{
	cli_chrome_event(c, 'M', pid, tid, what, strlen(what), UINT64_MAX);
	cli_chrome_args(c);
	cli_chrome_arg_str(c, "name", name, len, true);
	cli_chrome_args_end(c);
	cli_chrome_end_event(c);
}

void cli_chrome_args(struct cli_chrome *c)
{
	cli_out_str(c->o, ",\"args\":{");
}

static void arg_key(struct cli_chrome *c, const char *key, bool first)
{
	if (!first)
		cli_out_char(c->o, ',');
	cli_json_cstr(c->o, key);
	cli_out_char(c->o, ':');
}

void cli_chrome_arg_u64(struct cli_chrome *c, const char *key, uint64_t v, bool first)
{
	arg_key(c, key, first);
	cli_out_u64(c->o, v);
}

void cli_chrome_arg_i64(struct cli_chrome *c, const char *key, int64_t v, bool first)
{
	arg_key(c, key, first);
	cli_out_i64(c->o, v);
}

void cli_chrome_arg_str(struct cli_chrome *c, const char *key, const char *s,
			     size_t len, bool first)
{
	arg_key(c, key, first);
	cli_json_str(c->o, s, len);
}

void cli_chrome_arg_cstr(struct cli_chrome *c, const char *key, const char *s,
			      bool first)
{
	cli_chrome_arg_str(c, key, s, strlen(s), first);
}

void cli_chrome_arg_hex(struct cli_chrome *c, const char *key, uint64_t v, bool first)
{
	arg_key(c, key, first);
	cli_out_char(c->o, '"');
	cli_out_hex(c->o, cli_anon(c->anon, v));
	cli_out_char(c->o, '"');
}

void cli_chrome_args_end(struct cli_chrome *c)
{
	cli_out_char(c->o, '}');
}

void cli_chrome_end(struct cli_chrome *c)
{
	cli_out_str(c->o, "\n]");
}
