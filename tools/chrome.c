/*
 * The Chrome Trace Event JSON writer of chrome.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "chrome.h"

void ggmlviz__chrome_begin(struct ggmlviz__chrome *c, struct ggmlviz__out *o, uint64_t t0)
{
	c->o = o;
	c->t0 = t0;
	c->events = 0;
	ggmlviz__out_str(o, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
}

void ggmlviz__chrome_event(struct ggmlviz__chrome *c, char ph, uint64_t pid, uint32_t tid,
			   const char *name, size_t name_len, uint64_t ts)
{
	/* one event per line, so that line tools (grep, head) work on the file */
	if (c->events++)
		ggmlviz__out_write(c->o, ",\n", 2);
	ggmlviz__out_str(c->o, "{\"ph\":\"");
	ggmlviz__out_char(c->o, ph);
	ggmlviz__out_str(c->o, "\",\"pid\":");
	ggmlviz__out_u64(c->o, pid);
	ggmlviz__out_str(c->o, ",\"tid\":");
	ggmlviz__out_u64(c->o, tid);
	ggmlviz__out_str(c->o, ",\"name\":");
	ggmlviz__json_str(c->o, name ? name : "", name ? name_len : 0);
	if (ts == UINT64_MAX)
		return;
	ggmlviz__out_str(c->o, ",\"ts\":");
	ggmlviz__json_us(c->o, ts > c->t0 ? ts - c->t0 : 0);
}

void ggmlviz__chrome_end_event(struct ggmlviz__chrome *c)
{
	ggmlviz__out_char(c->o, '}');
}

void ggmlviz__chrome_dur(struct ggmlviz__chrome *c, uint64_t ns)
{
	ggmlviz__out_str(c->o, ",\"dur\":");
	ggmlviz__json_us(c->o, ns);
}

void ggmlviz__chrome_cat(struct ggmlviz__chrome *c, const char *cat)
{
	ggmlviz__out_str(c->o, ",\"cat\":");
	ggmlviz__json_cstr(c->o, cat);
}

void ggmlviz__chrome_name(struct ggmlviz__chrome *c, const char *what, uint64_t pid, uint32_t tid,
			  const char *name, size_t len)
{
	ggmlviz__chrome_event(c, 'M', pid, tid, what, strlen(what), UINT64_MAX);
	ggmlviz__chrome_args(c);
	ggmlviz__chrome_arg_str(c, "name", name, len, true);
	ggmlviz__chrome_args_end(c);
	ggmlviz__chrome_end_event(c);
}

void ggmlviz__chrome_args(struct ggmlviz__chrome *c)
{
	ggmlviz__out_str(c->o, ",\"args\":{");
}

static void arg_key(struct ggmlviz__chrome *c, const char *key, bool first)
{
	if (!first)
		ggmlviz__out_char(c->o, ',');
	ggmlviz__json_cstr(c->o, key);
	ggmlviz__out_char(c->o, ':');
}

void ggmlviz__chrome_arg_u64(struct ggmlviz__chrome *c, const char *key, uint64_t v, bool first)
{
	arg_key(c, key, first);
	ggmlviz__out_u64(c->o, v);
}

void ggmlviz__chrome_arg_i64(struct ggmlviz__chrome *c, const char *key, int64_t v, bool first)
{
	arg_key(c, key, first);
	ggmlviz__out_i64(c->o, v);
}

void ggmlviz__chrome_arg_str(struct ggmlviz__chrome *c, const char *key, const char *s,
			     size_t len, bool first)
{
	arg_key(c, key, first);
	ggmlviz__json_str(c->o, s, len);
}

void ggmlviz__chrome_arg_cstr(struct ggmlviz__chrome *c, const char *key, const char *s,
			      bool first)
{
	ggmlviz__chrome_arg_str(c, key, s, strlen(s), first);
}

void ggmlviz__chrome_arg_hex(struct ggmlviz__chrome *c, const char *key, uint64_t v, bool first)
{
	arg_key(c, key, first);
	ggmlviz__out_char(c->o, '"');
	ggmlviz__out_hex(c->o, v);
	ggmlviz__out_char(c->o, '"');
}

void ggmlviz__chrome_args_end(struct ggmlviz__chrome *c)
{
	ggmlviz__out_char(c->o, '}');
}

void ggmlviz__chrome_end(struct ggmlviz__chrome *c)
{
	ggmlviz__out_str(c->o, "\n]");
}
