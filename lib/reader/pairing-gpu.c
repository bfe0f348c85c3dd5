/*
 * GPU runs in the pairing engine (see pairing-gpu.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "reader/pairing-gpu.h"
#include "reader/tie.h"

#define MAX_RUNS 256        /* runs waiting at once; past it the oldest is tied as it is */
#define OTHERS_WAIT_NS 3000000000ull /* another thread's run waits for kernels this far past its end */
#define MAX_NODES 16384     /* nodes held per run; past it, counted over the limit */
#define MAX_KERNELS 65536   /* kernels kept per run; likewise */
#define PDL_STREAMS 16      /* streams of one run followed for kernels that overlap (below) */
#define MAX_EARLY 65536     /* kernels held for a run not begun yet; past it, untied */

struct ggmlviz__ties_kernel {
	uint64_t begin_ns, end_ns, offset;
	const char *name;
	uint32_t name_len;
	uint32_t track, stream, device, correlation;
};

/* A kernel read before the run it names began. */
struct ggmlviz__ties_early {
	struct ggmlviz__ties_kernel k;
	uint64_t run_id;
};

struct ggmlviz__ties_run {
	struct ggmlviz_timing split;  /* its SPLIT_BEGIN's: id, thread, step, backend */
	int closed;                   /* its SPLIT_END was read */
	uint64_t end_ns;              /* and when it ended */
	int has_device;
	uint32_t device;
	struct ggmlviz_timing *nodes; /* its ops, held, in graph order */
	uint32_t n_nodes, nodes_cap;
	struct ggmlviz__ties_kernel *kernels;
	uint32_t n_kernels, kernels_cap;
};

/* Room for one more element in *p (n used of *cap); 0 or -ENOMEM. */
static int grow(void **p, uint32_t n, uint32_t *cap, size_t size)
{
	uint32_t want = *cap ? *cap * 2 : 16;
	void *q;

	if (n < *cap)
		return 0;
	if (!(q = realloc(*p, want * size)))
		return -ENOMEM;
	*p = q;
	*cap = want;
	return 0;
}

/* ---- the queue of completed timings ---- */

static void enqueue(struct ggmlviz__ties *g, const struct ggmlviz_timing *t)
{
	if (g->q_len == 0)
		g->q_head = 0;
	if (g->q_head > 0 && g->q_head + g->q_len == g->q_cap) {
		memmove(g->queue, g->queue + g->q_head, g->q_len * sizeof *g->queue);
		g->q_head = 0;
	}
	if (grow((void **)&g->queue, g->q_head + g->q_len, &g->q_cap, sizeof *g->queue) < 0) {
		g->error = -ENOMEM;
		return;
	}
	g->queue[g->q_head + g->q_len++] = *t;
}

int ggmlviz__ties_take(struct ggmlviz__ties *g, struct ggmlviz_timing *t)
{
	if (g->q_len == 0)
		return 0;
	*t = g->queue[g->q_head++];
	g->q_len--;
	return 1;
}

/* ---- op names, for the tying ---- */

void ggmlviz__ties_op_name(struct ggmlviz__ties *g, const struct ggmlviz_event *ev)
{
	bool created;
	uint64_t *slot;

	if (ev->data.meta.kind != GGMLVIZ_META_OP_NAME || !ev->label)
		return;
	if (g->n_names >= GGMLVIZ_READER_MAX_NAMES && !ggmlviz__map_find(&g->op_names, ev->data.meta.key))
		return; /* as many as a reader keeps: the rest tie nothing (hostile input) */
	slot = ggmlviz__map_insert(&g->op_names, ev->data.meta.key, &created);
	if (!slot)
		return;
	if (created) {
		if (grow((void **)&g->names, g->n_names, &g->names_cap, sizeof *g->names) < 0) {
			ggmlviz__map_remove(&g->op_names, ev->data.meta.key);
			return;
		}
		*slot = g->n_names++;
	}
	g->names[*slot].s = ev->label;
	g->names[*slot].len = ev->label_len;
}

static struct ggmlviz__tie_node tie_node(const struct ggmlviz__ties *g, uint32_t op_type)
{
	uint64_t i;

	if (!ggmlviz__map_get(&g->op_names, op_type, &i))
		return (struct ggmlviz__tie_node){ NULL, 0 };
	return (struct ggmlviz__tie_node){ g->names[i].s, g->names[i].len };
}

/* ---- tying a run, and queueing its timings ---- */

static int by_launch(const void *a, const void *b)
{
	const struct ggmlviz__ties_kernel *x = a, *y = b;

	if (x->correlation != y->correlation)
		return x->correlation < y->correlation ? -1 : 1;
	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* A kernel's timing, tied to node (NULL: untied, with the run's step and backend). */
static void queue_kernel(struct ggmlviz__ties *g, const struct ggmlviz__ties_run *r,
			 const struct ggmlviz__ties_kernel *k, const struct ggmlviz_timing *node)
{
	struct ggmlviz_timing t = node ? *node : r->split;

	t.kind = GGMLVIZ_TIMING_KERNEL;
	t.ptr = node ? node->ptr : 0;
	t.op_type = node ? node->op_type : 0;
	t.layer = node ? node->layer : -1;
	t.thread_id = k->track;
	t.begin_ns = k->begin_ns;
	t.end_ns = k->end_ns;
	t.duration_ns = t.gpu_ns = k->end_ns - k->begin_ns;
	t.label = k->name;
	t.label_len = k->name_len;
	t.begin_offset = t.end_offset = k->offset;
	t.stream = k->stream;
	t.n_kernels = 0;
	t.depth = node ? 1 : 0; /* inside its op on the GPU track */
	t.run_id = r->split.run_id;
	enqueue(g, &t);
}

/*
 * Node j takes its kernels' times: the first start to the last end, and
 * their sum; and their GPU track, where its time was spent (it may end
 * after its step, which only launched it), at depth 0 there.
 */
static void give_times(struct ggmlviz_timing *node, const struct ggmlviz__ties_kernel *k)
{
	if (node->n_kernels == 0)
		node->thread_id = k->track, node->depth = 0; /* nothing of the host's encloses it there */
	if (node->n_kernels == 0 || k->begin_ns < node->begin_ns)
		node->begin_ns = k->begin_ns;
	if (node->n_kernels == 0 || k->end_ns > node->end_ns)
		node->end_ns = k->end_ns;
	node->gpu_ns += k->end_ns - k->begin_ns;
	node->n_kernels++;
	node->duration_ns = node->end_ns - node->begin_ns;
}

/*
 * Nodes that got no kernel: fused into the nearest node before them that
 * got one, when a later node got one too (the backend launched past them);
 * else untimed (the run's kernels stopped short, or never came).
 */
static void fuse(struct ggmlviz__ties_run *r, struct ggmlviz_pairing_counts *c)
{
	uint32_t last = 0, owner = UINT32_MAX;

	for (uint32_t j = 0; j < r->n_nodes; j++)
		last = r->nodes[j].n_kernels ? j + 1 : last;
	for (uint32_t j = 0; j < r->n_nodes; j++) {
		struct ggmlviz_timing *t = &r->nodes[j];

		if (t->n_kernels) {
			owner = j;
		} else if (j < last && owner != UINT32_MAX) {
			struct ggmlviz_timing *o = &r->nodes[owner];
			o->node_flags |= GGMLVIZ_NODE_FUSED;
			if (!(o->op_type & GGMLVIZ_OP_TYPE_FUSED))
				o->op_type = GGMLVIZ_OP_TYPE_FUSE(o->op_type, t->op_type);
		} else {
			c->gpu_nodes_untimed++;
		}
	}
}

/*
 * A kernel that began before the kernel launched before it on its stream
 * ended is timed from that end. ggml-cuda launches with programmatic
 * dependent launch on Hopper and later (GGML_CUDA_USE_PDL): the next
 * kernel starts while the one before finishes and waits inside for it, so
 * back to back in a CUDA graph most kernels overlap the one before (an
 * H200: 2516 of 3790 in 20 tokens, 21% of their summed time). Timed from
 * CUPTI's starts, an op would hold time its predecessor's kernel had the
 * GPU for, and the ops would add up to more than the GPU's busy time; the
 * KERNEL records keep CUPTI's starts. Kernels are in launch order here.
 */
static void after_the_one_before(struct ggmlviz__ties_run *r)
{
	struct {
		uint32_t stream, device;
		uint64_t end;
	} last[PDL_STREAMS];
	uint32_t n = 0;

	for (uint32_t k = 0; k < r->n_kernels; k++) {
		struct ggmlviz__ties_kernel *x = &r->kernels[k];
		uint32_t s = 0;

		while (s < n && (last[s].stream != x->stream || last[s].device != x->device))
			s++;
		if (s == n && n == PDL_STREAMS)
			continue; /* more streams than any backend uses in one run: as CUPTI says */
		if (s == n) {
			last[n].stream = x->stream, last[n].device = x->device, last[n].end = 0;
			n++;
		}
		if (x->begin_ns < last[s].end)
			x->begin_ns = last[s].end < x->end_ns ? last[s].end : x->end_ns;
		if (x->end_ns > last[s].end)
			last[s].end = x->end_ns;
	}
}

static void tie_run(struct ggmlviz__ties *g, struct ggmlviz__ties_run *r,
		    struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz__tie_node *nodes = calloc(r->n_nodes + 1u, sizeof *nodes);
	struct ggmlviz__tie_kernel *kernels = calloc(r->n_kernels + 1u, sizeof *kernels);
	uint32_t *owner = calloc(r->n_kernels + 1u, sizeof *owner);

	if (!nodes || !kernels || !owner) {
		g->error = -ENOMEM;
		c->gpu_nodes_untimed += r->n_nodes;
		c->kernels_untied += r->n_kernels;
		free(nodes), free(kernels), free(owner);
		return;
	}
	if (r->n_kernels) /* a run none of whose kernels came has no array */
		qsort(r->kernels, r->n_kernels, sizeof *r->kernels, by_launch);
	after_the_one_before(r);
	for (uint32_t j = 0; j < r->n_nodes; j++)
		nodes[j] = tie_node(g, r->nodes[j].op_type);
	for (uint32_t k = 0; k < r->n_kernels; k++)
		kernels[k] = (struct ggmlviz__tie_kernel){ r->kernels[k].name, r->kernels[k].name_len };
	ggmlviz__tie(nodes, r->n_nodes, kernels, r->n_kernels, owner);
	for (uint32_t k = 0; k < r->n_kernels; k++)
		if (owner[k] != GGMLVIZ__TIE_NONE)
			give_times(&r->nodes[owner[k]], &r->kernels[k]);
	fuse(r, c);
	for (uint32_t j = 0; j < r->n_nodes; j++) {
		if (!r->nodes[j].n_kernels)
			continue;
		enqueue(g, &r->nodes[j]);
		for (uint32_t k = 0; k < r->n_kernels; k++)
			if (owner[k] == j)
				queue_kernel(g, r, &r->kernels[k], &r->nodes[j]);
	}
	for (uint32_t k = 0; k < r->n_kernels; k++)
		if (owner[k] == GGMLVIZ__TIE_NONE) {
			c->kernels_untied++;
			queue_kernel(g, r, &r->kernels[k], NULL);
		}
	free(nodes), free(kernels), free(owner);
}

/* Ties run i, queues its timings, and forgets it. */
static void complete(struct ggmlviz__ties *g, uint32_t i, struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz__ties_run *r = &g->runs[i];

	tie_run(g, r, c);
	free(r->nodes);
	free(r->kernels);
	memmove(r, r + 1, (g->n_runs - i - 1) * sizeof *r);
	g->n_runs--;
}

/* ---- events ---- */

static struct ggmlviz__ties_run *run_of(struct ggmlviz__ties *g, uint64_t id)
{
	for (uint32_t i = g->n_runs; i-- > 0;)
		if (g->runs[i].split.run_id == id)
			return &g->runs[i];
	return NULL;
}

/* The thread's open run (the newest not ended), or NULL. */
static struct ggmlviz__ties_run *open_run(struct ggmlviz__ties *g, uint32_t tid)
{
	for (uint32_t i = g->n_runs; i-- > 0;)
		if (!g->runs[i].closed && g->runs[i].split.thread_id == tid)
			return &g->runs[i];
	return NULL;
}

static void complete_before(struct ggmlviz__ties *g, const struct ggmlviz__ties_run *run,
			    const struct ggmlviz__ties_kernel *k, struct ggmlviz_pairing_counts *c);
static void add_kernel(struct ggmlviz__ties_run *r, const struct ggmlviz__ties_kernel *k,
		       struct ggmlviz_pairing_counts *c);

/* The kernels held for run r, which just began: its own now, in the order they came. */
static void take_early(struct ggmlviz__ties *g, struct ggmlviz__ties_run *r,
		       struct ggmlviz_pairing_counts *c)
{
	uint32_t kept = 0, first = UINT32_MAX;

	for (uint32_t i = 0; i < g->n_early; i++) {
		if (g->early[i].run_id != r->split.run_id) {
			g->early[kept++] = g->early[i];
			continue;
		}
		add_kernel(r, &g->early[i].k, c);
		first = first == UINT32_MAX ? i : first;
	}
	g->n_early = kept;
	if (first != UINT32_MAX) /* the runs before it are complete, as at a kernel of it */
		complete_before(g, r, &r->kernels[0], c);
}

void ggmlviz__ties_run_begin(struct ggmlviz__ties *g, const struct ggmlviz_timing *split,
			    struct ggmlviz_pairing_counts *c)
{
	if (g->n_runs == MAX_RUNS)
		complete(g, 0, c); /* so many waiting: the oldest goes as it is */
	if (grow((void **)&g->runs, g->n_runs, &g->runs_cap, sizeof *g->runs) < 0) {
		g->error = -ENOMEM;
		return;
	}
	memset(&g->runs[g->n_runs], 0, sizeof *g->runs);
	g->runs[g->n_runs++].split = *split;
	if (split->run_id > g->last_run)
		g->last_run = split->run_id;
	if (g->n_early)
		take_early(g, &g->runs[g->n_runs - 1], c);
}

int ggmlviz__ties_node(struct ggmlviz__ties *g, const struct ggmlviz_timing *t,
		      struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz__ties_run *r = open_run(g, t->thread_id);

	if (!r)
		return 0;
	if (r->n_nodes == MAX_NODES ||
	    grow((void **)&r->nodes, r->n_nodes, &r->nodes_cap, sizeof *r->nodes) < 0) {
		c->over_limit++;
		return 1;
	}
	r->nodes[r->n_nodes] = *t;
	r->nodes[r->n_nodes].run_id = r->split.run_id;
	r->nodes[r->n_nodes].n_kernels = 0;
	r->nodes[r->n_nodes].gpu_ns = 0;
	r->n_nodes++;
	return 1;
}

void ggmlviz__ties_run_end(struct ggmlviz__ties *g, const struct ggmlviz_timing *split)
{
	struct ggmlviz__ties_run *r = run_of(g, split->run_id);

	if (r) {
		r->closed = 1;
		r->end_ns = split->end_ns;
	}
}

/*
 * The runs a kernel of run `run` completes. One thread's launches reach
 * the trace in their order, so its earlier runs on that device (or with
 * no kernel yet) have all theirs. Another thread's do not: its buffers
 * are CUPTI's per-thread buffers, delivered at other times, so its runs
 * wait until the GPU's time is 3 s past their end.
 */
static void complete_before(struct ggmlviz__ties *g, const struct ggmlviz__ties_run *run,
			    const struct ggmlviz__ties_kernel *k, struct ggmlviz_pairing_counts *c)
{
	uint64_t id = run->split.run_id;
	uint32_t tid = run->split.thread_id;

	for (uint32_t i = 0; i < g->n_runs;) {
		struct ggmlviz__ties_run *r = &g->runs[i];
		int mine = r->split.thread_id == tid;
		int done = r->closed && r->split.run_id < id &&
			   (mine ? !r->has_device || r->device == k->device
				 : k->begin_ns > r->end_ns + OTHERS_WAIT_NS);

		if (done)
			complete(g, i, c);
		else
			i++;
	}
}

static struct ggmlviz__ties_kernel kernel_of(const struct ggmlviz_event *ev)
{
	struct ggmlviz__ties_kernel k = {
		ev->timestamp_ns, ev->timestamp_ns + ev->data.kernel.duration_ns, ev->offset,
		ev->label, ev->label ? ev->label_len : 0, ev->thread_id, ev->data.kernel.stream,
		ev->data.kernel.device, ev->data.kernel.correlation
	};

	return k;
}

/* A kernel of no run that will come: queued untied, with what is known of it. */
static void untied(struct ggmlviz__ties *g, uint64_t run_id, const struct ggmlviz__ties_kernel *k,
		   struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz__ties_run none = { 0 };

	none.split.run_id = run_id;
	none.split.layer = -1;
	c->kernels_untied++; /* launched outside a traced run, or after its run was tied */
	queue_kernel(g, &none, k, NULL);
}

/* k, of run r, kept for it. */
static void add_kernel(struct ggmlviz__ties_run *r, const struct ggmlviz__ties_kernel *k,
		       struct ggmlviz_pairing_counts *c)
{
	if (r->n_kernels == MAX_KERNELS ||
	    grow((void **)&r->kernels, r->n_kernels, &r->kernels_cap, sizeof *r->kernels) < 0) {
		c->over_limit++;
		return;
	}
	r->kernels[r->n_kernels++] = *k;
	r->has_device = 1;
	r->device = k->device;
}

/* A kernel of a run not begun yet: held for it; 0, or -1 when none can be held. */
static int hold_early(struct ggmlviz__ties *g, uint64_t run_id, const struct ggmlviz__ties_kernel *k)
{
	if (g->n_early == MAX_EARLY ||
	    grow((void **)&g->early, g->n_early, &g->early_cap, sizeof *g->early) < 0)
		return -1;
	g->early[g->n_early].k = *k;
	g->early[g->n_early++].run_id = run_id;
	return 0;
}

void ggmlviz__ties_kernel(struct ggmlviz__ties *g, const struct ggmlviz_event *ev,
			 struct ggmlviz_pairing_counts *c)
{
	struct ggmlviz__ties_kernel k = kernel_of(ev);
	uint64_t id = ev->data.kernel.run_id;
	struct ggmlviz__ties_run *r = id ? run_of(g, id) : NULL;

	if (!r && id > g->last_run && hold_early(g, id, &k) == 0)
		return; /* its run's records are further on in the file */
	if (!r) {
		untied(g, id, &k, c);
		return;
	}
	add_kernel(r, &k, c);
	complete_before(g, r, &k, c); /* r stays: only runs before it complete */
}

void ggmlviz__ties_finish(struct ggmlviz__ties *g, struct ggmlviz_pairing_counts *c)
{
	while (g->n_runs)
		complete(g, 0, c);
	for (uint32_t i = 0; i < g->n_early; i++) /* their runs never came */
		untied(g, g->early[i].run_id, &g->early[i].k, c);
	g->n_early = 0;
}

void ggmlviz__ties_clear(struct ggmlviz__ties *g)
{
	for (uint32_t i = 0; i < g->n_runs; i++) {
		free(g->runs[i].nodes);
		free(g->runs[i].kernels);
	}
	g->n_runs = 0;
	g->n_early = 0;
	g->last_run = 0;
	g->q_head = g->q_len = 0;
	g->n_names = 0;
	ggmlviz__map_clear(&g->op_names);
}

void ggmlviz__ties_free(struct ggmlviz__ties *g)
{
	ggmlviz__ties_clear(g);
	ggmlviz__map_release(&g->op_names);
	free(g->runs);
	free(g->early);
	free(g->queue);
	free(g->names);
	memset(g, 0, sizeof *g);
}
