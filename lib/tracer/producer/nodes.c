/*
 * Timing a graph node by node without changing it: runs of asked nodes,
 * the backend's ticks, and the records they become (see <ggmlviz/nodes.h>).
 *
 * Everything is per thread: a scheduler asks about a split's nodes and the
 * CPU backend ticks after each, on the thread that computes the graph. A
 * run is recorded when it ends: its split at once (SPLIT_BEGIN when the
 * run starts, SPLIT_END when it ends), its ops only if the ticks match the
 * nodes exactly, stamped with the times of the ticks (or measured by the
 * CPU backend's shares, or timed by a GPU): run-records.c writes them.
 *
 * A run that GGML named by its split graph's id (ggmlviz_nodes_graph_id())
 * is described once: the descriptions of the last few such runs are kept
 * (kept-runs.c; the state both read is in run.h), and a later run of the
 * same id and nodes is recorded with them.
 *
 * While GPU kernels are recorded (gpu/), each run gets an id, and the
 * launches between its first ask and its end are tagged with it; a run
 * that got no tick (a GPU backend's) records its computing nodes with
 * method GPU at its end, and the reader ties each to the kernels of the
 * run (ggmlviz(5), KERNEL).
 *
 * With NVTX ranges asked for (nvtx.h), each run is a range from its first
 * ask to its end, and, at level 2, each op whose ticks show it running a
 * range from the tick before it to its own: the first op of a run from its
 * last ask, where the run's nodes are known before they compute (a kept
 * run's: the same graph id and nodes), else it has none. The nodes of a
 * run not kept are described as its ticks come, rather than at its end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/emit.h"
#include "tracer/producer/nvtx.h"
#include "tracer/producer/producer.h"

#include "tracer/producer/run.h"
#include "util/pages.h"

_Thread_local struct run *ggmlviz__tls_run __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t tls_graph_id __attribute__((tls_model("initial-exec"))); /* for the next run */
static _Thread_local const void *tls_split_backend; /* the backend of the split asked about */
/* Describing a run's first node that may take a name (describe_first()): the run, else NULL. */
static _Thread_local struct run *tls_naming;
/* the last node asked: ggmlviz_nodes_asked_before(); read and written at every ask */
static _Thread_local int tls_asked_before __attribute__((tls_model("initial-exec")));
/* the node of the split's last ask through the adapter (ggmlviz_nodes_ask_again()): NULL since
 * ggmlviz_nodes_split() if none, as where another callback than the adapter's is asked */
static _Thread_local const void *tls_asked_node __attribute__((tls_model("initial-exec")));
static void run_free(struct ggmlviz__perthread_item *it)
{
	struct run *r = (struct run *)(void *)it;

	ggmlviz__pages_free(r->nodes);
	ggmlviz__pages_free(r->ticks);
	ggmlviz__pages_free(r->gpu);
	ggmlviz__pages_free(r->cpu);
	ggmlviz__pages_free(r->op_begin);
	ggmlviz__pages_free(r->op_end);
	ggmlviz__pages_free(r->dense_place);
	ggmlviz__pages_free(r->desc);
	for (uint32_t k = 0; k < KEPT_RUNS; k++) {
		ggmlviz__pages_free(r->kept[k].nodes);
		ggmlviz__pages_free(r->kept[k].desc);
		ggmlviz__pages_free(r->kept[k].ticking);
		ggmlviz__pages_free(r->kept[k].nvtx_names);
	}
	ggmlviz__pages_free(r);
}

static struct ggmlviz__perthread runs = { run_free, 0, 0, NULL };

void ggmlviz__nodes_unload(void)
{
	ggmlviz__tls_run = NULL;
	ggmlviz__perthread_unload(&runs);
}

/* The calling thread's run state, made on first use; NULL if out of memory. */
static struct run *run_get(void)
{
	struct run *r = ggmlviz__tls_run;

	if (r)
		return r;
	r = ggmlviz__pages_array(1, sizeof *r);
	if (!r)
		return NULL;
	ggmlviz__perthread_keep(&runs, &r->item); /* freed when the thread ends */
	ggmlviz__tls_run = r;
	return r;
}

/*
 * A run's GPU and measured times are zero but where its run set them, and
 * set ones are cleared as the run ends (run_reset()), while the run's end
 * has just read them: an ask then writes none, where a cleared pair an ask
 * was two stores into lines that a decode's weights pushed out of the
 * caches since. Room made for more nodes: their times zero, as none set.
 */
static uint64_t *times_zeroed(uint64_t *times, uint32_t had, uint32_t cap)
{
	memset(times + 2 * (size_t)had, 0, 2 * (size_t)(cap - had) * sizeof *times);
	return times;
}

/* Room for want nodes (and their ticks and descriptions); 0 or -ENOMEM. */
static int run_reserve(struct run *r, uint32_t want)
{
	uint32_t cap = r->cap ? r->cap : RUN_MIN;
	void *p;

	if (want <= r->cap)
		return 0;
	while (cap < want) {
		if (cap >= UINT32_MAX / 4)
			return -ENOMEM;
		cap *= 2;
	}
	if (!(p = ggmlviz__pages_resize(r->nodes, cap * sizeof *r->nodes)))
		return -ENOMEM;
	r->nodes = p;
	if (!(p = ggmlviz__pages_resize(r->ticks, cap * sizeof *r->ticks)))
		return -ENOMEM;
	r->ticks = p;
	if (!(p = ggmlviz__pages_resize(r->gpu, 2 * cap * sizeof *r->gpu)))
		return -ENOMEM;
	r->gpu = times_zeroed(p, r->cap, cap);
	if (!(p = ggmlviz__pages_resize(r->cpu, 2 * cap * sizeof *r->cpu)))
		return -ENOMEM;
	r->cpu = times_zeroed(p, r->cap, cap);
	if (!(p = ggmlviz__pages_resize(r->op_begin, cap * sizeof *r->op_begin)))
		return -ENOMEM;
	r->op_begin = p;
	if (!(p = ggmlviz__pages_resize(r->op_end, cap * sizeof *r->op_end)))
		return -ENOMEM;
	r->op_end = p;
	if (!(p = ggmlviz__pages_resize(r->dense_place, cap * sizeof *r->dense_place)))
		return -ENOMEM;
	r->dense_place = p;
	if (!(p = ggmlviz__pages_resize(r->desc, cap * sizeof *r->desc)))
		return -ENOMEM;
	r->desc = p;
	r->cap = cap;
	return 0;
}

/* Room for one more node; 0 or -ENOMEM. */
static int run_grow(struct run *r)
{
	return r->n < r->cap ? 0 : run_reserve(r, r->n + 1);
}

static void run_reset(struct run *r)
{
	if (r->gpu_timed) /* none set, none to clear (a CPU run's, every time) */
		memset(r->gpu, 0, 2 * (size_t)r->n * sizeof *r->gpu);
	if (r->cpu_timed)
		memset(r->cpu, 0, 2 * (size_t)r->n * sizeof *r->cpu);
	r->n = r->n_ticks = r->lost = 0;
	r->gpu_timed = r->gpu_hint = 0;
	r->cpu_timed = r->cpu_hint = 0;
	r->dense_n = r->dense_ordered = 0;
	r->copy = NULL;
	r->open = 0;
	r->run_id = 0;
	r->gpu_hooked = 0;
	r->graph_id = r->named_id = 0;
	r->named_kept = 0;
	r->again = NULL;
	r->fast = NULL;
	r->ask_always = 0;
	r->set = NULL;
	r->described = r->described_ticks = 0;
	r->nvtx = 0;
	r->nvtx_next = r->nvtx_match = 0;
	r->nvtx_op = 0;
	r->nvtx_kept = NULL;
}

static struct ggmlviz__split split_of(const struct run *r)
{
	struct ggmlviz__split s = { 0 };

	s.first = ggmlviz__addr(r->n ? r->nodes[0] : NULL);
	s.backend = ggmlviz__addr(r->backend);
	s.n_nodes = r->n + r->lost;
	return s;
}

/* ---- GPU runs: their launches tagged with the run's id (gpu/ hooks) ---- */

/*
 * A new run's id, its launches tagged from now on; 0 when kernels are not
 * recorded now (none, or outside a sampled window: an untraced GPU run).
 */
static uint64_t gpu_run_begin(struct run *r)
{
	int (*begin)(uint64_t) = atomic_load_explicit(&ggmlviz__state.gpu_run_begin,
						      memory_order_acquire);
	uint64_t id;

	if (!begin)
		return 0;
	id = atomic_fetch_add_explicit(&ggmlviz__state.gpu_runs, 1, memory_order_relaxed) + 1;
	r->gpu_hooked = 1;
	return begin(id) ? id : 0;
}

static void gpu_run_end(void)
{
	void (*end)(void) = atomic_load_explicit(&ggmlviz__state.gpu_run_end, memory_order_acquire);

	if (end)
		end();
}

/* ---- recording a run ---- */

/*
 * Whether the run can take a name from its describer: GGML gave it no id,
 * every node was stored, descriptions are given once (GGML_VIZ_DESCRIBE_ONCE)
 * and its nodes are not described as they tick (NVTX level 2, whose ranges
 * need them then) nor timed one by one (sync mode).
 */
static int can_be_named(const struct run *r)
{
	return !r->graph_id && !r->lost && !r->ignore_ticks && !(r->nvtx & GGMLVIZ__NVTX_OPS) &&
	       (ggmlviz__mask_relaxed() & GGMLVIZ__ONCE);
}

/*
 * The run's first node described: where the run can take a name, its
 * describer may give one (ggmlviz_nodes_naming(3) says 1 while it may;
 * ggmlviz_nodes_graph_id(3) gives it), a GGML that gives no id of its own
 * named by the adapter from what its descriptions are made of. The id
 * and split backend the thread set for its next run are kept.
 */
static __attribute__((noinline)) void describe_first(struct run *r, struct ggmlviz_node_desc *d)
{
	uint64_t next = tls_graph_id;
	const void *backend = tls_split_backend;

	tls_naming = can_be_named(r) ? r : NULL;
	r->named_id = 0; /* ggmlviz_nodes_graph_id() gives it, while tls_naming is r */
	r->named_kept = 0;
	r->describe(r->user, r->nodes, r->n, 0, d);
	tls_naming = NULL;
	/* what the thread set for its next run stays, whatever a describer not asked for a name did */
	tls_graph_id = next;
	tls_split_backend = backend;
}

/* Describes node i; returns the ticks it gives (0 or 1). Inlined: each node of each run. */
__attribute__((always_inline)) static inline uint32_t describe_one(struct run *r, uint32_t i)
{
	struct ggmlviz_node_desc *d = &r->desc[i];

	memset(d, 0, sizeof *d);
	d->layer = -1;
	if (GGMLVIZ__UNLIKELY(i == 0))
		describe_first(r, d);
	else
		r->describe(r->user, r->nodes, r->n, i, d);
	return d->ticks != 0;
}

/* Describes the next node not described yet (NVTX level 2, as ticks come). */
static void describe_next(struct run *r)
{
	r->described_ticks += describe_one(r, r->described);
	r->described++;
}

/* Describes every node (those not described yet); returns the ticks they should give. */
static uint32_t describe_all(struct run *r)
{
	uint32_t expected = r->described_ticks;

	for (uint32_t i = r->described; i < r->n; i++)
		expected += describe_one(r, i);
	r->described = r->n;
	r->described_ticks = expected;
	return expected;
}

/* Whether id named one of the thread's last IDS_SEEN named runs. */
static int id_seen(const struct run *r, uint64_t id)
{
	int seen = 0;

	for (uint32_t k = 0; k < IDS_SEEN; k++)
		seen |= r->ids_seen[k] == id;
	return seen;
}

/* The kept run that r, named id, would take (named_again()); NULL if none. Nothing noted. */
static struct kept *kept_for_name(struct run *r, uint64_t id)
{
	struct kept *kp;

	if (!id || !id_seen(r, id))
		return NULL;
	r->graph_id = id;
	kp = ggmlviz__kept_find(r);
	r->graph_id = 0;
	return kp;
}

/*
 * A run GGML gave no id, named by its describer at its first node
 * (described now if it was not yet), takes the name as its graph's id
 * where one of the thread's last IDS_SEEN named runs had it too: a graph
 * whose nodes change at every run (a name never given again) is then
 * never kept, where keeping it would copy its descriptions for nothing.
 */
static void named_again(struct run *r)
{
	if (!r->described)
		describe_next(r);
	if (!r->named_id)
		return;
	if (id_seen(r, r->named_id))
		r->graph_id = r->named_id;
	r->ids_seen[r->ids_at++ % IDS_SEEN] = r->named_id;
}

/* The run's descriptions, kept from an earlier run of its graph or made now; the ticks they give. */
static uint32_t descriptions(struct run *r)
{
	struct kept *kp;
	uint32_t expected;

	if (!r->graph_id && r->n)
		named_again(r);
	r->closed += r->graph_id != 0;
	if ((kp = ggmlviz__kept_reused(r))) {
		r->d = kp->desc;
		r->set = kp;
		return kp->expected;
	}
	if (r->named_kept) /* its describer was told the name is kept, and left node 0 out */
		r->described = r->described_ticks = 0;
	expected = describe_all(r);
	r->d = r->desc;
	r->set = r->graph_id && !r->lost ? ggmlviz__keep(r, expected) : NULL;
	return expected;
}

static void run_close(struct run *r)
{
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	uint32_t got = r->n_ticks, stored = got < r->n ? got : r->n, expected;
	struct ggmlviz__split s = split_of(r);
	uint64_t end;

	if (r->gpu_hooked)
		gpu_run_end(); /* every run's tag is taken off, whatever happens to the run */
	if (GGMLVIZ__UNLIKELY(r->nvtx))
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_RUN); /* and its ops' and layers' */
	if (r->session != session) {
		run_reset(r); /* begun in an earlier session: its records would be out of place */
		return;
	}
	expected = descriptions(r);
	end = stored ? r->ticks[stored - 1] : ggmlviz__stamp();
	s.n_timed = ggmlviz__run_record_ops(r, expected, end);
	s.ticks = r->ignore_ticks ? 0 : got;
	s.expected = expected;
	ggmlviz__run_record_split(r, end, GGMLVIZ_EVENT_SPLIT_END, &s);
	run_reset(r);
}

/*
 * A run of a graph run before asks for the same nodes in the same order:
 * the node AHEAD places on is fetched into the cache now. Every step
 * streams the weights through the caches, so a caller that reads each
 * node's struct as it asks (the GGML adapter) would otherwise wait for
 * memory once per node, one miss after another; a prefetch never faults.
 */
__attribute__((always_inline)) static inline void ahead(const struct run *r, const void *node)
{
	const struct kept *kp = r->again;

	if (kp && r->n + AHEAD < kp->n && kp->nodes[r->n] == node)
		__builtin_prefetch(kp->nodes[r->n + AHEAD]);
}

/* ---- NVTX level 2: the ranges of the ops, as the ticks show them (nvtx.h) ---- */

/*
 * The description of node i while the run computes: its kept run's when
 * its nodes are that run's, else made now (run_close() goes on from there);
 * *name is where its registered name is kept, or NULL.
 */
static const struct ggmlviz_node_desc *live_desc(struct run *r, uint32_t i, void ***name)
{
	struct kept *kp = r->nvtx_kept;

	if (kp) {
		*name = kp->nvtx_names ? &kp->nvtx_names[i] : NULL;
		return &kp->desc[i];
	}
	*name = NULL;
	while (r->described <= i)
		describe_next(r);
	return &r->desc[i];
}

/* The first node from r->nvtx_next that computes, or r->n; its description in *d. */
static uint32_t nvtx_computing(struct run *r, const struct ggmlviz_node_desc **d, void ***name)
{
	uint32_t i = r->nvtx_next;

	for (; i < r->n; i++)
		if ((*d = live_desc(r, i, name))->ticks)
			break;
	return i;
}

/* The range of the next op that computes begins. */
static void nvtx_next_op(struct run *r)
{
	const struct ggmlviz_node_desc *d;
	void **name;
	uint32_t i = nvtx_computing(r, &d, &name);

	r->nvtx_next = i < r->n ? i + 1 : r->n;
	if (i == r->n)
		return;
	ggmlviz__nvtx_node(d, name);
	r->nvtx_op = 1;
}

/*
 * A node was asked: when it completes the nodes of the kept run of the
 * run's graph id, and that run ticked (a GPU's run gives no tick, and its
 * ops no range), the run's first op begins with its compute; a run that
 * goes on past them was not that run: the range begun ends.
 */
static void nvtx_asked(struct run *r, const void *node)
{
	struct kept *kp = r->again;

	if (r->nvtx_op) {
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_OP);
		r->nvtx_op = 0;
		r->nvtx_kept = NULL;
		r->nvtx_next = 0;
	}
	if (!kp || !kp->ticked || r->lost || r->n > kp->n || kp->nodes[r->n - 1] != node)
		return;
	if (++r->nvtx_match == kp->n && r->n == kp->n && kp->describe == r->describe &&
	    kp->user == r->user) {
		r->nvtx_kept = kp;
		nvtx_next_op(r);
	}
}

/*
 * A tick: the op that computed ends, the next begins. The run's first op
 * has no range unless it was begun at the run's last ask.
 */
static void nvtx_tick(struct run *r)
{
	const struct ggmlviz_node_desc *d;
	void **name;

	if (r->lost)
		return;
	if (r->nvtx_op) {
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_OP);
		r->nvtx_op = 0;
	} else if (r->n_ticks == 0) {
		uint32_t first = nvtx_computing(r, &d, &name);
		r->nvtx_next = first < r->n ? first + 1 : r->n; /* it ends now: too late for a range */
	}
	nvtx_next_op(r);
}

/*
 * The kept run whose next asks ggmlviz_nodes_ask_again() may take alone:
 * the open run's split graph, last run in this session by the same
 * describer, whose caller needed no node asked in full; not while the run
 * is ranged (NVTX) or its ticks ignored (sync mode, sampled out), nor
 * without room for all of its nodes, made now so that those asks grow
 * nothing. NULL: every ask goes through ggmlviz_nodes_ask().
 */
static const struct kept *fast_kept(struct run *r)
{
	const struct kept *kp = r->again;

	if (!ggmlviz__kept_is_runs(kp, r) || kp->ask_always || r->nvtx || r->ignore_ticks)
		return NULL;
	return run_reserve(r, kp->n) == 0 ? kp : NULL;
}

/* A new run of backend's nodes, its SPLIT_BEGIN recorded at the first ask. */
static void run_open(struct run *r, const void *backend, ggmlviz_node_describe_fn describe,
		     void *user, uint64_t now, const void *node)
{
	struct ggmlviz__split s = { 0 };

	r->backend = backend;
	r->describe = describe;
	r->user = user;
	r->session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	r->ignore_ticks = ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_AUTO;
	r->staged = ggmlviz__unit_staged();
	r->open = 1;
	/* its ops' ranges where its ticks are taken; the ops of sync mode have theirs (emit.c) */
	r->nvtx = ggmlviz__mask_now() & (GGMLVIZ__NVTX | (r->ignore_ticks ? 0u : GGMLVIZ__NVTX_OPS));
	r->run_id = r->ignore_ticks ? 0 : gpu_run_begin(r);
	r->graph_id = tls_graph_id;
	r->again = ggmlviz__kept_again(r);
	/* a measured run's first op begins with its shares, not at its last ask: no stamp a node */
	r->asks_unstamped = r->again && r->again->measured;
	r->fast = fast_kept(r);
	tls_graph_id = 0;
	s.first = ggmlviz__addr(node);
	s.backend = ggmlviz__addr(backend);
	s.run_id = r->run_id;
	ggmlviz__run_record_split(r, now, GGMLVIZ_EVENT_SPLIT_BEGIN, &s);
	if (GGMLVIZ__UNLIKELY(r->nvtx))
		ggmlviz__nvtx_run(s.backend);
}

/*
 * Whether node, asked as the run's next, is the node at that place of the
 * last run of the same split graph in this session, with the same
 * describer: an adapter looked at it then.
 */
static int asked_before(const struct run *r, const void *node)
{
	const struct kept *kp = r->again;

	return ggmlviz__kept_is_runs(kp, r) && r->n < kp->n && kp->nodes[r->n] == node;
}

/* ---- the public functions ---- */

int ggmlviz_nodes_ask(const void *node, const void *backend, ggmlviz_node_describe_fn describe,
		      void *user)
{
	unsigned want = GGMLVIZ__ACTIVE | GGMLVIZ__OPS;
	struct run *r;
	uint64_t now;

	tls_asked_before = 0;
	if ((ggmlviz__mask_relaxed() & want) != want)
		return 0;
	if (!node || !describe)
		return -EINVAL;
	if (!(r = run_get()))
		return -ENOMEM;
	if (r->open && (r->n_ticks || r->backend != backend || r->describe != describe ||
			r->user != user || tls_graph_id))
		run_close(r); /* a graph's id begins a split */
	if (!r->open) {
		r->last_ask_stamp = now = ggmlviz__stamp();
		run_open(r, backend, describe, user, now, node);
	} else if (!r->asks_unstamped) {
		r->last_ask_stamp = ggmlviz__stamp();
	}
	if (run_grow(r) < 0) {
		r->lost++;
		return -ENOMEM;
	}
	ahead(r, node);
	tls_asked_before = asked_before(r, node);
	r->nodes[r->n++] = node;
	if (GGMLVIZ__UNLIKELY(r->nvtx & GGMLVIZ__NVTX_OPS))
		nvtx_asked(r, node);
	return 0;
}

/*
 * An ask's stamp, for a run whose first op begins at its last ask (a run
 * timed by ticks or a GPU's, not a measured one): out of line, so that a
 * measured run's asks need no register saved.
 */
__attribute__((noinline)) static void stamp_ask(struct run *r)
{
	r->last_ask_stamp = ggmlviz__stamp();
}

/*
 * The kept run whose next asks the open run r takes alone
 * (ggmlviz_nodes_ask_again(), _ask_rest()); NULL: every ask in full.
 */
static inline const struct kept *takes_alone(const struct run *r, const void *user)
{
	const unsigned want = GGMLVIZ__ACTIVE | GGMLVIZ__OPS;

	if (!r || !r->fast || r->ask_always || r->n_ticks || tls_graph_id || r->user != user ||
	    (ggmlviz__mask_relaxed() & want) != want)
		return NULL; /* no repeat, or a new run begins: the full ask closes this one */
	return r->fast;
}

int ggmlviz_nodes_ask_again(const void *node, const void *user)
{
	struct run *r = ggmlviz__tls_run;
	const struct kept *kp = takes_alone(r, user);
	uint32_t i;

	tls_asked_node = node;
	if (!kp || (i = r->n) >= kp->n || kp->nodes[i] != node)
		return 0;
	if (GGMLVIZ__UNLIKELY(!r->asks_unstamped))
		stamp_ask(r);
	r->nodes[i] = node;
	r->n = i + 1;
	tls_asked_before = 1;
	return 1;
}

/*
 * The first place in [from, to) where a and b hold other nodes, or to. A
 * repeat's places all agree (every token of llama.cpp's): one memcmp,
 * which compares many at a time, where a loop of one compare each took
 * 13 instructions an op of the graph's thread.
 */
static uint32_t first_other(const void *const *a, const void *const *b, uint32_t from, uint32_t to)
{
	if (from < to && !memcmp(a + from, b + from, (to - from) * sizeof *a))
		return to;
	while (from < to && a[from] == b[from])
		from++;
	return from;
}

/* Places [from, to) of r asked as its kept run's, in one go: what each ask alone records. */
static void take_alone(struct run *r, uint32_t from, uint32_t to)
{
	const size_t k = to - from;

	memcpy(r->nodes + from, r->fast->nodes + from, k * sizeof *r->nodes);
	if (GGMLVIZ__UNLIKELY(!r->asks_unstamped))
		stamp_ask(r); /* the last ask's: where a run timed by ticks begins */
	r->n = to;
	tls_asked_before = 1;
}

int ggmlviz_nodes_ask_rest(const void *user, const void *const *nodes, int from, int n)
{
	struct run *r = ggmlviz__tls_run;
	const struct kept *kp;
	uint32_t i, end;
	unsigned mask;

	if (!nodes || from < 1 || n < from)
		return -EINVAL;
	mask = ggmlviz__mask_relaxed();
	if (!(mask & GGMLVIZ__OPS)) {
		/* steps alone, or no session (a context traced before keeps the callbacks): no
		 * run keeps the nodes; the splits seen are kept with the thread's runs (made in a
		 * session only: none for a thread that never traced, or a fork's child), and only
		 * where the adapter was asked the node before: another callback sees every ask */
		if (tls_asked_node != nodes[from - 1])
			return from;
		r = mask & GGMLVIZ__ACTIVE ? run_get() : ggmlviz__tls_run;
		return ggmlviz__steps_ask_rest(r ? &r->steps : NULL, tls_graph_id, user, nodes,
					       from, n);
	}
	kp = takes_alone(r, user);
	if (!kp || r->n != (uint32_t)from || r->nodes[from - 1] != nodes[from - 1])
		return from; /* no repeat, or not these nodes' run as asked so far */
	end = (uint32_t)n < kp->n ? (uint32_t)n : kp->n;
	i = first_other(kp->nodes, nodes, (uint32_t)from, end);
	if (i > (uint32_t)from)
		take_alone(r, (uint32_t)from, i);
	return (int)i;
}

void ggmlviz_nodes_ask_always(void)
{
	struct run *r = ggmlviz__tls_run;

	/* a run a stop left open (no flush since) times nothing: the splits' table's then */
	if (r && r->open && (ggmlviz__mask_relaxed() & GGMLVIZ__OPS))
		r->ask_always = 1;
	else
		ggmlviz__steps_ask_always(r ? &r->steps : NULL); /* a session of steps alone */
}

/* A tick's stamp: the end of the share the thread just ended, else the clock now. */
static inline uint64_t tick_stamp(void)
{
	uint64_t t = ggmlviz__tls_node.share_end;

	ggmlviz__tls_node.share_end = 0;
	return t ? t : ggmlviz__stamp();
}

/* Whether a tick can be held (producer.h): a share just ended, and no NVTX range ends with it. */
static inline int tick_held(void)
{
	const unsigned want = GGMLVIZ__SHARES | GGMLVIZ__NVTX;

	return ggmlviz__tls_node.share_end && (ggmlviz__mask_relaxed() & want) == GGMLVIZ__SHARES;
}

/* A tick not held: the run's, at once. */
static __attribute__((noinline)) void tick_now(void)
{
	struct run *r = ggmlviz__tls_run;

	if (ggmlviz__tls_node.held)
		ggmlviz__nodes_held_ticks(0); /* they came first */
	if (!r || !r->open || r->ignore_ticks)
		return;
	if (r->n_ticks < r->n)
		r->ticks[r->n_ticks] = tick_stamp();
	if (GGMLVIZ__UNLIKELY(r->nvtx & GGMLVIZ__NVTX_OPS))
		nvtx_tick(r);
	r->n_ticks++;
}

void ggmlviz_nodes_tick(void)
{
	if (GGMLVIZ__LIKELY(tick_held())) {
		ggmlviz__tls_node.share_end = 0;
		ggmlviz__tls_node.held++;
		return;
	}
	tick_now();
}

/* The held ticks (producer.h): the first held of the ends past floor, from place h->from on. */
static void held_past(uint64_t floor, int graph_end)
{
	struct ggmlviz__tls_node *h = &ggmlviz__tls_node;
	const uint64_t *end = h->end;
	uint32_t held = h->held, i = h->from, got, room;
	struct run *r = ggmlviz__tls_run;
	uint64_t *ticks;

	h->held = h->from = 0;
	if (!held || !end || !r || !r->open || r->ignore_ticks)
		return;
	got = r->n_ticks;
	ticks = r->ticks;
	room = r->n;
	for (; i < GGMLVIZ__SHARE_NODES && held; i++) {
		uint64_t e = end[i];

		if (!(e > floor))
			continue; /* no share of this graph: a no-op, or a fused op's later node */
		if (got < room)
			ticks[got] = e;
		got++;
		held--;
	}
	r->n_ticks = got;
	if (!graph_end)
		h->from = i;
}

void ggmlviz__nodes_held_ticks(int graph_end)
{
	const uint64_t *floor = ggmlviz__tls_node.floor;

	held_past(floor ? *floor : 0, graph_end);
}

void ggmlviz__nodes_held_ticks_at(const uint64_t *end, const uint32_t *at, uint32_t k,
				  uint64_t floor)
{
	struct ggmlviz__tls_node *h = &ggmlviz__tls_node;
	struct run *r = ggmlviz__tls_run;
	uint32_t got;

	if (!k || h->held != k || h->from || end != h->end || !r || !r->open ||
	    r->ignore_ticks || r->n_ticks > r->n || k > r->n - r->n_ticks) {
		held_past(floor, 1); /* not one a share, or past the run's room: as they come */
		return;
	}
	h->held = 0;
	got = r->n_ticks;
	for (uint32_t j = 0; j < k; j++)
		r->ticks[got + j] = end[at[j]];
	r->n_ticks = got + k;
}

int ggmlviz_nodes_gpu_time(const void *node, uint64_t began_ns_ago, uint64_t ended_ns_ago)
{
	struct run *r = ggmlviz__tls_run;
	double rate;
	uint64_t now;

	if (!node || ended_ns_ago > began_ns_ago)
		return -EINVAL;
	if (!r || !r->open || r->ignore_ticks)
		return -ENOENT;
	for (uint32_t k = 0, i = r->gpu_hint; k < r->n; k++, i++) {
		if (i >= r->n)
			i = 0; /* nodes come in the run's order: the search starts past the last */
		if (r->nodes[i] != node)
			continue;
		now = ggmlviz__stamp();
		rate = ggmlviz__clock_stamps_per_ns();
		r->gpu_timed += !r->gpu[2 * i + 1];
		r->gpu[2 * i] = now - (uint64_t)((double)began_ns_ago * rate);
		r->gpu[2 * i + 1] = now - (uint64_t)((double)ended_ns_ago * rate);
		r->gpu_hint = i + 1;
		return 0;
	}
	return -ENOENT;
}

void ggmlviz_nodes_graph_id(uint64_t id)
{
	struct run *r = tls_naming;

	if (r) { /* the name of the run whose first node is being described (describe_first()) */
		r->named_id = id;
		r->named_kept = kept_for_name(r, id) != NULL;
		return;
	}
	tls_graph_id = id;
	tls_split_backend = NULL;
}

int ggmlviz_nodes_naming(void)
{
	const struct run *r = tls_naming;

	return !r ? 0 : r->named_kept ? 2 : 1;
}

void ggmlviz_nodes_split(uint64_t id, const void *backend)
{
	tls_graph_id = id;
	tls_split_backend = backend;
	tls_asked_node = NULL;
	ggmlviz__steps_split();
}

const void *ggmlviz_nodes_split_backend(void)
{
	return tls_split_backend;
}

int ggmlviz_nodes_asked_before(void)
{
	return tls_asked_before;
}

int ggmlviz_nodes_flush(void)
{
	struct run *r = ggmlviz__tls_run;

	tls_split_backend = NULL;
	if (r && r->open)
		run_close(r);
	return 0;
}
