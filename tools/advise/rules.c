/*
 * The findings' frame (advise.h): each rule fires, stays silent, or says
 * why it was not applied, once (advise.c runs them).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"


/* What was said of rule id: found, or added. */
static struct cli_rule_said *said(struct cli_advice *a, const char *id)
{
	for (size_t i = 0; i < a->n_rules; i++)
		if (!strcmp(a->rules[i].id, id))
			return &a->rules[i];
	if (a->n_rules == CLI_ADVISE_RULES)
		return &a->rules[CLI_ADVISE_RULES - 1]; /* never: one entry a rule */
	memset(&a->rules[a->n_rules], 0, sizeof a->rules[0]);
	a->rules[a->n_rules].id = id;
	return &a->rules[a->n_rules++];
}

struct cli_finding *cli_advise_fire(struct cli_advice *a, const char *id, int level)
{
	struct cli_rule_said *r = said(a, id);
	struct cli_finding *x = &a->f[a->n < CLI_ADVISE_RULES ? a->n++ : CLI_ADVISE_RULES - 1];

	r->applied = r->fired = true;
	memset(x, 0, sizeof *x);
	x->id = id;
	x->level = level;
	return x;
}

void cli_advise_figure(struct cli_finding *x, const char *name, double value)
{
	if (x->n_fig < CLI_ADVISE_FIGURES) {
		x->fig[x->n_fig].name = name;
		x->fig[x->n_fig++].value = value;
	}
}

void cli_advise_not(struct cli_advice *a, const char *id, const char *fmt, ...)
{
	struct cli_rule_said *r = said(a, id);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why_not, sizeof r->why_not, fmt, ap);
	va_end(ap);
}

void cli_advise_append(char *buf, size_t size, const char *fmt, ...)
{
	size_t used = strlen(buf);
	va_list ap;

	if (used + 1 >= size)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + used, size - used, fmt, ap); /* cut where it does not fit */
	va_end(ap);
}

void cli_advise_silent(struct cli_advice *a, const char *id)
{
	said(a, id)->applied = true;
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cli_advise_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, by_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
