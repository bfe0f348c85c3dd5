/*
 * Op times from the CPU backend's ticks, read as compute: the run's start
 * told apart from the first op, and barrier waits charged to the op that
 * caused them, estimated from each node's floor (ticks.h says how).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "stats/ticks.h"

/* A node, as the same node of the next run will be known. */
struct node_key {
	uint32_t pos;     /* its place among the tick-timed ops of its run */
	uint32_t op_type;
	uint64_t bytes_read, bytes_written, backend, label;
	int64_t ne0, ne1;
};

struct cli_tick_floor {
	struct node_key key;
	uint64_t min_ns;
};

struct rate {
	uint32_t op_type;
	double ns_per_byte;
};

/* A held op: its timing, a copy of its label and type name. */
struct held {
	bool on;
	struct ggmlviz_timing t;
	struct cli_tick_est est;
	char *label, *type;
	size_t label_cap, type_cap;
};

struct cli_tick_thread {
	uint32_t id;
	uint32_t pos;         /* of the last op; UINT32_MAX: no run begun */
	uint64_t floor_ns;    /* the held op's floor; 0 unknown */
	struct held op;       /* the last op, until the next says its wait */
	struct held start;    /* its run's start, until the second op says the workers' */
	uint64_t measured_first; /* the begin of the first measured op since its last run: 0 none */
};

static const struct cli_tick_est none; /* of a timing the estimate did not touch */

static bool tick_op(const struct ggmlviz_timing *t)
{
	return t->kind == GGMLVIZ_TIMING_OP && t->method == GGMLVIZ_OP_METHOD_TICK &&
	       t->op_type != CLI_OP_RUN_START;
}

static struct node_key key_of(const struct ggmlviz_timing *t, uint32_t pos)
{
	return (struct node_key){ pos, t->op_type, t->bytes_read, t->bytes_written,
				  t->backend_ptr,
				  t->label_len ? cli_hash_bytes(t->label, t->label_len, 0) : 0,
				  t->ne[0], t->ne[1] };
}

static uint64_t key_hash(const struct node_key *k)
{
	return cli_hash_bytes(k, sizeof *k, 0x7469636b);
}

static bool floor_eq(const void *item, const void *key)
{
	return !memcmp(&((const struct cli_tick_floor *)item)->key, key, sizeof(struct node_key));
}

static bool rate_eq(const void *item, const void *key)
{
	return ((const struct rate *)item)->op_type == *(const uint32_t *)key;
}

static struct cli_tick_floor *floor_find(const struct cli_ticks *k, const struct node_key *key)
{
	return cli_htab_find(&k->floors, key_hash(key), floor_eq, key);
}

/* The thread's state, if it has one. */
static struct cli_tick_thread *thread_find(struct cli_ticks *k, uint32_t id)
{
	if (k->last < k->n_threads && k->threads[k->last].id == id)
		return &k->threads[k->last]; /* a run's ops come one after another */
	for (uint32_t i = 0; i < k->n_threads; i++)
		if (k->threads[i].id == id) {
			k->last = i;
			return &k->threads[i];
		}
	return NULL;
}

/* The thread's state, made on first sight; NULL past CLI_TICKS_THREADS. */
static struct cli_tick_thread *thread_of(struct cli_ticks *k, uint32_t id)
{
	struct cli_tick_thread *th = thread_find(k, id);

	if (th)
		return th;
	if (k->n_threads == CLI_TICKS_THREADS)
		return NULL;
	if (!k->threads && !(k->threads = calloc(CLI_TICKS_THREADS, sizeof *k->threads)))
		return NULL;
	k->threads[k->n_threads] = (struct cli_tick_thread){ .id = id, .pos = UINT32_MAX };
	return &k->threads[k->n_threads++];
}

/* The place of t in its run on th: 0 for a run's first op, UINT32_MAX when no run began. */
static uint32_t next_pos(struct cli_tick_thread *th, const struct ggmlviz_timing *t)
{
	if (t->node_flags & GGMLVIZ_NODE_RUN_START)
		th->pos = 0;
	else if (th->pos != UINT32_MAX && th->pos < UINT32_MAX - 1)
		th->pos++;
	return th->pos;
}

/* ---- the first pass ---- */

int cli_ticks_learn(struct cli_ticks *k, const struct ggmlviz_timing *t)
{
	struct cli_tick_thread *th;
	struct cli_tick_floor *f;
	struct node_key key;
	uint32_t pos;

	if (!tick_op(t) || !(th = thread_of(k, t->thread_id)))
		return 0;
	if ((pos = next_pos(th, t)) == UINT32_MAX)
		return 0;
	key = key_of(t, pos);
	if ((f = floor_find(k, &key))) {
		f->min_ns = t->duration_ns < f->min_ns ? t->duration_ns : f->min_ns;
		return 0;
	}
	if (k->floors.count >= CLI_TICKS_NODES)
		return 0;
	if (!(f = malloc(sizeof *f)))
		return -ENOMEM;
	*f = (struct cli_tick_floor){ key, t->duration_ns };
	if (cli_htab_add(&k->floors, key_hash(&key), f) < 0) {
		free(f);
		return -ENOMEM;
	}
	return 0;
}

/* Keeps the least ns per byte of f's op, from nodes that do not begin a run. */
static int note_rate(struct cli_ticks *k, const struct cli_tick_floor *f)
{
	uint64_t bytes = f->key.bytes_read + f->key.bytes_written;
	uint64_t h = cli_hash_u64(f->key.op_type);
	double r;
	struct rate *have;

	if (f->key.pos == 0 || !bytes)
		return 0;
	r = (double)f->min_ns / (double)bytes;
	if ((have = cli_htab_find(&k->rates, h, rate_eq, &f->key.op_type))) {
		have->ns_per_byte = r < have->ns_per_byte ? r : have->ns_per_byte;
		return 0;
	}
	if (!(have = malloc(sizeof *have)))
		return -ENOMEM;
	*have = (struct rate){ f->key.op_type, r };
	if (cli_htab_add(&k->rates, h, have) < 0) {
		free(have);
		return -ENOMEM;
	}
	return 0;
}

int cli_ticks_ready(struct cli_ticks *k)
{
	const struct cli_tick_floor *f;
	size_t cursor = 0;

	while ((f = cli_htab_next(&k->floors, &cursor)))
		if (note_rate(k, f) < 0)
			return -ENOMEM;
	for (uint32_t i = 0; i < k->n_threads; i++)
		k->threads[i].pos = UINT32_MAX;
	k->learnt = true;
	return 0;
}

void cli_ticks_learn_file(struct cli_ticks *k, const char *cmd, const char *path)
{
	struct cli_input first;
	struct ggmlviz_timing t;
	int rc = 0;

	if (k->raw || !cli_path_is_file(path) || cli_input_start(&first, cmd, path) < 0)
		return;
	first.progress.stage = "op times, first: ";
	while (rc == 0 && cli_input_timing(&first, &t) == 1)
		rc = cli_ticks_learn(k, &t);
	cli_input_close(&first);
	if (rc < 0 || cli_ticks_ready(k) < 0)
		cli_ticks_free(k); /* as ticked: no memory to learn */
}

/* ---- the second pass ---- */

/* Copies n bytes of s into *buf (grown to *cap); the copy, or NULL. */
static char *keep(char **buf, size_t *cap, const char *s, size_t n)
{
	if (!s || !n)
		return NULL;
	if (n > *cap) {
		char *p = realloc(*buf, n);
		if (!p)
			return NULL;
		*buf = p, *cap = n;
	}
	memcpy(*buf, s, n);
	return *buf;
}

/* Holds t in h, with copies of what it points to; 0 or -ENOMEM. */
static int hold(struct held *h, const struct ggmlviz_timing *t)
{
	h->t = *t;
	h->est = (struct cli_tick_est){ 0, 0, false, 0, 0 };
	h->t.label = keep(&h->label, &h->label_cap, t->label, t->label_len);
	h->t.type_name = keep(&h->type, &h->type_cap, t->type_name, t->type_name_len);
	if ((t->label_len && !h->t.label) || (t->type_name_len && !h->t.type_name))
		return -ENOMEM;
	h->on = true;
	return 0;
}

static int give(struct held *h, cli_timing_sink sink, void *ctx)
{
	if (!h->on)
		return 0;
	h->on = false;
	return sink(ctx, &h->t, &h->est);
}

/* Gives the thread's held run start, then its held op. */
static int give_thread(struct cli_tick_thread *th, cli_timing_sink sink, void *ctx)
{
	int rc = give(&th->start, sink, ctx);

	return rc < 0 ? rc : give(&th->op, sink, ctx);
}

/* Moves w ns from the start of b to the end of a (the wait b held for a). */
static void shift(struct ggmlviz_timing *a, struct ggmlviz_timing *b, uint64_t w)
{
	a->duration_ns += w, a->end_ns += w;
	b->duration_ns -= w, b->begin_ns += w;
}

/* The least ns the first op of a run can have taken: its bytes at its op's best rate; 0 unknown. */
static uint64_t first_work(const struct cli_ticks *k, const struct ggmlviz_timing *t)
{
	uint64_t bytes = t->bytes_read + t->bytes_written;
	const struct rate *r = cli_htab_find(&k->rates, cli_hash_u64(t->op_type), rate_eq,
					     &t->op_type);
	double ns;

	if (!r || !bytes || !t->duration_ns)
		return 0;
	ns = r->ns_per_byte * (double)bytes + 0.5;
	return ns >= (double)t->duration_ns ? t->duration_ns : ns < 1 ? 1 : (uint64_t)ns;
}

/* A run's first op t: its start told apart, as a timing of its own held before it. */
static int begin_run(struct cli_ticks *k, struct cli_tick_thread *th, const struct ggmlviz_timing *t)
{
	uint64_t work = first_work(k, t);
	struct ggmlviz_timing s = *t;

	if (hold(&th->op, t) < 0)
		return -ENOMEM;
	if (!work && t->duration_ns) {
		k->sums.unsplit++;
		work = t->duration_ns;
	}
	th->op.t.begin_ns = t->end_ns - work, th->op.t.duration_ns = work;
	s.op_type = CLI_OP_RUN_START;
	s.end_ns = th->op.t.begin_ns, s.duration_ns = t->duration_ns - work;
	s.value = 0; /* the first barrier's wait, after the first op: in duration_ns, not end_ns */
	s.label = "(run start)", s.label_len = (uint32_t)strlen(s.label);
	s.type_name = NULL, s.type_name_len = 0, s.ptr = 0, s.layer = -1, s.flops = 0;
	s.bytes_read = s.bytes_written = 0, s.op_size = 0, s.src[0] = s.src[1] = 0;
	memset(s.ne, 0, sizeof s.ne);
	return hold(&th->start, &s);
}

/* t, the op after th's held one: the wait it holds for that op, moved back. */
static void take_wait(struct cli_tick_thread *th, struct ggmlviz_timing *t, uint64_t floor_ns)
{
	uint64_t w = t->duration_ns > floor_ns ? t->duration_ns - floor_ns : 0;

	if (!w || !floor_ns)
		return;
	if (th->pos == 1 && th->start.on) { /* the first barrier: the workers starting */
		th->start.t.duration_ns += w, th->start.t.value += w;
		t->begin_ns += w, t->duration_ns -= w;
	} else if (th->floor_ns >= (uint64_t)CLI_TICKS_LEAD * floor_ns) {
		shift(&th->op.t, t, w);
		th->op.est.wait_ns += w;
	}
}

static int feed_op(struct cli_ticks *k, struct cli_tick_thread *th, const struct ggmlviz_timing *t,
		   cli_timing_sink sink, void *ctx)
{
	bool follows = th->op.on && !(t->node_flags & GGMLVIZ_NODE_RUN_START);
	uint32_t pos = next_pos(th, t);
	struct node_key key = key_of(t, pos);
	const struct cli_tick_floor *f = pos == UINT32_MAX ? NULL : floor_find(k, &key);
	struct ggmlviz_timing now = *t;
	int rc;

	if (follows && f)
		take_wait(th, &now, f->min_ns);
	if ((rc = give_thread(th, sink, ctx)) < 0)
		return rc;
	if (!f) {
		k->sums.passed++;
		th->floor_ns = 0;
		return sink(ctx, &now, &none); /* nothing to hold it for: the next op has no floor to compare */
	}
	th->floor_ns = f->min_ns;
	if (pos == 0)
		rc = begin_run(k, th, &now);
	else if ((rc = hold(&th->op, &now)) == 0)
		th->op.est.above_ns = now.duration_ns > f->min_ns ? now.duration_ns - f->min_ns : 0;
	th->op.est.held = true; /* the op as ticked, for the tables that keep both */
	th->op.est.ticked_begin_ns = t->begin_ns, th->op.est.ticked_ns = t->duration_ns;
	return rc;
}

/*
 * A measured run's start (GGMLVIZ_OP_METHOD_MEASURED: nothing estimated):
 * from the run's first ask (its SPLIT's begin, which comes after its ops)
 * to its first op's begin, as an op timing of its own, CLI_OP_RUN_START.
 */
static int measured_start(struct cli_ticks *k, const struct ggmlviz_timing *t,
			  cli_timing_sink sink, void *ctx)
{
	struct cli_tick_thread *th;
	struct ggmlviz_timing s;
	uint64_t first;

	if (t->kind == GGMLVIZ_TIMING_OP && t->method == GGMLVIZ_OP_METHOD_MEASURED &&
	    t->op_type != CLI_OP_RUN_START) {
		if ((th = thread_of(k, t->thread_id)) && !th->measured_first)
			th->measured_first = t->begin_ns;
		return 0;
	}
	if (t->kind != GGMLVIZ_TIMING_SPLIT || !(th = thread_find(k, t->thread_id)) ||
	    !(first = th->measured_first))
		return 0;
	th->measured_first = 0;
	if (first < t->begin_ns || first > t->end_ns)
		return 0;
	s = *t;
	s.kind = GGMLVIZ_TIMING_OP, s.op_type = CLI_OP_RUN_START;
	s.method = GGMLVIZ_OP_METHOD_MEASURED, s.node_flags = 0;
	s.end_ns = first, s.duration_ns = first - t->begin_ns;
	s.label = "(run start)", s.label_len = (uint32_t)strlen(s.label);
	s.ptr = 0, s.layer = -1, s.n_nodes = 0, s.n_timed = 0, s.ticks = 0, s.ticks_expected = 0;
	s.end_offset = s.begin_offset;
	return sink(ctx, &s, &none);
}

int cli_ticks_feed(struct cli_ticks *k, const struct ggmlviz_timing *t, cli_timing_sink sink,
		   void *ctx)
{
	struct cli_tick_thread *th;
	int rc;

	if ((rc = measured_start(k, t, sink, ctx)) < 0)
		return rc;
	if (k->learnt && !tick_op(t) && (th = thread_find(k, t->thread_id)) &&
	    (rc = give_thread(th, sink, ctx)) < 0) /* what ends after a held op comes after it */
		return rc;
	if (!k->learnt || k->raw || !tick_op(t) || !(th = thread_of(k, t->thread_id))) {
		if (k->learnt && !k->raw && tick_op(t))
			k->sums.passed++;
		return sink(ctx, t, &none);
	}
	return feed_op(k, th, t, sink, ctx);
}

int cli_ticks_flush(struct cli_ticks *k, cli_timing_sink sink, void *ctx)
{
	int rc = 0;

	for (uint32_t i = 0; rc == 0 && i < k->n_threads; i++) {
		rc = give_thread(&k->threads[i], sink, ctx);
		k->threads[i].pos = UINT32_MAX;
	}
	return rc;
}

void cli_ticks_free(struct cli_ticks *k)
{
	bool raw;

	if (!k)
		return;
	raw = k->raw;
	cli_htab_free_all(&k->floors);
	cli_htab_free_all(&k->rates);
	for (uint32_t i = 0; i < k->n_threads; i++) {
		free(k->threads[i].op.label), free(k->threads[i].op.type);
		free(k->threads[i].start.label), free(k->threads[i].start.type);
	}
	free(k->threads);
	*k = (struct cli_ticks){ .raw = raw };
}
