/*
 * The process's use of the CPUs while its steps ran (usage.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "advise/usage.h"

static void samples_add(struct cli_usage_samples *s, const struct cli_usage_point *p)
{
	int last = s->samples++ > 0;

	/* another session's (its starting thread), or process's: out of order, or counts that fell */
	if (last && (p->tid != s->tid || p->ts < s->ts[1] || p->invol < s->invol[1] ||
		     p->cpu_ns < s->cpu_ns[1] || p->vol < s->vol[1]))
		s->mixed = 1;
	if (s->mixed)
		return;
	s->tid = p->tid;
	s->ts[last] = p->ts, s->invol[last] = p->invol;
	s->cpu_ns[last] = p->cpu_ns, s->vol[last] = p->vol;
	if (!last)
		s->ts[1] = s->ts[0], s->invol[1] = s->invol[0], s->cpu_ns[1] = s->cpu_ns[0],
		s->vol[1] = s->vol[0];
}

/* Its figures, where ev is a META USAGE record. */
static int point_of(const struct ggmlviz_event *ev, struct cli_usage_point *p)
{
	if (ev->type != GGMLVIZ_EVENT_META || ev->data.meta.kind != GGMLVIZ_META_USAGE)
		return 0;
	*p = (struct cli_usage_point){ ev->timestamp_ns, ev->data.meta.key, ev->data.meta.value,
				       ev->data.meta.value2, ev->thread_id };
	return 1;
}

void cli_usage_sample(struct cli_usage_samples *s, const struct ggmlviz_event *ev)
{
	struct cli_usage_point p;

	if (point_of(ev, &p))
		samples_add(s, &p);
}

void cli_usage_record(struct cli_usage *u, const struct ggmlviz_event *ev)
{
	struct cli_usage_point p;

	if (!point_of(ev, &p))
		return;
	samples_add(&u->s, &p);
	if (!u->stepped)
		u->early[u->n_early++ % CLI_USAGE_EARLY] = p;
	else if (p.ts >= u->first_begin)
		samples_add(&u->w, &p);
}

/* The first step weighed: the records kept so far from its begin on start u->w. */
static void first_step(struct cli_usage *u, uint64_t begin_ns)
{
	uint64_t n = u->n_early, i = n > CLI_USAGE_EARLY ? n - CLI_USAGE_EARLY : 0;

	u->stepped = 1, u->first_begin = begin_ns;
	for (; i < n; i++)
		if (u->early[i % CLI_USAGE_EARLY].ts >= begin_ns)
			samples_add(&u->w, &u->early[i % CLI_USAGE_EARLY]);
}

void cli_usage_step(struct cli_usage *u, uint64_t begin_ns, uint64_t end_ns, uint32_t threads)
{
	struct cli_span s = { begin_ns, end_ns > begin_ns ? end_ns : begin_ns, threads };

	if (!u->stepped)
		first_step(u, begin_ns);

	if (u->steps < CLI_USAGE_EDGE)
		u->head[u->steps] = s;
	u->tail[u->steps % CLI_USAGE_EDGE] = s;
	u->steps++;
	u->thread_ns += (s.end - s.begin) * threads;
}

/* What of span s lies between u->w's first record and its last. */
static uint64_t inside(const struct cli_usage *u, struct cli_span s)
{
	uint64_t b = s.begin > u->w.ts[0] ? s.begin : u->w.ts[0];
	uint64_t e = s.end < u->w.ts[1] ? s.end : u->w.ts[1];

	return e > b ? e - b : 0;
}

/*
 * The steps of the head and of the tail are clipped to the samples' span
 * (a step in both counted once); those between them are inside it whole
 * (advise weighs only traces that end with the stop's USAGE record).
 */
int cli_usage_middle_inside(const struct cli_usage *u)
{
	uint64_t n = u->steps;

	if (n <= 2 * CLI_USAGE_EDGE)
		return 1;
	return u->head[CLI_USAGE_EDGE - 1].end >= u->w.ts[0] &&
	       u->tail[(n - CLI_USAGE_EDGE) % CLI_USAGE_EDGE].begin <= u->w.ts[1];
}

uint64_t cli_usage_thread_ns(const struct cli_usage *u)
{
	uint64_t n = u->steps, ns = u->thread_ns;

	if (u->w.samples < 2 || u->w.ts[1] <= u->w.ts[0] || !cli_usage_middle_inside(u))
		return 0;
	for (uint64_t i = 0; i < n; i++) {
		const struct cli_span *s;
		if (i == CLI_USAGE_EDGE && n > 2 * CLI_USAGE_EDGE)
			i = n - CLI_USAGE_EDGE; /* the middle: inside whole */
		s = i < CLI_USAGE_EDGE ? &u->head[i] : &u->tail[i % CLI_USAGE_EDGE];
		ns = ns - (s->end - s->begin) * s->threads + inside(u, *s) * s->threads;
	}
	return ns;
}
