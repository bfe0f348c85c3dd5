/*
 * libggmlviz: the GGML adapter's memory, part of its implementation
 * (<ggmlviz/ggml-impl.h> includes it); never include it yourself.
 *
 * With memory tracking on (GGML_VIZ_MEMORY_TRACKING), the backend buffers
 * a graph's nodes and their sources live in are recorded once each
 * (TENSOR_ALLOC, with what they hold: weights, KV cache, compute, and the
 * device with its memory: META DEVICE), and followed to the free of the
 * llama.cpp context or model that owns them (TENSOR_FREE; llama.h). A
 * thread keeps the buffers it saw lately, so that a node whose buffers
 * were recorded costs a lookup in a few entries, not a record. The inputs
 * GGML's scheduler copied into a run between backends are counted too
 * (COUNTER sched_copy_bytes).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_MEMORY_H
#define GGMLVIZ_GGML_MEMORY_H

#ifndef GGMLVIZ_GGML_IMPL_H
#error "include <ggmlviz/ggml.h> with GGMLVIZ_GGML_IMPLEMENTATION defined, not this file"
#endif

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
/* ---- memory: the backend buffers a graph uses ---- */

static const char *ggmlviz_ggml__buffer_role(ggml_backend_buffer_t buf, const struct ggml_tensor *t)
{
	enum ggml_backend_buffer_usage usage = ggml_backend_buffer_get_usage(buf);

	if (usage == GGML_BACKEND_BUFFER_USAGE_WEIGHTS)
		return "weights";
	if (usage == GGML_BACKEND_BUFFER_USAGE_COMPUTE)
		return "compute";
	return strncmp(t->name, "cache_", 6) == 0 ? "kv_cache" : "buffer";
}

/* ---- backend buffers, and what frees them (a llama.cpp context or model: llama.h) ---- */

#define GGMLVIZ_GGML__OWNED 256 /* buffers followed to their free at once */

/* A backend buffer recorded, and the context or model whose free frees it. */
struct ggmlviz_ggml__owned {
	unsigned int state; /* GGMLVIZ_GGML__SLOT_* */
	const void *buf, *owner;
	uint64_t size;
};

static struct ggmlviz_ggml__owned ggmlviz_ggml__owned[GGMLVIZ_GGML__OWNED];
/* Bumped when the adapter records a buffer's free: a thread's buffers seen are then stale. */
static unsigned int ggmlviz_ggml__buffers_epoch;
/* What frees the buffers this thread's graphs use: set around a llama.cpp decode
 * (llama.h): the context its KV cache and compute buffers, the model its weights. */
static __thread const void *ggmlviz_ggml__owner_ctx, *ggmlviz_ggml__owner_model;

/* Remembers that owner's free frees buf; past the table's room, that free is not recorded. */
static void ggmlviz_ggml__own(const void *buf, const void *owner, uint64_t size)
{
	for (int i = 0; owner && i < GGMLVIZ_GGML__OWNED; i++) {
		struct ggmlviz_ggml__owned *o = &ggmlviz_ggml__owned[i];
		unsigned int free_state = GGMLVIZ_GGML__SLOT_FREE;

		/* buf and owner read atomically: another thread may be claiming the entry */
		if (GGMLVIZ_GGML__LOAD(&o->state) == GGMLVIZ_GGML__SLOT_READY &&
		    GGMLVIZ_GGML__LOAD(&o->buf) == buf)
			return; /* a new session recorded it again: followed already */
		if (GGMLVIZ_GGML__CAS(&o->state, &free_state, GGMLVIZ_GGML__SLOT_BUSY)) {
			GGMLVIZ_GGML__STORE(&o->buf, buf);
			GGMLVIZ_GGML__STORE(&o->owner, owner);
			o->size = size;
			GGMLVIZ_GGML__STORE(&o->state, GGMLVIZ_GGML__SLOT_READY);
			return;
		}
	}
}

void ggmlviz_ggml__owners(const void *ctx, const void *model)
{
	ggmlviz_ggml__owner_ctx = ctx;
	ggmlviz_ggml__owner_model = model;
}

int ggmlviz_ggml__free_owned(const void *owner, const void *buf, const char *label)
{
	int n = 0;

	for (int i = 0; i < GGMLVIZ_GGML__OWNED; i++) {
		struct ggmlviz_ggml__owned *o = &ggmlviz_ggml__owned[i];
		unsigned int ready = GGMLVIZ_GGML__SLOT_READY;

		if (GGMLVIZ_GGML__LOAD(&o->state) != GGMLVIZ_GGML__SLOT_READY ||
		    (owner ? GGMLVIZ_GGML__LOAD(&o->owner) != owner : GGMLVIZ_GGML__LOAD(&o->buf) != buf) ||
		    !GGMLVIZ_GGML__CAS(&o->state, &ready, GGMLVIZ_GGML__SLOT_BUSY))
			continue;
		n += ggmlviz_tensor_free_once(o->buf, o->size, label);
		GGMLVIZ_GGML__STORE(&o->state, GGMLVIZ_GGML__SLOT_FREE);
	}
	if (n)
		__atomic_add_fetch(&ggmlviz_ggml__buffers_epoch, 1u, __ATOMIC_ACQ_REL);
	return n;
}

/* What frees buf, as ggmlviz_ggml__own() was told; NULL if not followed. */
static const void *ggmlviz_ggml__owner_of(const void *buf)
{
	for (int i = 0; i < GGMLVIZ_GGML__OWNED; i++)
		if (GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__owned[i].state) == GGMLVIZ_GGML__SLOT_READY &&
		    GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__owned[i].buf) == buf)
			return GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__owned[i].owner);
	return NULL;
}

/* The compute buffer this thread saw last for each buffer type, to free the one replaced
 * (by the same context: another context's, a draft model's, lives on beside it). */
static __thread const void *ggmlviz_ggml__compute_buft[8];
static __thread ggml_backend_buffer_t ggmlviz_ggml__compute_buf[8];

static void ggmlviz_ggml__replaced(ggml_backend_buffer_t buf)
{
	const void *buft = ggml_backend_buffer_get_type(buf);
	int i = 0;

	while (i < 7 && ggmlviz_ggml__compute_buft[i] && ggmlviz_ggml__compute_buft[i] != buft)
		i++;
	if (ggmlviz_ggml__compute_buft[i] == buft && ggmlviz_ggml__compute_buf[i] &&
	    ggmlviz_ggml__compute_buf[i] != buf &&
	    ggmlviz_ggml__owner_of(ggmlviz_ggml__compute_buf[i]) == ggmlviz_ggml__owner_ctx &&
	    !ggmlviz_ggml__free_owned(NULL, ggmlviz_ggml__compute_buf[i], "compute buffer replaced") &&
	    ggmlviz_tensor_free_once(ggmlviz_ggml__compute_buf[i], 0, "compute buffer replaced"))
		__atomic_add_fetch(&ggmlviz_ggml__buffers_epoch, 1u, __ATOMIC_ACQ_REL);
	ggmlviz_ggml__compute_buft[i] = buft;
	ggmlviz_ggml__compute_buf[i] = buf;
}

/*
 * META DEVICE for a buffer just recorded: the device its memory is on (host
 * memory is the CPU's, pinned host buffers included) and that device's
 * memory, total and free, as GGML says them (0: not said). A device of
 * GGML's RPC backend ("RPC0[host:port]") is not asked: its answer is a
 * round trip to its server, which the run untraced does not make.
 */
static void ggmlviz_ggml__buffer_device(ggml_backend_buffer_t buf)
{
	ggml_backend_buffer_type_t buft = ggml_backend_buffer_get_type(buf);
	ggml_backend_dev_t dev = ggml_backend_buft_is_host(buft)
					 ? ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU)
					 : ggml_backend_buft_get_device(buft);
	size_t free_bytes = 0, total = 0;

	if (!dev)
		return;
	if (strncmp(ggml_backend_dev_name(dev), "RPC", 3) != 0)
		ggml_backend_dev_memory(dev, &free_bytes, &total);
	ggmlviz_meta(GGMLVIZ_META_DEVICE, (uint64_t)(uintptr_t)buf, (uint64_t)total,
		     (uint64_t)free_bytes, ggml_backend_buft_is_host(buft) ? "CPU"
									: ggml_backend_dev_name(dev));
}

/*
 * Whether this thread saw buf lately in this session (and no free was
 * recorded since): a node's buffers are a few, the same node after node,
 * and the record was made already. Remembers it otherwise.
 */
static bool ggmlviz_ggml__buffer_known(const void *buf)
{
	static __thread const void *seen[8];
	static __thread uint64_t session;
	static __thread unsigned int epoch, next;
	uint64_t now = ggmlviz_session();
	unsigned int e = GGMLVIZ_GGML__LOAD(&ggmlviz_ggml__buffers_epoch);

	if (session != now || epoch != e) {
		memset(seen, 0, sizeof seen);
		session = now, epoch = e;
	}
	for (int i = 0; i < 8; i++)
		if (seen[i] == buf)
			return true;
	seen[next++ % 8] = buf;
	return false;
}

/* TENSOR_ALLOC for a buffer, the first time it is seen this session, with what frees it. */
static void ggmlviz_ggml__buffer_seen(const struct ggml_tensor *t)
{
	const struct ggml_tensor *data = t->view_src ? t->view_src : t;
	ggml_backend_buffer_t buf = data->buffer;
	const char *role;
	char label[96];
	uint64_t size;

	if (!buf || ggmlviz_ggml__buffer_known(buf))
		return;
	role = ggmlviz_ggml__buffer_role(buf, data);
	size = (uint64_t)ggml_backend_buffer_get_size(buf);
	snprintf(label, sizeof label, "%s %s", role, ggml_backend_buffer_name(buf));
	if (!ggmlviz_tensor_alloc_once(buf, size, label))
		return;
	ggmlviz_ggml__buffer_device(buf);
	/* a buffer of another role ("buffer") may be either's: left unfollowed, not guessed */
	if (strcmp(role, "weights") == 0)
		ggmlviz_ggml__own(buf, ggmlviz_ggml__owner_model, size);
	else if (strcmp(role, "kv_cache") == 0 || strcmp(role, "compute") == 0)
		ggmlviz_ggml__own(buf, ggmlviz_ggml__owner_ctx, size);
	if (ggml_backend_buffer_get_usage(buf) == GGML_BACKEND_BUFFER_USAGE_COMPUTE)
		ggmlviz_ggml__replaced(buf);
}

/*
 * Whether t is an input GGML's scheduler copied into a run from another
 * backend: it names such a copy "BACKEND#name#N" (ggml-backend.cpp).
 */
static bool ggmlviz_ggml__sched_copy(const struct ggml_tensor *t)
{
	const char *hash = strchr(t->name, '#'), *last = strrchr(t->name, '#');

	if (!hash || last == hash || !last[1])
		return false;
	for (const char *p = last + 1; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * COUNTER "sched_copy_bytes" for each input the scheduler copied into this
 * thread's run (once per run: a copy may feed several of its nodes), with
 * memory tracking on: the bytes a model split between backends moves.
 * Returns whether t reads such a copy (its run is then asked in full
 * every time: ggmlviz_nodes_ask_always(3)).
 */
static bool ggmlviz_ggml__copies_seen(const struct ggml_tensor *t)
{
	static __thread const void *run_buft;
	static __thread const struct ggml_tensor *counted[64];
	static __thread unsigned int n_counted;
	const void *buft = t->buffer ? (const void *)ggml_backend_buffer_get_type(t->buffer) : NULL;
	bool reads = false;

	if (buft != run_buft) /* another backend's node: a new run (its first ask is in full) */
		run_buft = buft, n_counted = 0;
	for (int i = 0; i < GGML_MAX_SRC && t->src[i]; i++) {
		const struct ggml_tensor *s = t->src[i];
		unsigned int k = 0;

		if (!ggmlviz_ggml__sched_copy(s))
			continue;
		reads = true;
		while (k < n_counted && k < 64 && counted[k] != s)
			k++;
		if (k < n_counted && k < 64)
			continue;
		counted[n_counted++ % 64] = s;
		ggmlviz_counter("sched_copy_bytes", (int64_t)ggml_nbytes(s));
	}
	return reads;
}

/*
 * A node's buffers and its sources', unless seen_before (the same node of
 * a split computed before: ggmlviz_nodes_asked_before(3)), and the
 * scheduler's copies into its run, which every run counts; whether the
 * node reads a copy.
 */
static bool ggmlviz_ggml__buffers_seen(const struct ggml_tensor *t, bool seen_before)
{
	if (!seen_before) {
		ggmlviz_ggml__buffer_seen(t);
		for (int i = 0; i < GGML_MAX_SRC && t->src[i]; i++)
			ggmlviz_ggml__buffer_seen(t->src[i]);
	}
	return ggmlviz_ggml__copies_seen(t);
}
/** @endcond */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_MEMORY_H */
