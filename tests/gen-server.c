/*
 * gen-server: a trace as llama-server writes it, without llama.cpp, for
 * the tests of serve, OTLP export and merge: the tracer itself records a
 * simulated server with SLOTS slots, in real time. Requests arrive in
 * bursts larger than the slots, so that some wait in the queue; each
 * slot takes the oldest waiting request, decodes its prompt in one step
 * and then its tokens one a step, with the other slots' in the same batch
 * (a step's STEP_SEQ records say which slots it served, as
 * ggmlviz_llama_decode() does); every third request is generated in two
 * steps less than asked and ends cancelled, every seventh fails before
 * its first token. Each step runs a few ops of two layers (a step's time
 * grows with its tokens); the weights and KV cache are allocated on
 * "CPU" and "CUDA0" and freed at the end.
 *
 *   gen-server OUT [--requests N] [--slots S] [--step-us US] [--burst B]
 *                  [--gap-ms MS] [--token-us US] [--ctx-ns NS] [--threads T]
 *                  [--taken FIRST:COUNT:PCT] [--long-prompt REQ:TOKENS]
 *                  [--surge REQ:N] [--generate REQ:N] [--fallback FIRST:COUNT]
 *                  [--marks FIRST:COUNT:N] [--clients C] [--flush-ms MS]
 *                  [--batch B] [--wake-us US] [--rotate SIZE[:KEEP]]
 *                  [--flight SPEC] [--flight-on SPEC] [--pack]
 *
 * Defaults: 24 requests, 2 slots, steps of 400 us plus 20 us a token
 * (--token-us) plus NS ns a token of the longest context in the batch
 * (--ctx-ns, 0), a prompt whole in a step (--batch B: B of its tokens a
 * step at most), bursts of 3 requests 30 ms apart; or --clients C: C
 * clients, each sending its next request as soon as its last one ended
 * (the slots kept busy, as a benchmark's clients do). --wake-us: the
 * loop's delay, busy, each time a free slot takes requests waiting (0), as
 * llama-server's own between a request's arrival and its prompt with
 * slots free (its loop woken, a slot's cache saved); the busy slots' next
 * step waits as long. --flush-ms: the
 * tracer's flush interval (100 ms), which spaces its USAGE records;
 * --rotate: the trace in segments (the setting GGML_VIZ_ROTATE sets);
 * --flight and --flight-on: a flight recorder (GGML_VIZ_FLIGHT and
 * GGML_VIZ_FLIGHT_ON), for `ggmlviz snapshot` and slow requests; --pack:
 * the file's records packed (GGML_VIZ_PACK). The
 * trace ends complete (its stop), also on SIGINT or SIGTERM, which end
 * the run where it is.
 *
 * What makes a request slow, for advise --request and --slow (requests
 * are numbered from 0 in order of arrival; "while" a request: from its
 * arrival to its end):
 *   --threads T     META THREADS: T compute threads (and T for a batch) on
 *                   the CPUs online, as the llama.cpp adapter writes it
 *   --taken F:C:P   while requests F to F+C-1, each step off its CPU (slept,
 *                   as when other work holds it) after its work, P% of the
 *                   step on a quiet machine (P/(100-P) times the work's time)
 *   --long-prompt R:T  request R's prompt is T tokens
 *   --surge R:N     N requests more arrive with request R
 *   --generate R:N  request R generates N tokens
 *   --fallback F:C  the ops run on a "CUDA0" backend, but on the CPU, 4
 *                   times slower, while requests F to F+C-1
 *   --marks F:C:N   N MARK records a step while requests F to F+C-1
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#define MAX_SLOTS 16
#define MAX_REQUESTS 100000

struct req {
	uint64_t id;
	uint32_t prompt, generate, generated;
	int status; /* GGMLVIZ_REQUEST_DONE, _CANCELLED, _FAILED */
	int ended;
};

/* Requests first to first + count - 1, and a figure (a share, a count). */
struct range {
	int first, count, value;
};

/* What the command line asks of the run. */
struct sim {
	int n, slots, burst, gap_ms, threads, clients;
	uint32_t batch; /* a prompt's tokens a step, at most (0: the whole prompt) */
	uint64_t step_us, token_us, ctx_ns, wake_us;
	struct range taken, fallback, marks, long_prompt, surge, generate;
	struct req *reqs;
	int arrived;
};

struct slot {
	struct req *r; /* NULL: free */
	uint32_t prompt_left; /* its prompt's tokens not computed yet (0: generating) */
};

static char ctx, weights_cpu, weights_gpu, kv_cpu, kv_gpu, gpu; /* their addresses name them */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Busy for ns: the step's own time, as a decode's would be. */
static void spin(uint64_t ns)
{
	uint64_t end = now_ns() + ns;

	while (now_ns() < end)
		;
}

/* Whether a request of r is in flight (arrived, not ended). */
static int during(const struct sim *m, const struct range *r)
{
	for (int i = r->first; r->count && i < r->first + r->count && i < m->n; i++)
		if (i < m->arrived && !m->reqs[i].ended)
			return 1;
	return 0;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/* A step's ops: its time in 16 shares over two layers; then off its CPU as --taken says. */
static void ops(const struct sim *m, uint32_t tokens, uint32_t context)
{
	static const struct { uint32_t op; const char *name; unsigned share; } kinds[] = {
		{ 1, "attn_norm", 1 }, { 3, "Qcur", 4 }, { 4, "Qcur (rope)", 1 }, { 5, "ffn_out", 2 },
	};
	int cpu = m->fallback.count && during(m, &m->fallback);
	const void *backend = m->fallback.count && !cpu ? &gpu : NULL;
	uint64_t total = m->step_us * 1000u + m->token_us * 1000u * tokens + m->ctx_ns * context;
	uint64_t off = during(m, &m->taken) ? total * (uint64_t)m->taken.value /
						      (100u - (uint64_t)m->taken.value) : 0;
	uint64_t ns = total * (cpu ? 4u : 1u) / 16u;

	for (int layer = 0; layer < 2; layer++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			char label[32];
			const void *t = (const void *)(uintptr_t)(0x1000 + 64 * (layer * 4 + (int)k));

			snprintf(label, sizeof label, "%s-%d", kinds[k].name, layer);
			ggmlviz_op_begin(t, kinds[k].op, 4096, backend, label);
			spin(ns * kinds[k].share);
			ggmlviz_op_end(t, kinds[k].op, 4096, backend, label);
		}
	if (off)
		sleep_ns(off);
}

/* The tokens slot s computes in the next step: a piece of its prompt (--batch), or a token. */
static uint32_t chunk(const struct sim *m, const struct slot *s)
{
	if (!s->prompt_left)
		return 1;
	return m->batch && s->prompt_left > m->batch ? m->batch : s->prompt_left;
}

/* One step of every busy slot: a piece of its prompt (the whole prompt by default), or a token. */
static void step(const struct sim *m, struct slot *slots)
{
	uint32_t tokens = 0, prompt = 0, context = 0;
	int busy = 0;

	for (int s = 0; s < m->slots; s++) {
		const struct req *r = slots[s].r;
		if (!r)
			continue;
		busy++;
		tokens += chunk(m, &slots[s]);
		prompt |= slots[s].prompt_left > 0;
		if (!slots[s].prompt_left && r->prompt + r->generated > context)
			context = r->prompt + r->generated;
	}
	if (!busy)
		return;
	ggmlviz_step_begin(&ctx, tokens, (uint32_t)busy,
			   prompt ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION, "decode");
	for (int s = 0; s < m->slots; s++)
		if (slots[s].r)
			ggmlviz_step_seq(&ctx, s, chunk(m, &slots[s]), 1,
					 slots[s].prompt_left ? slots[s].r->prompt - slots[s].prompt_left
							      : slots[s].r->prompt + slots[s].r->generated, 0);
	ops(m, tokens, context);
	for (int i = 0; during(m, &m->marks) && i < m->marks.value; i++)
		ggmlviz_mark("trace cost", (uint64_t)i);
	ggmlviz_step_end(&ctx, tokens, (uint32_t)busy,
			 prompt ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION, 0, "decode");
}

/* After a step: pieces of prompts, first tokens, tokens, and the requests that end. */
static void after_step(const struct sim *m, struct slot *slots)
{
	for (int s = 0; s < m->slots; s++) {
		struct req *r = slots[s].r;

		if (!r)
			continue;
		if (slots[s].prompt_left && r->status == GGMLVIZ_REQUEST_FAILED) {
			ggmlviz_request_end(r->id, s, GGMLVIZ_REQUEST_FAILED, 0, 0, 0, NULL);
			slots[s].r = NULL;
			r->ended = 1;
			continue;
		}
		if (slots[s].prompt_left) {
			slots[s].prompt_left -= chunk(m, &slots[s]);
			if (slots[s].prompt_left)
				continue; /* more of its prompt in the next step */
			ggmlviz_request_stage(r->id, s, GGMLVIZ_REQUEST_FIRST_TOKEN, r->prompt, 0);
		}
		if (++r->generated < r->generate)
			continue;
		ggmlviz_request_end(r->id, s, (uint32_t)r->status, r->prompt, 0, r->generated,
				    r->status == GGMLVIZ_REQUEST_DONE ? "limit" : NULL);
		slots[s].r = NULL;
		r->ended = 1;
	}
}

/* Free slots take the oldest requests waiting, wake_us after the loop saw them (--wake-us). */
static void place(struct slot *slots, int n_slots, struct req *reqs, int *next, int arrived,
		  uint64_t wake_us)
{
	int free_slot = 0;

	for (int s = 0; s < n_slots; s++)
		free_slot |= !slots[s].r;
	if (wake_us && free_slot && *next < arrived)
		spin(wake_us * 1000u);
	for (int s = 0; s < n_slots && *next < arrived; s++) {
		if (slots[s].r)
			continue;
		slots[s].r = &reqs[(*next)++];
		slots[s].prompt_left = slots[s].r->prompt;
		ggmlviz_request_stage(slots[s].r->id, s, GGMLVIZ_REQUEST_PROMPT, slots[s].r->prompt, 0);
	}
}

static void memory(int free_it)
{
	static const struct { char *p; uint64_t size; const char *label; } bufs[] = {
		{ &weights_cpu, 25u << 20, "weights CPU" }, { &weights_gpu, 60u << 20, "weights CUDA0" },
		{ &kv_cpu, 2u << 20, "kv_cache CPU" },      { &kv_gpu, 8u << 20, "kv_cache CUDA0" },
	};

	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		if (free_it)
			ggmlviz_tensor_free(bufs[i].p, bufs[i].size, NULL);
		else
			ggmlviz_tensor_alloc(bufs[i].p, bufs[i].size, bufs[i].label);
}

/* The op types' names, as a GGML adapter gives them; the backend's, and the threads. */
static void names(const struct sim *m)
{
	static const char *const op_names[] = { NULL, "RMS_NORM", NULL, "MUL_MAT", "ROPE", "ADD" };
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	for (uint64_t op = 0; op < sizeof op_names / sizeof op_names[0]; op++)
		if (op_names[op])
			ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, op, op_names[op]);
	if (m->fallback.count)
		ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&gpu, "CUDA0");
	if (m->threads)
		ggmlviz_meta(GGMLVIZ_META_THREADS, 0, (uint64_t)m->threads | (uint64_t)m->threads << 32,
			     (uint64_t)(cpus > 0 ? cpus : 1) << 32, NULL);
}

static const char *arg_of(int argc, char **argv, const char *name)
{
	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return argv[i + 1];
	return NULL;
}

static int has_arg(int argc, char **argv, const char *name)
{
	for (int i = 2; i < argc; i++)
		if (!strcmp(argv[i], name))
			return 1;
	return 0;
}

static int arg_int(int argc, char **argv, const char *name, int dflt)
{
	const char *v = arg_of(argc, argv, name);

	return v ? atoi(v) : dflt;
}

/*
 * A range: "FIRST:COUNT:VALUE" (kind 3), "FIRST:COUNT" (2), or "REQ:VALUE"
 * (1: one request); none where the option is not given. 0, or -1 when
 * malformed.
 */
static int arg_range(int argc, char **argv, const char *name, int kind, struct range *r)
{
	const char *v = arg_of(argc, argv, name);

	*r = (struct range){ 0, 0, 0 };
	if (!v)
		return 0;
	if (kind == 3)
		return sscanf(v, "%d:%d:%d", &r->first, &r->count, &r->value) == 3 ? 0 : -1;
	if (kind == 2)
		return sscanf(v, "%d:%d", &r->first, &r->count) == 2 ? 0 : -1;
	r->count = 1;
	return sscanf(v, "%d:%d", &r->first, &r->value) == 2 ? 0 : -1;
}

static volatile sig_atomic_t interrupted;

/* SIGINT or SIGTERM: the run ends where it is, the trace complete (as llama-server's). */
static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* The tracer's setting name from option opt, where given; 0, or -1 said. */
static int setting(int argc, char **argv, const char *opt, const char *name)
{
	const char *v = arg_of(argc, argv, opt);
	int rc;

	if (!v || (rc = ggmlviz_setting_set(name, v)) == 0)
		return 0;
	fprintf(stderr, "gen-server: %s %s: %s\n", opt, v, ggmlviz_strerror(rc));
	return -1;
}

static int parse(int argc, char **argv, struct sim *m)
{
	int wake_us;

	m->n = arg_int(argc, argv, "--requests", 24), m->slots = arg_int(argc, argv, "--slots", 2);
	m->burst = arg_int(argc, argv, "--burst", 3), m->gap_ms = arg_int(argc, argv, "--gap-ms", 30);
	m->step_us = (uint64_t)arg_int(argc, argv, "--step-us", 400);
	m->token_us = (uint64_t)arg_int(argc, argv, "--token-us", 20);
	m->ctx_ns = (uint64_t)arg_int(argc, argv, "--ctx-ns", 0);
	m->threads = arg_int(argc, argv, "--threads", 0);
	m->clients = arg_int(argc, argv, "--clients", 0);
	m->batch = (uint32_t)arg_int(argc, argv, "--batch", 0);
	wake_us = arg_int(argc, argv, "--wake-us", 0);
	m->wake_us = wake_us > 0 ? (uint64_t)wake_us : 0;
	if (arg_range(argc, argv, "--taken", 3, &m->taken) < 0 ||
	    arg_range(argc, argv, "--marks", 3, &m->marks) < 0 ||
	    arg_range(argc, argv, "--fallback", 2, &m->fallback) < 0 ||
	    arg_range(argc, argv, "--long-prompt", 1, &m->long_prompt) < 0 ||
	    arg_range(argc, argv, "--surge", 1, &m->surge) < 0 ||
	    arg_range(argc, argv, "--generate", 1, &m->generate) < 0)
		return -1;
	return argc < 2 || m->n < 1 || m->n > MAX_REQUESTS || m->slots < 1 || m->slots > MAX_SLOTS ||
	       m->burst < 1 || wake_us < 0 || m->taken.value < 0 || m->taken.value > 95 ? -1 : 0;
}

/* The requests: prompts, lengths and endings, and what the command line changed of them. */
static void make_requests(struct sim *m)
{
	for (int i = 0; i < m->n; i++) {
		m->reqs[i] = (struct req){ (uint64_t)i, 8 + 4u * (uint32_t)(i % 5), 6 + 2u * (uint32_t)(i % 4),
					   0, i % 7 == 6 ? GGMLVIZ_REQUEST_FAILED
					      : i % 3 == 2 ? GGMLVIZ_REQUEST_CANCELLED : GGMLVIZ_REQUEST_DONE, 0 };
		if (m->reqs[i].status == GGMLVIZ_REQUEST_CANCELLED)
			m->reqs[i].generate -= 2;
	}
	if (m->long_prompt.count && m->long_prompt.first < m->n)
		m->reqs[m->long_prompt.first].prompt = (uint32_t)m->long_prompt.value;
	if (m->generate.count && m->generate.first < m->n)
		m->reqs[m->generate.first].generate = (uint32_t)m->generate.value;
	for (int i = 0; i < m->n; i++) /* the requests made to show a figure end as asked */
		if ((m->long_prompt.count && i == m->long_prompt.first) ||
		    (m->generate.count && i == m->generate.first))
			m->reqs[i].status = GGMLVIZ_REQUEST_DONE;
}

/* How many requests ended so far. */
static int ended(const struct sim *m)
{
	int n = 0;

	for (int i = 0; i < m->arrived; i++)
		n += m->reqs[i].ended;
	return n;
}

static void begin(struct sim *m)
{
	ggmlviz_request_begin(m->reqs[m->arrived].id, GGMLVIZ_REQUEST_COMPLETION,
			      m->reqs[m->arrived].prompt, "completion");
	m->arrived++;
}

/*
 * The requests due by now arrive: each client's next once its last ended
 * (--clients: the one --surge names with more, after which the clients
 * wait for those too), or a burst every gap, the one --surge names with
 * more.
 */
static void arrive(struct sim *m, uint64_t *next_burst)
{
	while (m->clients && m->arrived < m->n && m->arrived < ended(m) + m->clients) {
		int surge = m->surge.count && m->arrived == m->surge.first ? m->surge.value : 0;

		begin(m);
		for (int k = 0; k < surge && m->arrived < m->n; k++)
			begin(m);
	}
	while (!m->clients && m->arrived < m->n && now_ns() >= *next_burst) {
		int size = m->burst;

		if (m->surge.count && m->surge.first >= m->arrived && m->surge.first < m->arrived + m->burst)
			size += m->surge.value;
		for (int b = 0; b < size && m->arrived < m->n; b++)
			begin(m);
		*next_burst += (uint64_t)m->gap_ms * 1000000u;
	}
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	struct slot slots[MAX_SLOTS] = { { 0 } };
	struct sim m;
	uint64_t next_burst;
	int next = 0, rc;

	if (parse(argc, argv, &m) < 0) {
		fprintf(stderr, "usage: gen-server OUT [--requests N] [--slots S (1 to %d)] [--step-us US]"
			" [--burst B] [--gap-ms MS] [--token-us US] [--ctx-ns NS] [--threads T]"
			" [--taken F:C:PCT (0 to 95)] [--long-prompt R:T] [--surge R:N] [--generate R:N]"
			" [--fallback F:C] [--marks F:C:N] [--clients C] [--flush-ms MS] [--batch B]"
			" [--wake-us US] [--rotate SIZE[:KEEP]] [--flight SPEC] [--flight-on SPEC] [--pack]\n",
			MAX_SLOTS);
		return 2;
	}
	if (!(m.reqs = calloc((size_t)m.n, sizeof *m.reqs)))
		return 1;
	m.arrived = 0;
	make_requests(&m);
	ggmlviz_config_init(&cfg);
	cfg.output = argv[1];
	cfg.memory_tracking = 1;
	cfg.flush_interval_ms = (uint32_t)arg_int(argc, argv, "--flush-ms", (int)cfg.flush_interval_ms);
	if (setting(argc, argv, "--rotate", "rotate") < 0 ||
	    setting(argc, argv, "--flight", "flight") < 0 ||
	    setting(argc, argv, "--flight-on", "flight_on") < 0 ||
	    (has_arg(argc, argv, "--pack") && ggmlviz_setting_set("pack", "1") < 0))
		return 2;
	if ((rc = ggmlviz_start(&cfg)) < 0) {
		fprintf(stderr, "gen-server: %s: %s\n", argv[1], ggmlviz_strerror(rc));
		return 1;
	}
	names(&m);
	memory(0);
	next_burst = now_ns();
	signal(SIGINT, on_interrupt);
	signal(SIGTERM, on_interrupt);
	while (!interrupted) {
		int busy = 0;

		arrive(&m, &next_burst);
		place(slots, m.slots, m.reqs, &next, m.arrived, m.wake_us);
		step(&m, slots);
		after_step(&m, slots);
		for (int s = 0; s < m.slots; s++)
			busy += slots[s].r != NULL;
		if (!busy && next == m.n)
			break;
		if (!busy) /* idle until the next burst */
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	memory(1);
	rc = ggmlviz_stop();
	free(m.reqs);
	return rc < 0 ? 1 : 0;
}
