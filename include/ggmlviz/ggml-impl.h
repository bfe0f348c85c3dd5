/*
 * libggmlviz: the GGML adapter's implementation, the state every source
 * file of a program shares. <ggmlviz/ggml.h> includes it in the one source
 * file that defines GGMLVIZ_GGML_IMPLEMENTATION; never include it
 * yourself.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_IMPL_H
#define GGMLVIZ_GGML_IMPL_H

#ifndef GGMLVIZ_GGML_H
#error "include <ggmlviz/ggml.h> with GGMLVIZ_GGML_IMPLEMENTATION defined, not this file"
#endif

/* The adapter's state is shared through GCC's and Clang's __atomic builtins and __thread. */
#if !defined(__GNUC__) && !defined(__clang__)
#error "the GGML adapter's implementation needs the __atomic builtins and __thread of GCC or Clang"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
#define GGMLVIZ_GGML__LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define GGMLVIZ_GGML__CAS(p, expected, v) \
	__atomic_compare_exchange_n((p), (expected), (v), false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
#define GGMLVIZ_GGML__SLOT_FREE 0u
#define GGMLVIZ_GGML__SLOT_BUSY 1u
#define GGMLVIZ_GGML__SLOT_READY 2u

/* What one scheduler (or user_data value) is traced with. */
struct ggmlviz_ggml__slot {
	unsigned int state; /* GGMLVIZ_GGML__SLOT_* */
	void *key;
	bool is_sched;      /* key is a ggml_backend_sched_t */
	ggml_backend_sched_eval_callback chain;
	void *chain_user_data;
	ggml_abort_callback abort_chain;
	void *abort_data;
	int n_threads;
};

static struct ggmlviz_ggml__slot ggmlviz_ggml__slots[GGMLVIZ_GGML_MAX_SCHEDS];
/* Bumped whenever a slot is freed or given a key: a thread's cached lookup is then stale. */
static unsigned int ggmlviz_ggml__slots_epoch;

/* The node a thread answered "wanted" for (sync mode), until it is handed over. */
struct ggmlviz_ggml__inflight {
	const struct ggml_tensor *tensor;
	bool traced;    /* its OP_COMPUTE_BEGIN was recorded */
	bool app_wants; /* the chained callback asked to observe it */
	uint32_t op_type;
	uint64_t size;
	const void *backend;
};

static __thread struct ggmlviz_ggml__inflight ggmlviz_ggml__flight;
/* Sync mode: the layer of the last node asked about whose name says one. */
static __thread int32_t ggmlviz_ggml__named_layer = -1;
/* The backend this thread named last, in which session: one compare per ask. */
static __thread const void *ggmlviz_ggml__named_backend;
static __thread uint64_t ggmlviz_ggml__named_session;

__attribute__((noinline)) static struct ggmlviz_ggml__slot *ggmlviz_ggml__find(const void *key)
{
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		struct ggmlviz_ggml__slot *s = &ggmlviz_ggml__slots[i];
		if (GGMLVIZ_GGML__LOAD(&s->state) == GGMLVIZ_GGML__SLOT_READY &&
		    GGMLVIZ_GGML__LOAD(&s->key) == key)
			return s;
	}
	return NULL;
}

static struct ggmlviz_ggml__slot *ggmlviz_ggml__claim(void *key)
{
	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		struct ggmlviz_ggml__slot *s = &ggmlviz_ggml__slots[i];
		unsigned int free_state = GGMLVIZ_GGML__SLOT_FREE;

		if (GGMLVIZ_GGML__CAS(&s->state, &free_state, GGMLVIZ_GGML__SLOT_BUSY)) {
			GGMLVIZ_GGML__STORE(&s->key, key);
			__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
			return s;
		}
	}
	return NULL;
}

/* A slot is ready for its key: lookups cached by the threads are stale. */
static void ggmlviz_ggml__ready(struct ggmlviz_ggml__slot *s)
{
	GGMLVIZ_GGML__STORE(&s->state, GGMLVIZ_GGML__SLOT_READY);
	__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
}

/* A slot becomes free: lookups cached by the threads are stale. */
static void ggmlviz_ggml__release(struct ggmlviz_ggml__slot *s)
{
	GGMLVIZ_GGML__STORE(&s->state, GGMLVIZ_GGML__SLOT_FREE);
	__atomic_fetch_add(&ggmlviz_ggml__slots_epoch, 1, __ATOMIC_ACQ_REL);
}

/* ggmlviz_ggml__find(), remembered per thread until a slot changes: the
 * callback asks it for every node, always with the same user_data. */
static const struct ggmlviz_ggml__slot *ggmlviz_ggml__find_cached(const void *key)
{
	static __thread const void *cached_key;
	static __thread const struct ggmlviz_ggml__slot *cached_slot;
	static __thread unsigned int cached_epoch = ~0u;
	unsigned int epoch = GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__slots_epoch);

	if (__builtin_expect(cached_epoch != epoch || cached_key != key, 0)) {
		cached_slot = ggmlviz_ggml__find(key);
		cached_key = key;
		cached_epoch = epoch;
	}
	return cached_slot;
}

/* The slot of key, claimed if new and made ready; NULL when all are taken. */
static struct ggmlviz_ggml__slot *ggmlviz_ggml__slot_for(void *key, bool is_sched)
{
	struct ggmlviz_ggml__slot *s = ggmlviz_ggml__find(key);

	if (!s && !(s = ggmlviz_ggml__claim(key)))
		return NULL;
	s->is_sched = is_sched;
	ggmlviz_ggml__ready(s);
	return s;
}

static void ggmlviz_ggml__name_backend(const void *backend, const char *name)
{
	uint64_t session = ggmlviz_session();

	if (!backend || (ggmlviz_ggml__named_backend == backend &&
			 ggmlviz_ggml__named_session == session))
		return;
	ggmlviz_ggml__named_backend = backend;
	ggmlviz_ggml__named_session = session;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)backend, name);
}

/*
 * What a node whose output is in buffer type buft is recorded as computed
 * by, without a scheduler to ask: the CPU device for host memory, else the
 * buffer type; named once.
 */
static const void *ggmlviz_ggml__buft_backend(ggml_backend_buffer_type_t buft)
{
	ggml_backend_dev_t cpu = ggml_backend_buft_is_host(buft)
					 ? ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)
					 : NULL;

	if (cpu) {
		ggmlviz_ggml__name_backend(cpu, "CPU");
		return cpu;
	}
	ggmlviz_ggml__name_backend(buft, ggml_backend_buft_name(buft));
	return buft;
}

/*
 * What the nodes of the split being asked about are recorded as computed
 * by, where GGML's scheduler said the split's backend (ggmlviz_nodes_split(3),
 * the edit of scripts/build-llama-tools.sh): every node of a split is its
 * backend's, so no node needs a lookup (the scheduler's hash table, or the
 * node's buffer, miss the cache for most nodes of a step). The same as a
 * lookup would give: the backend itself for a scheduler traced as such,
 * else what its default buffer type holding the node would give. Found
 * once a split backend and session; NULL where none was said.
 */
static const void *ggmlviz_ggml__split_backend(const struct ggmlviz_ggml__slot *slot)
{
	static __thread ggml_backend_t split;
	static __thread const void *recorded;
	static __thread uint64_t session;
	static __thread bool sched;
	ggml_backend_t backend = (ggml_backend_t)(uintptr_t)ggmlviz_nodes_split_backend();
	bool is_sched = slot && slot->is_sched;

	if (!backend)
		return NULL;
	if (backend == split && is_sched == sched && session == ggmlviz_session())
		return recorded;
	if (is_sched)
		ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
	recorded = is_sched ? (const void *)backend
			    : ggmlviz_ggml__buft_backend(ggml_backend_get_default_buffer_type(backend));
	split = backend;
	sched = is_sched;
	session = ggmlviz_session();
	return recorded;
}

/*
 * The backend computing t: the scheduler's, else the buffer type holding t.
 * Without the scheduler (llama.cpp), a node whose output is in host memory
 * (the CPU's buffers, and a GPU backend's pinned host buffers such as
 * Vulkan_Host or CUDA_Host) is the CPU backend's: it is named "CPU", keyed
 * by the CPU device, so that one CPU run is one run whatever host buffer
 * each node's output went to.
 */
static const void *ggmlviz_ggml__node_backend(const struct ggml_tensor *t,
					      const struct ggmlviz_ggml__slot *slot)
{
	ggml_backend_buffer_t buffer;
	ggml_backend_buffer_type_t buft;
	ggml_backend_t backend;

	if (slot && slot->is_sched) {
		backend = ggml_backend_sched_get_tensor_backend((ggml_backend_sched_t)slot->key,
								(struct ggml_tensor *)t);
		if (backend)
			ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
		return backend;
	}
	/*
	 * An allocated view has its view_src's buffer (ggml_backend_view_init()):
	 * t->buffer is in the struct's first bytes, view_src three cache lines on,
	 * and each is a miss for every node of every step (the weights streamed
	 * through the caches since the last one).
	 */
	buffer = t->buffer ? t->buffer : t->view_src ? t->view_src->buffer : NULL;
	if (!buffer)
		return NULL;
	buft = ggml_backend_buffer_get_type(buffer);
	return ggmlviz_ggml__buft_backend(buft);
}

#include <ggmlviz/ggml-memory.h> /* the backend buffers a graph uses, and what frees them */

/* ---- layers and sources ---- */

static bool ggmlviz_ggml__is_view(const struct ggml_tensor *t)
{
	return t->op == GGML_OP_NONE || t->op == GGML_OP_VIEW || t->op == GGML_OP_RESHAPE ||
	       t->op == GGML_OP_PERMUTE || t->op == GGML_OP_TRANSPOSE;
}

/* The tensor a chain of views shows (the node that computed the data). */
static const struct ggml_tensor *ggmlviz_ggml__seen_through(const struct ggml_tensor *t)
{
	for (int k = 0; t && k < 8 && t->op != GGML_OP_NONE && ggmlviz_ggml__is_view(t); k++)
		t = t->view_src ? t->view_src : t->src[0];
	return t;
}

/* A name GGML gave (empty, "node_N", "leaf_N", or its suffix on a source it named so:
 * " (view) (copy of )"), not the program. */
static bool ggmlviz_ggml__unnamed(const struct ggml_tensor *t)
{
	return !t->name[0] || strncmp(t->name, "node_", 5) == 0 ||
	       strncmp(t->name, "leaf_", 5) == 0 || strncmp(t->name, " (", 2) == 0;
}

static int32_t ggmlviz_ggml__layer_at(const struct ggml_tensor *t, int depth)
{
	int32_t layer = ggmlviz_layer_of_name(t->name, strlen(t->name));

	if (layer >= 0 || depth == 0 || !ggmlviz_ggml__unnamed(t))
		return layer;
	for (int i = 0; i < GGML_MAX_SRC && t->src[i]; i++) {
		int32_t l = ggmlviz_ggml__layer_at(t->src[i], depth - 1);
		layer = l > layer ? l : layer;
	}
	return layer;
}

int32_t ggmlviz_ggml_layer(const struct ggml_tensor *t)
{
	return ggmlviz_ggml__layer_at(t, 3);
}

#include <ggmlviz/ggml-layers.h> /* a run's layers in one pass, for nodes GGML named */
#include <ggmlviz/ggml-name.h>   /* a run's name, for a GGML that gives its graphs no id */

/* The layer of node i of a run, asked alone (a run whose table could not be made): its
 * own, else the highest of its sources' and of the closest node before it whose name
 * says one. */
static int32_t ggmlviz_ggml__run_layer(const void *const *nodes, size_t i)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[i];
	int32_t layer = ggmlviz_ggml_layer(t), before = -1;

	if (!ggmlviz_ggml__unnamed(t))
		return layer;
	for (size_t k = i, seen = 0; k > 0 && seen < 64 && before < 0; k--, seen++) {
		const struct ggml_tensor *p = (const struct ggml_tensor *)nodes[k - 1];
		before = ggmlviz_layer_of_name(p->name, strlen(p->name));
	}
	return before > layer ? before : layer;
}

/* Node i's layer, and its stack's flag in *stack (<ggmlviz/ggml-layers.h>). */
static int32_t ggmlviz_ggml__node_layer(const void *const *nodes, size_t n, size_t i,
					uint32_t *stack)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[i];
	struct ggmlviz_ggml__said s;

	if (ggmlviz_ggml__says(t, &s) || ggmlviz_ggml__lay_of(nodes, n, i, &s)) {
		*stack = s.stack;
		return s.layer;
	}
	*stack = 0;
	return ggmlviz_ggml__run_layer(nodes, i);
}

/* ---- the CPU backend's ticks, and its fused kernels ---- */

/*
 * Whether a backend computes t (GGML's CPU backend then calls its abort
 * callback after it; a GPU backend launches kernels for it).
 */
static bool ggmlviz_ggml__ticks(const struct ggml_tensor *t)
{
	return !ggmlviz_ggml__is_view(t) && (t->flags & GGML_TENSOR_FLAG_COMPUTE);
}

/* Whether t's output is in host memory: the CPU backend computes it. */
static bool ggmlviz_ggml__on_host(const struct ggml_tensor *t)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;

	return !data->buffer || ggml_backend_buft_is_host(ggml_backend_buffer_get_type(data->buffer));
}

static bool ggmlviz_ggml__fusion_off(void)
{
	static int off = -1; /* read once, as GGML does */
	const char *env;

	if (__atomic_load_n(&off, __ATOMIC_RELAXED) < 0) {
		env = getenv("GGML_CPU_DISABLE_FUSION");
		__atomic_store_n(&off, env && atoi(env) == 1, __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&off, __ATOMIC_RELAXED) == 1;
}

/*
 * Whether the CPU backend computes nodes[i] and nodes[i + 1] in one kernel
 * (ggml-cpu.c, ggml_cpu_try_fuse_ops: RMS_NORM + MUL, F32, the norm used
 * once), and so ticks once for both; all but the "used once", which
 * ggmlviz_ggml__fuse_table() counts for the whole run. A GPU backend fuses
 * by rules of its own: the reader finds them in the kernels it launched.
 */
static bool ggmlviz_ggml__fusable(const void *const *nodes, size_t n, size_t i)
{
	const struct ggml_tensor *a, *b, *w;

	if (i + 1 >= n || ggmlviz_ggml__fusion_off())
		return false;
	a = (const struct ggml_tensor *)nodes[i];
	b = (const struct ggml_tensor *)nodes[i + 1];
	if (a->op != GGML_OP_RMS_NORM || b->op != GGML_OP_MUL || !ggmlviz_ggml__ticks(a) ||
	    !ggmlviz_ggml__ticks(b) || !ggmlviz_ggml__on_host(a) || !ggmlviz_ggml__on_host(b) ||
	    a->view_src || (a->flags & GGML_TENSOR_FLAG_OUTPUT) ||
	    (b->src[0] != a && b->src[1] != a) || !ggml_are_same_shape(a, b))
		return false;
	w = b->src[0] == a ? b->src[1] : b->src[0];
	return a->src[0]->type == GGML_TYPE_F32 && b->type == GGML_TYPE_F32 &&
	       w->type == GGML_TYPE_F32 && w->ne[0] == a->ne[0] && w->nb[0] == sizeof(float);
}

#define GGMLVIZ_GGML__PAIRS 256u     /* fusable pairs a run's table holds: 2 a layer, 127 layers */
#define GGMLVIZ_GGML__SLOT_BITS 9u   /* their hash slots: twice the pairs */
#define GGMLVIZ_GGML__SLOTS (1u << GGMLVIZ_GGML__SLOT_BITS)

/*
 * The fusable pairs of the run being described and how many of its nodes
 * read each head, counted in one pass over the run when its first node is
 * described (every node's sources read once, where asking each head alone
 * would read every later node's: a few us a llama.cpp token). A run of
 * more pairs than the table holds is asked node by node.
 */
struct ggmlviz_ggml__fuse_table {
	const void *const *nodes;                  /* the run it counts; NULL: none */
	const void *const *tried;                  /* the run it was made for, counted or not */
	size_t n, pairs;
	uint32_t at[GGMLVIZ_GGML__PAIRS];          /* each pair's head, in run order */
	const void *slot_head[GGMLVIZ_GGML__SLOTS]; /* the heads, hashed by address */
	uint8_t slot_pair[GGMLVIZ_GGML__SLOTS];
	uint8_t uses[GGMLVIZ_GGML__PAIRS];          /* nodes after the head that read it, to 2 */
};

static __thread struct ggmlviz_ggml__fuse_table ggmlviz_ggml__fuse;

static size_t ggmlviz_ggml__slot_of(const void *p)
{
	return (size_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) >> (64u - GGMLVIZ_GGML__SLOT_BITS));
}

/* The pair whose head is p, or -1. */
static int ggmlviz_ggml__pair_of(const struct ggmlviz_ggml__fuse_table *f, const void *p)
{
	for (size_t s = ggmlviz_ggml__slot_of(p); f->slot_head[s]; s = (s + 1) & (GGMLVIZ_GGML__SLOTS - 1))
		if (f->slot_head[s] == p)
			return f->slot_pair[s];
	return -1;
}

/* Counts, for every fusable pair of the run, the nodes after its head that read it. */
static void ggmlviz_ggml__fuse_table(const void *const *nodes, size_t n)
{
	struct ggmlviz_ggml__fuse_table *f = &ggmlviz_ggml__fuse;

	memset(f->slot_head, 0, sizeof f->slot_head);
	f->nodes = NULL;
	f->tried = nodes;
	f->n = n;
	f->pairs = 0;
	for (size_t i = 0; i + 1 < n; i++) {
		size_t s = ggmlviz_ggml__slot_of(nodes[i]);

		if (!ggmlviz_ggml__fusable(nodes, n, i))
			continue;
		if (f->pairs == GGMLVIZ_GGML__PAIRS)
			return; /* too many: asked node by node */
		while (f->slot_head[s])
			s = (s + 1) & (GGMLVIZ_GGML__SLOTS - 1);
		f->slot_head[s] = nodes[i];
		f->slot_pair[s] = (uint8_t)f->pairs;
		f->uses[f->pairs] = 0;
		f->at[f->pairs++] = (uint32_t)i;
	}
	for (size_t j = f->pairs ? f->at[0] + 1 : n; j < n; j++) {
		const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[j];

		for (int k = 0; k < GGML_MAX_SRC && t->src[k]; k++) {
			int p = ggmlviz_ggml__pair_of(f, t->src[k]);

			if (p >= 0 && f->at[p] < j && f->uses[p] < 2)
				f->uses[p]++;
		}
	}
	f->nodes = nodes;
}

/* How many of the run's nodes after node i read it as a source (only
 * later nodes can: a graph is in order), counting up to 2. */
static int ggmlviz_ggml__uses(const void *const *nodes, size_t n, size_t i)
{
	const struct ggml_tensor *a = (const struct ggml_tensor *)nodes[i];
	int uses = 0;

	for (size_t j = i + 1; j < n && uses < 2; j++) {
		const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[j];
		for (int k = 0; k < GGML_MAX_SRC && t->src[k]; k++)
			uses += t->src[k] == a;
	}
	return uses;
}

/* Whether nodes[i] heads a fused pair: from the run's table, counted when
 * its first node was described, else asked alone. */
static bool ggmlviz_ggml__fused_at(const void *const *nodes, size_t n, size_t i)
{
	const struct ggmlviz_ggml__fuse_table *f = &ggmlviz_ggml__fuse;
	int p;

	if (f->nodes != nodes || f->n != n)
		return ggmlviz_ggml__fusable(nodes, n, i) && ggmlviz_ggml__uses(nodes, n, i) == 1;
	if (i + 1 >= n || (p = ggmlviz_ggml__pair_of(f, nodes[i])) < 0)
		return false;
	return f->at[p] == i && f->uses[p] == 1;
}

/* A fused pair moves what both read but t's output, which stays in the kernel, and b's output. */
static void ggmlviz_ggml__fused_bytes(const struct ggml_tensor *t, const struct ggml_tensor *b,
				      struct ggmlviz_node_desc *out)
{
	uint64_t read = 0, written = 0;

	ggmlviz_ggml_bytes(b, &read, &written);
	for (int j = 0; j < GGML_MAX_SRC; j++)
		if (b->src[j] == t && read >= out->bytes_written)
			read -= out->bytes_written;
	out->bytes_read += read;
	out->bytes_written = written;
}

void ggmlviz_ggml_describe(void *user, const void *const *nodes, size_t n, size_t i,
			   struct ggmlviz_node_desc *out)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)nodes[i];
	uint32_t stack;
	bool tail;

	(void)user;
	if (i == 0) { /* a new run, which may reuse the same array */
		ggmlviz_ggml__fuse.nodes = ggmlviz_ggml__fuse.tried = NULL; /* counted at its 2nd node */
		ggmlviz_ggml__lay_forget();
		/* named, for a GGML that gives no id: a run of a kept name takes its descriptions,
		 * and neither this node nor the others are asked for (ggmlviz_nodes_naming(3)) */
		if (ggmlviz_nodes_naming()) {
			ggmlviz_nodes_graph_id(ggmlviz_ggml__run_name(nodes, n));
			if (ggmlviz_nodes_naming() == 2)
				return;
		}
	} else if (ggmlviz_ggml__fuse.tried != nodes) {
		ggmlviz_ggml__fuse_table(nodes, n);
	}
	tail = i > 0 && ggmlviz_ggml__fused_at(nodes, n, i - 1);
	out->ticks = ggmlviz_ggml__ticks(t) && !tail;
	if (!out->ticks)
		return; /* no op timing of its own: nothing more is asked of it */
	out->op_type = ggmlviz_ggml_op_type(t);
	out->op_name = ggml_op_desc(t);
	out->size = (uint64_t)ggml_nbytes(t);
	out->flops = ggmlviz_ggml_flops(t);
	ggmlviz_ggml_bytes(t, &out->bytes_read, &out->bytes_written);
	memcpy(out->ne, t->ne, sizeof out->ne);
	out->type_name = ggml_type_name(t->type);
	out->name = t->name[0] ? t->name : NULL;
	out->layer = ggmlviz_ggml__node_layer(nodes, n, i, &stack);
	out->flags |= stack;
	out->src[0] = t->src[0] ? ggmlviz_ggml__seen_through(t->src[0]) : NULL;
	out->src[1] = t->src[1] ? ggmlviz_ggml__seen_through(t->src[1]) : NULL;
	if (ggmlviz_ggml__fused_at(nodes, n, i)) {
		const struct ggml_tensor *b = (const struct ggml_tensor *)nodes[i + 1];
		out->flags |= GGMLVIZ_NODE_FUSED;
		ggmlviz_ggml__fused_bytes(t, b, out);
		out->op_type2 = ggmlviz_ggml_op_type(b);
		out->op_name2 = ggml_op_desc(b);
		out->name2 = b->name[0] ? b->name : NULL;
	}
}

/* ---- the callbacks ---- */

/* Sync mode: OP_COMPUTE_BEGIN, OP_INFO and OP_NODE for a node, remembered until handed over. */
static void ggmlviz_ggml__sync_begin(struct ggmlviz_ggml__inflight *f, struct ggml_tensor *t,
				     const void *backend)
{
	const char *label = t->name[0] ? t->name : NULL;
	int32_t layer = ggmlviz_ggml_layer(t);

	f->op_type = ggmlviz_ggml_op_type(t);
	f->size = (uint64_t)ggml_nbytes(t);
	f->backend = backend;
	ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, f->op_type, ggml_op_desc(t));
	ggmlviz_op_begin(t, f->op_type, f->size, f->backend, label);
	ggmlviz_op_info(t, t->ne, ggmlviz_ggml_flops(t), ggml_type_name(t->type));
	{
		uint64_t read, written;
		if (ggmlviz_ggml_bytes(t, &read, &written))
			ggmlviz_op_bytes(t, read, written);
	}
	if (ggmlviz_ggml__unnamed(t) && ggmlviz_ggml__named_layer > layer)
		layer = ggmlviz_ggml__named_layer; /* as ggmlviz_ggml__run_layer() */
	ggmlviz_op_node(t, layer, GGMLVIZ_OP_METHOD_SYNC, 0,
			t->src[0] ? ggmlviz_ggml__seen_through(t->src[0]) : NULL,
			t->src[1] ? ggmlviz_ggml__seen_through(t->src[1]) : NULL);
	f->traced = true;
}

static bool ggmlviz_ggml__ask(struct ggml_tensor *t, void *user_data,
			      const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = &ggmlviz_ggml__flight;
	ggml_backend_sched_eval_callback chain =
		slot ? GGMLVIZ_GGML__LOAD(&slot->chain) : (ggml_backend_sched_eval_callback)NULL;
	const void *backend;

	f->tensor = t;
	f->traced = false;
	f->app_wants = chain && chain(t, true, GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	if (!GGMLVIZ__ON(GGMLVIZ__OPS)) {
		/* steps alone, or no session (the callbacks kept after a stop): a split
		 * asked in full once is taken at once after (ggmlviz_nodes_ask_rest(3)),
		 * unless each of its asks has work here */
		if ((GGMLVIZ__ON(GGMLVIZ__MEMORY) && ggmlviz_ggml__buffers_seen(t, false)) || chain)
			ggmlviz_nodes_ask_always();
		return f->app_wants;
	}
	backend = ggmlviz_ggml__split_backend(slot);
	if (!backend)
		backend = ggmlviz_ggml__node_backend(t, slot);
	ggmlviz_nodes_ask(t, backend, ggmlviz_ggml_describe, user_data);
	/* a node of a split computed again: its buffers were looked at (doc/cost.md);
	 * a copy into the run is counted every time, and a chained callback sees every
	 * ask, so the run is asked in full (not by ggmlviz_nodes_ask_rest(3)) */
	if ((GGMLVIZ__ON(GGMLVIZ__MEMORY) &&
	     ggmlviz_ggml__buffers_seen(t, ggmlviz_nodes_asked_before() != 0)) || chain)
		ggmlviz_nodes_ask_always();
	if (ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_SYNC)
		return f->app_wants;
	if (!ggmlviz_ggml__unnamed(t) && ggmlviz_layer_of_name(t->name, strlen(t->name)) >= 0)
		ggmlviz_ggml__named_layer = ggmlviz_layer_of_name(t->name, strlen(t->name));
	if (GGMLVIZ_GGML_TRACE_VIEWS || ggmlviz_ggml_node_computes(t))
		ggmlviz_ggml__sync_begin(f, t, backend);
	return f->traced || f->app_wants;
}

static bool ggmlviz_ggml__observe(struct ggml_tensor *t, const struct ggmlviz_ggml__slot *slot)
{
	struct ggmlviz_ggml__inflight *f = &ggmlviz_ggml__flight;
	struct ggmlviz_ggml__inflight was = *f;
	ggml_backend_sched_eval_callback chain;

	if (was.tensor != t)
		return true; /* not asked through this callback: nothing to end or pass on */
	f->tensor = NULL;
	if (was.traced)
		ggmlviz_op_end(t, was.op_type, was.size, was.backend, t->name[0] ? t->name : NULL);
	chain = slot ? GGMLVIZ_GGML__LOAD(&slot->chain) : (ggml_backend_sched_eval_callback)NULL;
	if (was.app_wants && chain)
		return chain(t, false, GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	return true;
}

static void ggmlviz_ggml__set_abort(ggml_backend_sched_t sched, ggml_abort_callback cb, void *data);

/*
 * The one-liner, ggml_backend_sched_set_eval_callback(sched,
 * ggmlviz_ggml_eval_cb, sched): a user_data that no call registered is a
 * scheduler (the callback's contract), so on its first ask the adapter
 * takes it as ggmlviz_ggml_trace_sched() would, installing its ticks on
 * the scheduler's CPU backends before the run computes, so that every
 * node is timed. Once per scheduler (and per thread when no slot is left).
 */
static const struct ggmlviz_ggml__slot *ggmlviz_ggml__adopt(void *sched)
{
	static __thread const void *refused;
	struct ggmlviz_ggml__slot *slot;

	if (refused == sched || !(slot = ggmlviz_ggml__slot_for(sched, true))) {
		refused = sched; /* every slot is taken: runs as a whole, said by the tools */
		return NULL;
	}
	ggmlviz_ggml__set_abort((ggml_backend_sched_t)sched, ggmlviz_ggml_abort_cb, slot);
	return slot;
}

/* Every call but a repeat's ask (below): kept out of line, so that those ask at a leaf's cost. */
__attribute__((noinline)) static bool ggmlviz_ggml__eval(struct ggml_tensor *t, bool ask, void *user_data,
							 const struct ggmlviz_ggml__slot *slot)
{
	if (!slot && user_data && ask && GGMLVIZ__ON(GGMLVIZ__OPS))
		slot = ggmlviz_ggml__adopt(user_data);
	return ask ? ggmlviz_ggml__ask(t, user_data, slot) : ggmlviz_ggml__observe(t, slot);
}

bool ggmlviz_ggml_eval_cb(struct ggml_tensor *t, bool ask, void *user_data)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find_cached(user_data);

	/* a node of a split computed again, whose ask needs nothing more: no chained callback
	 * to ask, no copy to count (ggmlviz_nodes_ask_again(3)) */
	if (ask && !(slot && GGMLVIZ_GGML__LOAD(&slot->chain)) && ggmlviz_nodes_ask_again(t, user_data))
		return false;
	return ggmlviz_ggml__eval(t, ask, user_data, slot);
}

bool ggmlviz_ggml_abort_cb(void *data)
{
	const struct ggmlviz_ggml__slot *slot = (const struct ggmlviz_ggml__slot *)data;
	ggml_abort_callback chain;

	ggmlviz_nodes_tick();
	chain = slot ? GGMLVIZ_GGML__LOAD(&slot->abort_chain) : (ggml_abort_callback)NULL;
	return chain ? chain(GGMLVIZ_GGML__LOAD(&slot->abort_data)) : false;
}

/* ---- installing ---- */

void *ggmlviz_ggml__chain_pair(ggml_backend_sched_eval_callback eval, void *eval_data,
			       ggml_abort_callback abort_cb, void *abort_data)
{
	struct ggmlviz_ggml__slot *s;

	for (int i = 0; i < GGMLVIZ_GGML_MAX_SCHEDS; i++) {
		s = &ggmlviz_ggml__slots[i];
		if (GGMLVIZ_GGML__LOAD(&s->state) == GGMLVIZ_GGML__SLOT_READY && !s->is_sched &&
		    GGMLVIZ_GGML__LOAD(&s->key) == (void *)s &&
		    GGMLVIZ_GGML__LOAD(&s->chain) == eval &&
		    GGMLVIZ_GGML__LOAD(&s->chain_user_data) == eval_data &&
		    GGMLVIZ_GGML__LOAD(&s->abort_chain) == abort_cb &&
		    GGMLVIZ_GGML__LOAD(&s->abort_data) == abort_data)
			return s; /* the same callbacks: one slot for every context */
	}
	s = ggmlviz_ggml__claim(NULL);
	if (!s)
		return NULL;
	GGMLVIZ_GGML__STORE(&s->chain, eval);
	GGMLVIZ_GGML__STORE(&s->chain_user_data, eval_data);
	GGMLVIZ_GGML__STORE(&s->abort_chain, abort_cb);
	GGMLVIZ_GGML__STORE(&s->abort_data, abort_data);
	s->is_sched = false;
	GGMLVIZ_GGML__STORE(&s->key, (void *)s); /* keyed by its own address */
	ggmlviz_ggml__ready(s);
	return s;
}

int ggmlviz_ggml_chain(void *user_data, ggml_backend_sched_eval_callback chain,
		       void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(user_data);

	if (chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	if (!slot && !chain)
		return 0;
	if (!slot && !(slot = ggmlviz_ggml__slot_for(user_data, false)))
		return -ENOSPC;
	GGMLVIZ_GGML__STORE(&slot->chain, chain);
	GGMLVIZ_GGML__STORE(&slot->chain_user_data, chain_user_data);
	if (!chain && !slot->is_sched && !GGMLVIZ_GGML__LOAD(&slot->abort_chain))
		ggmlviz_ggml__release(slot); /* nothing left to hold */
	return 0;
}

/* Sets the abort callback of every CPU backend of sched. */
static void ggmlviz_ggml__set_abort(ggml_backend_sched_t sched, ggml_abort_callback cb, void *data)
{
	for (int i = 0; i < ggml_backend_sched_get_n_backends(sched); i++) {
		ggml_backend_t b = ggml_backend_sched_get_backend(sched, i);
		ggml_backend_dev_t dev = ggml_backend_get_device(b);
		ggml_backend_reg_t reg = dev ? ggml_backend_dev_backend_reg(dev) : NULL;
		ggml_backend_set_abort_callback_t set = NULL;
		void *proc;

		if (!dev || ggml_backend_dev_type(dev) != GGML_BACKEND_DEVICE_TYPE_CPU || !reg)
			continue;
		proc = ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback");
		memcpy(&set, &proc, sizeof set); /* POSIX: a function's address as a void * */
		if (set)
			set(b, cb, data);
	}
}

int ggmlviz_ggml_trace_sched(ggml_backend_sched_t sched, int n_threads,
			     ggml_backend_sched_eval_callback chain, void *chain_user_data)
{
	struct ggmlviz_ggml__slot *slot;

	if (!sched || n_threads < 0 || chain == ggmlviz_ggml_eval_cb)
		return -EINVAL;
	if (!(slot = ggmlviz_ggml__slot_for(sched, true)))
		return -ENOSPC;
	GGMLVIZ_GGML__STORE(&slot->chain, chain);
	GGMLVIZ_GGML__STORE(&slot->chain_user_data, chain_user_data);
	GGMLVIZ_GGML__STORE(&slot->n_threads, n_threads);
	ggml_backend_sched_set_eval_callback(sched, ggmlviz_ggml_eval_cb, sched);
	ggmlviz_ggml__set_abort(sched, ggmlviz_ggml_abort_cb, slot);
	return 0;
}

int ggmlviz_ggml_chain_abort(ggml_backend_sched_t sched, ggml_abort_callback abort_cb,
			     void *abort_data)
{
	struct ggmlviz_ggml__slot *slot = sched ? ggmlviz_ggml__find(sched) : NULL;

	if (!slot || !slot->is_sched || abort_cb == ggmlviz_ggml_abort_cb)
		return -EINVAL;
	GGMLVIZ_GGML__STORE(&slot->abort_data, abort_data);
	GGMLVIZ_GGML__STORE(&slot->abort_chain, abort_cb);
	return 0;
}

void ggmlviz_ggml_untrace_sched(ggml_backend_sched_t sched)
{
	struct ggmlviz_ggml__slot *slot = sched ? ggmlviz_ggml__find(sched) : NULL;

	if (!sched)
		return;
	if (!slot) {
		ggml_backend_sched_set_eval_callback(sched, NULL, NULL);
		return;
	}
	ggml_backend_sched_set_eval_callback(sched, GGMLVIZ_GGML__LOAD(&slot->chain),
					     GGMLVIZ_GGML__LOAD(&slot->chain_user_data));
	ggmlviz_ggml__set_abort(sched, GGMLVIZ_GGML__LOAD(&slot->abort_chain),
				GGMLVIZ_GGML__LOAD(&slot->abort_data));
	GGMLVIZ_GGML__STORE(&slot->chain, (ggml_backend_sched_eval_callback)NULL);
	GGMLVIZ_GGML__STORE(&slot->abort_chain, (ggml_abort_callback)NULL);
	GGMLVIZ_GGML__STORE(&slot->n_threads, 0);
	ggmlviz_ggml__release(slot);
}

/* ---- graph computations ---- */

static uint32_t ggmlviz_ggml__n_nodes(struct ggml_cgraph *g)
{
	int n = ggml_graph_n_nodes(g);

	return n > 0 ? (uint32_t)n : 0;
}

/* A scheduler with one backend computes its graphs there; with several,
 * the graph's backend is unknown (NULL). */
static ggml_backend_t ggmlviz_ggml__sched_backend(ggml_backend_sched_t s)
{
	return ggml_backend_sched_get_n_backends(s) == 1 ? ggml_backend_sched_get_backend(s, 0)
							   : NULL;
}

/* GRAPH_COMPUTE_BEGIN, after naming the backend the first time it is seen. */
static void ggmlviz_ggml__graph_begin(struct ggml_cgraph *g, int n_threads, ggml_backend_t backend)
{
	if (backend && ggmlviz_is_active())
		ggmlviz_ggml__name_backend(backend, ggml_backend_name(backend));
	ggmlviz_graph_begin(g, ggmlviz_ggml__n_nodes(g), n_threads > 0 ? (uint32_t)n_threads : 0,
			    backend);
}

/* The graph's last run, then GRAPH_COMPUTE_END. */
static void ggmlviz_ggml__graph_end(struct ggml_cgraph *g, int n_threads, ggml_backend_t backend)
{
	ggmlviz_nodes_flush();
	ggmlviz_graph_end(g, ggmlviz_ggml__n_nodes(g), n_threads > 0 ? (uint32_t)n_threads : 0,
			  backend);
}

enum ggml_status ggmlviz_ggml_sched_graph_compute(ggml_backend_sched_t s, struct ggml_cgraph *g)
{
	const struct ggmlviz_ggml__slot *slot = ggmlviz_ggml__find(s);
	int n_threads = slot ? GGMLVIZ_GGML__LOAD(&slot->n_threads) : 0;
	ggml_backend_t backend = ggmlviz_ggml__sched_backend(s);
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, backend);
	status = ggml_backend_sched_graph_compute(s, g);
	ggmlviz_ggml__graph_end(g, n_threads, backend);
	return status;
}

enum ggml_status ggmlviz_ggml_backend_graph_compute(ggml_backend_t backend, struct ggml_cgraph *g,
						    int n_threads)
{
	enum ggml_status status;

	ggmlviz_ggml__graph_begin(g, n_threads, backend);
	status = ggml_backend_graph_compute(backend, g);
	ggmlviz_ggml__graph_end(g, n_threads, backend);
	return status;
}
/** @endcond */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_IMPL_H */
