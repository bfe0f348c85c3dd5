/*
 * The findings as text and JSON (advise.h): each whole (what was seen,
 * the threshold, why it costs, what to try), then the rules that found
 * nothing and those not applied, with why.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "advise/advise.h"

static const char *const levels[] = { "warn", "note" };

/*
 * s wrapped at 80 columns, its first line begun at column col (what was
 * printed of it before), each line after it indented by indent.
 */
static void wrapped(struct cli_out *o, const char *s, size_t col, const char *indent)
{
	size_t start = col;

	while (*s) {
		size_t word = strcspn(s, " ");
		if (col > start && col + 1 + word > 80) {
			cli_out_printf(o, "\n%s", indent);
			col = start = strlen(indent);
		} else if (col > start) {
			cli_out_char(o, ' ');
			col++;
		}
		cli_term_str(o, s, word); /* names from the trace, escaped */
		col += word;
		s += word;
		while (*s == ' ')
			s++;
	}
	cli_out_char(o, '\n');
}

static void field(struct cli_out *o, const char *name, const char *text)
{
	cli_out_printf(o, "  %-10s ", name);
	wrapped(o, text, 13, "             ");
}

void cli_advise_text(struct cli_out *o, const char *path, const struct cli_advice *a)
{
	size_t silent = 0;

	cli_out_printf(o, "%s: %zu finding%s\n", path, a->n, cli_s(a->n));
	for (size_t i = 0; i < a->n; i++) {
		const struct cli_finding *x = &a->f[i];

		cli_out_printf(o, "\n[%s] %s: ", levels[x->level], x->id);
		cli_term_str(o, x->title, strlen(x->title));
		cli_out_char(o, '\n');
		field(o, "seen:", x->seen);
		field(o, "threshold:", x->threshold);
		field(o, "why:", x->why);
		field(o, "try:", x->to_try);
	}
	for (size_t i = 0; i < a->n_rules; i++)
		silent += a->rules[i].applied && !a->rules[i].fired;
	if (silent) {
		char list[CLI_ADVISE_RULES * 32] = "";
		for (size_t i = 0; i < a->n_rules; i++)
			if (a->rules[i].applied && !a->rules[i].fired)
				cli_advise_append(list, sizeof list, "%s%s", list[0] ? ", " : "",
						  a->rules[i].id);
		cli_out_str(o, "\nsilent (applied, found nothing): ");
		wrapped(o, list, 34, "  ");
	}
	for (size_t i = 0, first = 1; i < a->n_rules; i++) {
		if (a->rules[i].applied)
			continue;
		if (first)
			cli_out_str(o, "\nnot applied, and why:\n");
		first = 0;
		cli_out_printf(o, "  %s: ", a->rules[i].id);
		wrapped(o, a->rules[i].why_not, 4 + strlen(a->rules[i].id), "    ");
	}
}

static void json_text(struct cli_out *o, const char *key, const char *text)
{
	cli_out_printf(o, ",\"%s\":", key);
	cli_json_cstr(o, text);
}

void cli_advise_json(struct cli_out *o, const char *path, const struct cli_advice *a)
{
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, path);
	cli_out_char(o, ',');
	cli_advise_json_members(o, a);
	cli_out_char(o, '}');
}

void cli_advise_json_members(struct cli_out *o, const struct cli_advice *a)
{
	cli_out_str(o, "\"findings\":[");
	for (size_t i = 0; i < a->n; i++) {
		const struct cli_finding *x = &a->f[i];

		cli_out_printf(o, "%s{\"id\":\"%s\",\"level\":\"%s\"", i ? "," : "", x->id,
			       levels[x->level]);
		json_text(o, "title", x->title);
		json_text(o, "seen", x->seen);
		json_text(o, "threshold", x->threshold);
		json_text(o, "why", x->why);
		json_text(o, "try", x->to_try);
		cli_out_str(o, ",\"figures\":{");
		for (int k = 0; k < x->n_fig; k++) {
			cli_out_printf(o, "%s\"%s\":", k ? "," : "", x->fig[k].name);
			cli_json_double(o, x->fig[k].value);
		}
		cli_out_str(o, "}}");
	}
	cli_out_str(o, "],\"rules\":[");
	for (size_t i = 0; i < a->n_rules; i++) {
		const struct cli_rule_said *r = &a->rules[i];

		cli_out_printf(o, "%s{\"id\":\"%s\",\"applied\":%s,\"fired\":%s,\"why_not\":",
			       i ? "," : "", r->id, r->applied ? "true" : "false",
			       r->fired ? "true" : "false");
		if (r->applied)
			cli_out_str(o, "null");
		else
			cli_json_cstr(o, r->why_not);
		cli_out_char(o, '}');
	}
	cli_out_str(o, "]");
}

void cli_advise_brief(struct cli_out *o, const char *path, const struct cli_advice *a)
{
	if (!a->n)
		return;
	cli_out_printf(o, "findings (ggmlviz advise %s says each: its figures, why, what to try):\n",
		       path);
	for (size_t i = 0; i < a->n; i++) {
		cli_out_printf(o, "  [%s] %s: ", levels[a->f[i].level], a->f[i].id);
		cli_term_str(o, a->f[i].title, strlen(a->f[i].title));
		cli_out_char(o, '\n');
	}
}
