/*
 * libggmlviz: tracing a llama.cpp program (the llama.cpp adapter).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_LLAMA_H
#define GGMLVIZ_LLAMA_H

#include <errno.h>
#include <stdint.h>
#include <llama.h>
#include <ggmlviz/ggml.h>

/**
 * @file llama.h
 * @brief Trace a llama.cpp context: each llama_decode() as a step holding
 * its ops, each op in its layer, the model's and the context's memory.
 *
 * Include it after <llama.h>, in any number of source files; in exactly
 * one of them, define #GGMLVIZ_LLAMA_IMPLEMENTATION first. It brings the
 * GGML adapter's implementation with it, unless the program defines
 * #GGMLVIZ_GGML_IMPLEMENTATION in another file: then define
 * #GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY too. The define may also come after
 * the header was included once: include it again.
 * @code
 * #include <llama.h>
 * #define GGMLVIZ_LLAMA_IMPLEMENTATION   // in one source file only
 * #include <ggmlviz/llama.h>
 *
 * ggmlviz_start(NULL);
 * struct llama_context_params cp = llama_context_default_params();
 * ggmlviz_llama_context_params(&cp);                  // the one line
 * struct llama_context *ctx = llama_init_from_model(model, cp);
 * ...
 * ggmlviz_llama_decode(ctx, batch);                   // instead of llama_decode()
 * ...
 * ggmlviz_llama_free(ctx);                            // instead of llama_free()
 * ggmlviz_llama_model_free(model);                    // instead of llama_model_free()
 * @endcode
 *
 * What a trace then holds, on the thread that decodes:
 * - STEP_BEGIN/END around each ggmlviz_llama_decode(), labelled "decode",
 *   with the batch's token count, how many of them produce logits, its
 *   phase (GGMLVIZ_PHASE_PROMPT when fewer tokens give logits than the
 *   batch holds, as when a prompt is processed; GGMLVIZ_PHASE_GENERATION
 *   when every token does, as when one token is generated), and what
 *   llama_decode() returned;
 * - inside it, each backend's run of nodes (SPLIT_BEGIN/END) and, on
 *   GGML's CPU backend, each node: its op, name, shape, work and layer
 *   (see <ggmlviz/ggml.h>), timed from the backend's own calls after each
 *   node, without changing the computation;
 * - with memory tracking on, the backend buffers the graphs use: the
 *   model's weights, the KV cache, each backend's compute buffer, each
 *   with its exact size (TENSOR_ALLOC, once per session), and their frees
 *   (TENSOR_FREE) where the program frees the context and the model
 *   through ggmlviz_llama_free() and ggmlviz_llama_model_free(), and the
 *   device each buffer lives on with its memory (META DEVICE);
 * - at a context's first step of a session, and when its threads change,
 *   the CPU threads it computes with and the CPUs this process may run
 *   on (META THREADS), which `ggmlviz advise` compares.
 */

#ifdef GGMLVIZ_DOXYGEN
/**
 * @brief Define it before including this header in exactly one source file
 * of a program: that file holds the adapter's functions (and, unless
 * #GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY is defined, the GGML adapter's).
 */
#define GGMLVIZ_LLAMA_IMPLEMENTATION
/**
 * @brief Define it with #GGMLVIZ_LLAMA_IMPLEMENTATION when another source
 * file of the program defines #GGMLVIZ_GGML_IMPLEMENTATION: this file then
 * holds the llama.cpp adapter's functions only.
 */
#define GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY
#endif

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief What a batch is: how many of its tokens produce an output, and so
 * whether it processes a prompt or generates.
 *
 * @param batch the batch (read, never changed).
 * @param n_outputs receives how many tokens produce logits: those whose
 *        `logits` flag is set, or 1 (the last) when `logits` is NULL; may
 *        be NULL.
 * @return GGMLVIZ_PHASE_PROMPT when fewer tokens produce an output than the
 *         batch holds, GGMLVIZ_PHASE_GENERATION when all do,
 *         GGMLVIZ_PHASE_UNKNOWN for an empty batch.
 */
static inline uint32_t ggmlviz_llama_batch_phase(struct llama_batch batch, uint32_t *n_outputs)
{
	uint32_t n = 0;

	if (batch.n_tokens <= 0) {
		if (n_outputs)
			*n_outputs = 0;
		return GGMLVIZ_PHASE_UNKNOWN;
	}
	if (!batch.logits)
		n = 1;
	else
		for (int32_t i = 0; i < batch.n_tokens; i++)
			n += batch.logits[i] != 0;
	if (n_outputs)
		*n_outputs = n;
	return n < (uint32_t)batch.n_tokens ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION;
}

/**
 * @brief Makes a context trace its nodes: sets `cb_eval` and
 * `abort_callback` in @p params, chaining those the application had set.
 *
 * Call it on the params given to llama_init_from_model(). The eval
 * callback becomes ggmlviz_ggml_eval_cb() and the abort callback
 * ggmlviz_ggml_abort_cb(): llama.cpp's scheduler asks about each node and
 * GGML's CPU backend calls the abort callback after each node, which time
 * the nodes without splitting the graph. A callback the application had
 * set in either member gets every call it got before, and its answers
 * count (an abort still aborts). Calling it again on the same params does
 * nothing. Tracing need not be started yet; without tracing the callbacks
 * only pass calls on.
 *
 * @param params the context parameters to change (borrowed).
 * @return 0; -EINVAL if @p params is NULL; -ENOSPC if
 *         #GGMLVIZ_GGML_MAX_SCHEDS different pairs of application
 *         callbacks are already chained (params are then left unchanged).
 */
int ggmlviz_llama_context_params(struct llama_context_params *params);

/**
 * @brief llama_decode(), recorded as one step holding its ops.
 *
 * Records STEP_BEGIN (token count, outputs, phase: see
 * ggmlviz_llama_batch_phase()), calls llama_decode(), records the ops of
 * its last run (ggmlviz_nodes_flush()) and STEP_END with its status. When
 * tracing is not active it only calls llama_decode().
 *
 * @param ctx the context (borrowed).
 * @param batch the batch, as for llama_decode().
 * @return what llama_decode() returns (0 success; 1 no KV slot; 2 aborted;
 *         -1 invalid input; < -1 error); or -EINVAL, without calling
 *         llama_decode() or recording anything, if @p ctx is NULL or
 *         @p batch holds no token (n_tokens <= 0, or neither `token` nor
 *         `embd`).
 */
int32_t ggmlviz_llama_decode(struct llama_context *ctx, struct llama_batch batch);

/**
 * @brief llama_encode(), recorded as one step (label "encode"), as
 * ggmlviz_llama_decode() records llama_decode().
 *
 * @param ctx the context (borrowed).
 * @param batch the batch, as for llama_encode().
 * @return what llama_encode() returns; or -EINVAL, as for
 *         ggmlviz_llama_decode().
 */
int32_t ggmlviz_llama_encode(struct llama_context *ctx, struct llama_batch batch);

/**
 * @brief llama_free(), with the frees of the context's buffers recorded.
 *
 * Records TENSOR_FREE (label "llama_free") for each backend buffer of
 * @p ctx that the trace holds: its KV cache and its compute buffers, as
 * recorded when a decode of @p ctx first used them; then calls
 * llama_free(). A buffer of another context is never counted, nor one
 * whose owner the adapter could not tell (a backend buffer of neither
 * role): `ggmlviz mem` lists those as allocated at the end. Without
 * memory tracking it only calls llama_free().
 *
 * @param ctx the context, freed (owned: it may not be used after); NULL
 *        does nothing.
 */
void ggmlviz_llama_free(struct llama_context *ctx);

/**
 * @brief llama_model_free(), with the frees of the model's weights recorded.
 *
 * Records TENSOR_FREE (label "llama_model_free") for each weights buffer
 * a decode of a context of @p model used, as ggmlviz_llama_free() does
 * for a context's buffers, then calls llama_model_free().
 *
 * @param model the model, freed (owned); NULL does nothing.
 */
void ggmlviz_llama_model_free(struct llama_model *model);


#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_LLAMA_H */

/*
 * The implementation, outside the include guard (a file may define
 * GGMLVIZ_LLAMA_IMPLEMENTATION after a first include, and include the
 * header again), once per file.
 */
#if defined(GGMLVIZ_LLAMA_IMPLEMENTATION) && !defined(GGMLVIZ_LLAMA__IMPLEMENTED)
/** @cond GGMLVIZ_INTERNAL */
#define GGMLVIZ_LLAMA__IMPLEMENTED
/** @endcond */
/* the llama.cpp adapter is built on the GGML adapter: its implementation here too */
#if !defined(GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY) && !defined(GGMLVIZ_GGML_IMPLEMENTATION)
#define GGMLVIZ_GGML_IMPLEMENTATION
#endif
#include <ggmlviz/ggml.h>
#include <fcntl.h>  /* open(): the CPUs allowed */
#include <unistd.h> /* sysconf(): the CPUs online */

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
int ggmlviz_llama_context_params(struct llama_context_params *params)
{
	void *slot = NULL;

	if (!params)
		return -EINVAL;
	if (params->cb_eval == ggmlviz_ggml_eval_cb)
		return 0; /* done already */
	if (params->cb_eval || params->abort_callback) {
		slot = ggmlviz_ggml__chain_pair(params->cb_eval, params->cb_eval_user_data,
						params->abort_callback, params->abort_callback_data);
		if (!slot)
			return -ENOSPC;
	}
	params->cb_eval = ggmlviz_ggml_eval_cb;
	params->cb_eval_user_data = slot;
	params->abort_callback = ggmlviz_ggml_abort_cb;
	params->abort_callback_data = slot;
	return 0;
}

#define GGMLVIZ_LLAMA__MAX_SEQS 64 /* sequences of one batch recorded: llama-server's slots */

struct ggmlviz_llama__seq {
	int32_t id;
	uint32_t n_tokens, n_outputs;
	int32_t first_pos; /* -1: the batch gives no positions */
};

/* The entry of sequence id in s[0..*n), added if new; NULL past the limit. */
static struct ggmlviz_llama__seq *ggmlviz_llama__seq_of(struct ggmlviz_llama__seq *s, size_t *n,
							int32_t id)
{
	for (size_t j = 0; j < *n; j++)
		if (s[j].id == id)
			return &s[j];
	if (*n == GGMLVIZ_LLAMA__MAX_SEQS)
		return NULL;
	s[*n].id = id; /* member by member: a compound literal is not C++ (-Wpedantic) */
	s[*n].n_tokens = s[*n].n_outputs = 0;
	s[*n].first_pos = -1;
	return &s[(*n)++];
}

/* Token i of the batch in its sequences (sequence 0 for a batch that names none). */
static void ggmlviz_llama__seq_token(struct ggmlviz_llama__seq *s, size_t *n,
				     struct llama_batch b, int32_t i)
{
	int32_t k_n = b.seq_id && b.n_seq_id ? b.n_seq_id[i] : 1;

	for (int32_t k = 0; k < k_n; k++) {
		struct ggmlviz_llama__seq *q =
			ggmlviz_llama__seq_of(s, n, b.seq_id && b.n_seq_id ? b.seq_id[i][k] : 0);
		if (!q)
			continue;
		q->n_tokens++;
		q->n_outputs += b.logits ? b.logits[i] != 0 : i == b.n_tokens - 1;
		if (b.pos && (q->first_pos < 0 || b.pos[i] < q->first_pos))
			q->first_pos = b.pos[i];
	}
}

/* The context's cells in use: every sequence's span of positions (its KV cache's tokens). */
static uint32_t ggmlviz_llama__cells(struct llama_context *ctx, llama_memory_t mem)
{
	uint32_t cells = 0, n_seq = llama_n_seq_max(ctx);

	for (uint32_t s = 0; mem && s < n_seq; s++) {
		llama_pos lo = llama_memory_seq_pos_min(mem, (llama_seq_id)s);
		llama_pos hi = llama_memory_seq_pos_max(mem, (llama_seq_id)s);
		cells += lo >= 0 && hi >= lo ? (uint32_t)(hi - lo + 1) : 0;
	}
	return cells;
}

/* STEP_SEQ for each sequence of the batch: its tokens, outputs and context before the step. */
static void ggmlviz_llama__step_seqs(struct llama_context *ctx, struct llama_batch batch)
{
	struct ggmlviz_llama__seq s[GGMLVIZ_LLAMA__MAX_SEQS];
	llama_memory_t mem = llama_get_memory(ctx);
	uint32_t cells = ggmlviz_llama__cells(ctx, mem);
	size_t n = 0;

	for (int32_t i = 0; i < batch.n_tokens; i++)
		ggmlviz_llama__seq_token(s, &n, batch, i);
	for (size_t j = 0; j < n; j++) {
		llama_pos had = s[j].first_pos >= 0 ? s[j].first_pos
				: mem ? llama_memory_seq_pos_max(mem, s[j].id) + 1 : 0;
		ggmlviz_step_seq(ctx, s[j].id, s[j].n_tokens, s[j].n_outputs,
				 had > 0 ? (uint32_t)had : 0, cells);
	}
}

/* CPUs in a list such as "0-3,8,10-11" (/proc/self/status's Cpus_allowed_list); 0 if none. */
static uint32_t ggmlviz_llama__cpu_list(const char *s)
{
	uint32_t n = 0;

	while (*s >= '0' && *s <= '9') {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		n += hi >= lo && hi - lo < 65536 ? (uint32_t)(hi - lo + 1) : 0;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

/*
 * The CPUs this process may run on (its affinity), from /proc; 0 where not
 * known. Read with open() and read(), not stdio, whose FILE and buffer would
 * come from the program's heap and move what it allocates after them.
 */
static uint32_t ggmlviz_llama__cpus_allowed(void)
{
	char text[8192];
	const char *at;
	ssize_t got = 0, r = 1;
#ifdef O_CLOEXEC
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
#else
	int fd = open("/proc/self/status", O_RDONLY);
#endif

	while (fd >= 0 && r > 0 && got < (ssize_t)sizeof text - 1)
		if ((r = read(fd, text + got, sizeof text - 1 - (size_t)got)) > 0)
			got += r;
	if (fd >= 0)
		close(fd);
	text[got] = '\0';
	at = strstr(text, "\nCpus_allowed_list:");
	return at ? ggmlviz_llama__cpu_list(at + 19 + strspn(at + 19, " \t")) : 0;
}

/*
 * META THREADS: the threads ctx computes with, and the CPUs for them, at its
 * first step of a session and when they change (what the last step of this
 * thread said is kept: one compare a step otherwise).
 */
static void ggmlviz_llama__threads(struct llama_context *ctx)
{
	static __thread const void *said_ctx;
	static __thread uint64_t said_session, said_threads;
	uint64_t threads = (uint64_t)(uint32_t)llama_n_threads(ctx) |
			   (uint64_t)(uint32_t)llama_n_threads_batch(ctx) << 32;
	uint64_t session = ggmlviz_session();
	long online;
	uint32_t allowed;
	char label[160];

	if (said_ctx == ctx && said_session == session && said_threads == threads)
		return;
	said_ctx = ctx, said_session = session, said_threads = threads;
	online = sysconf(_SC_NPROCESSORS_ONLN);
	allowed = ggmlviz_llama__cpus_allowed();
	snprintf(label, sizeof label, "%u threads generating, %u for a batch; this process may run "
		 "on %u of %ld CPUs online", (unsigned)(uint32_t)threads, (unsigned)(threads >> 32),
		 (unsigned)allowed, online > 0 ? online : 0L);
	ggmlviz_meta(GGMLVIZ_META_THREADS, (uint64_t)(uintptr_t)ctx, threads,
		     (uint64_t)allowed | (uint64_t)(online > 0 ? (uint32_t)online : 0u) << 32, label);
}

static int32_t ggmlviz_llama__step(struct llama_context *ctx, struct llama_batch batch,
				   int32_t (*run)(struct llama_context *, struct llama_batch),
				   const char *label)
{
	uint32_t n_outputs, phase, n_tokens;
	int32_t rc;

	if (!ctx || batch.n_tokens <= 0 || (!batch.token && !batch.embd))
		return -EINVAL;
	phase = ggmlviz_llama_batch_phase(batch, &n_outputs);
	n_tokens = (uint32_t)batch.n_tokens;
	ggmlviz_step_begin(ctx, n_tokens, n_outputs, phase, label);
	if (ggmlviz_is_active()) {
		ggmlviz_llama__threads(ctx);
		ggmlviz_llama__step_seqs(ctx, batch);
	}
	/* the buffers its graphs use first are the context's, or its model's (the weights) */
	ggmlviz_ggml__owners(ctx, llama_get_model(ctx));
	rc = run(ctx, batch);
	ggmlviz_ggml__owners(NULL, NULL);
	ggmlviz_nodes_flush();
	ggmlviz_step_end(ctx, n_tokens, n_outputs, phase, rc, label);
	return rc;
}

int32_t ggmlviz_llama_decode(struct llama_context *ctx, struct llama_batch batch)
{
	return ggmlviz_llama__step(ctx, batch, llama_decode, "decode");
}

int32_t ggmlviz_llama_encode(struct llama_context *ctx, struct llama_batch batch)
{
	return ggmlviz_llama__step(ctx, batch, llama_encode, "encode");
}

void ggmlviz_llama_free(struct llama_context *ctx)
{
	if (!ctx)
		return;
	ggmlviz_ggml__free_owned(ctx, NULL, "llama_free");
	llama_free(ctx);
}

void ggmlviz_llama_model_free(struct llama_model *model)
{
	if (!model)
		return;
	ggmlviz_ggml__free_owned(model, NULL, "llama_model_free");
	llama_model_free(model);
}
/** @endcond */

#ifdef __cplusplus
}
#endif
#endif /* GGMLVIZ_LLAMA_IMPLEMENTATION */
