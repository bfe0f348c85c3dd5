/*
 * The Chrome Trace Event JSON writer of chrome.h.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

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
	cli_out_str(c->o, ",\"ts\":");
	cli_json_us(c->o, ts > c->t0 ? ts - c->t0 : 0);
}

void cli_chrome_end_event(struct cli_chrome *c)
{
	cli_out_char(c->o, '}');
}

void cli_chrome_dur(struct cli_chrome *c, uint64_t ns)
{
	cli_out_str(c->o, ",\"dur\":");
	cli_json_us(c->o, ns);
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
