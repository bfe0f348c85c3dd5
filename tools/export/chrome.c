/*
 * Chrome Trace Event JSON (see export.h): export's events as JSON objects,
 * one a line.
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

static const struct cli_esink_ops chrome_ops;

void cli_chrome_begin(struct cli_chrome *c, struct cli_out *o, uint64_t t0, struct cli_anon *anon)
{
	*c = (struct cli_chrome){ .base = { .ops = &chrome_ops, .t0 = t0, .anon = anon }, .o = o };
	cli_out_str(o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
}

/*
 * Starts an event: a separator, then {"ph":PH,"pid":..,"tid":..,"name":NAME
 * (and "ts" when ts != UINT64_MAX). Fields follow, each after a comma.
 */
static void event(struct cli_chrome *c, char ph, uint64_t pid, uint32_t tid,
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
	c->args = false;
	if (ts == UINT64_MAX)
		return;
	c->ts = ts > c->base.t0 ? ts - c->base.t0 : 0;
	cli_out_str(c->o, ",\"ts\":");
	cli_json_us(c->o, c->ts);
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

static void end(struct cli_esink *s)
{
	struct cli_chrome *c = (struct cli_chrome *)s;

	cli_out_str(c->o, c->args ? "}}" : "}");
}

static void slice(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
		  size_t len, const char *cat, uint64_t ts, uint64_t dur, bool encloses)
{
	struct cli_chrome *c = (struct cli_chrome *)s;

	event(c, 'X', pid, track, name, len, ts);
	cli_out_str(c->o, ",\"dur\":");
	cli_json_us(c->o, viewer_dur(c->ts, dur, encloses));
	cli_out_str(c->o, ",\"cat\":");
	cli_json_cstr(c->o, cat);
}

static void instant(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
		    size_t len, uint64_t ts)
{
	struct cli_chrome *c = (struct cli_chrome *)s;

	event(c, 'i', pid, track, name, len, ts);
	cli_out_str(c->o, ",\"s\":\"t\"");
}

/* The next arg's key, after "args":{ or a comma. */
static struct cli_chrome *arg_key(struct cli_esink *s, const char *key)
{
	struct cli_chrome *c = (struct cli_chrome *)s;

	cli_out_str(c->o, c->args ? "," : ",\"args\":{");
	c->args = true;
	cli_json_cstr(c->o, key);
	cli_out_char(c->o, ':');
	return c;
}

static void arg_u64(struct cli_esink *s, const char *key, uint64_t v)
{
	cli_out_u64(arg_key(s, key)->o, v);
}

static void arg_i64(struct cli_esink *s, const char *key, int64_t v)
{
	cli_out_i64(arg_key(s, key)->o, v);
}

static void arg_str(struct cli_esink *s, const char *key, const char *v, size_t len)
{
	cli_json_str(arg_key(s, key)->o, v, len);
}

static void arg_addr(struct cli_esink *s, const char *key, uint64_t v)
{
	struct cli_out *o = arg_key(s, key)->o;

	cli_out_char(o, '"');
	cli_out_hex(o, cli_anon(s->anon, v));
	cli_out_char(o, '"');
}

static void arg_shape(struct cli_esink *s, const char *key, const int64_t ne[4])
{
	struct cli_out *o = arg_key(s, key)->o;

	for (int i = 0; i < 4; i++) {
		cli_out_char(o, i ? ',' : '[');
		cli_out_i64(o, ne[i]);
	}
	cli_out_char(o, ']');
}

/* A counter: integral values as integers, others with their decimals. */
static void counter(struct cli_esink *s, uint64_t pid, const char *name, size_t len,
		    uint64_t ts, const char *key, double v)
{
	struct cli_chrome *c = (struct cli_chrome *)s;

	event(c, 'C', pid, 0, name, len, ts);
	if (cli_esink_integral(v))
		arg_i64(s, key, (int64_t)v);
	else
		cli_json_double(arg_key(s, key)->o, v);
	end(s);
}

/* A process_name or thread_name metadata event. */
static void name_meta(struct cli_chrome *c, const char *what, uint64_t pid, uint32_t tid,
		      const char *name, size_t len)
{
	event(c, 'M', pid, tid, what, strlen(what), UINT64_MAX);
	arg_str(&c->base, "name", name, len);
	end(&c->base);
}

static void name_process(struct cli_esink *s, uint64_t pid, const char *name, size_t len)
{
	name_meta((struct cli_chrome *)s, "process_name", pid, 0, name, len);
}

static void name_track(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
		       size_t len)
{
	name_meta((struct cli_chrome *)s, "thread_name", pid, track, name, len);
}

static const struct cli_esink_ops chrome_ops = {
	name_process, name_track, slice, instant, counter,
	arg_u64, arg_i64, arg_str, arg_addr, arg_shape, end,
};

void cli_chrome_end(struct cli_chrome *c)
{
	cli_out_str(c->o, "\n]");
}
