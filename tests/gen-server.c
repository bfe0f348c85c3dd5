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
 *                  [--gap-ms MS]
 *
 * Defaults: 24 requests, 2 slots, steps of 400 us plus 20 us a token,
 * bursts of 3 requests 30 ms apart. The trace ends complete (its stop).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ggmlviz/tracer.h>

#define MAX_SLOTS 16
#define MAX_REQUESTS 100000

struct req {
	uint64_t id;
	uint32_t prompt, generate, generated;
	int status; /* GGMLVIZ_REQUEST_DONE, _CANCELLED, _FAILED */
};

struct slot {
	struct req *r; /* NULL: free */
	int prompt_done;
};

static char ctx, weights_cpu, weights_gpu, kv_cpu, kv_gpu; /* their addresses name them */

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

static void ops(uint32_t tokens, uint64_t step_us)
{
	static const struct { uint32_t op; const char *name; unsigned share; } kinds[] = {
		{ 1, "attn_norm", 1 }, { 3, "Qcur", 4 }, { 4, "Qcur (rope)", 1 }, { 5, "ffn_out", 2 },
	};
	uint64_t ns = (step_us + 20u * tokens) * 1000u / 16u;

	for (int layer = 0; layer < 2; layer++)
		for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
			char label[32];
			const void *t = (const void *)(uintptr_t)(0x1000 + 64 * (layer * 4 + (int)k));

			snprintf(label, sizeof label, "%s-%d", kinds[k].name, layer);
			ggmlviz_op_begin(t, kinds[k].op, 4096, NULL, label);
			spin(ns * kinds[k].share);
			ggmlviz_op_end(t, kinds[k].op, 4096, NULL, label);
		}
}

/* One step of every busy slot: a prompt whole, or a token. */
static void step(struct slot *slots, int n_slots, uint64_t step_us)
{
	uint32_t tokens = 0, prompt = 0;
	int busy = 0;

	for (int s = 0; s < n_slots; s++) {
		if (!slots[s].r)
			continue;
		busy++;
		tokens += slots[s].prompt_done ? 1 : slots[s].r->prompt;
		prompt |= !slots[s].prompt_done;
	}
	if (!busy)
		return;
	ggmlviz_step_begin(&ctx, tokens, (uint32_t)busy,
			   prompt ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION, "decode");
	for (int s = 0; s < n_slots; s++)
		if (slots[s].r)
			ggmlviz_step_seq(&ctx, s, slots[s].prompt_done ? 1 : slots[s].r->prompt, 1,
					 slots[s].prompt_done ? slots[s].r->prompt + slots[s].r->generated : 0,
					 0);
	ops(tokens, step_us);
	ggmlviz_step_end(&ctx, tokens, (uint32_t)busy,
			 prompt ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION, 0, "decode");
}

/* After a step: first tokens, tokens, and the requests that end. */
static void after_step(struct slot *slots, int n_slots)
{
	for (int s = 0; s < n_slots; s++) {
		struct req *r = slots[s].r;

		if (!r)
			continue;
		if (!slots[s].prompt_done && r->status == GGMLVIZ_REQUEST_FAILED) {
			ggmlviz_request_end(r->id, s, GGMLVIZ_REQUEST_FAILED, 0, 0, 0, NULL);
			slots[s].r = NULL;
			continue;
		}
		if (!slots[s].prompt_done)
			ggmlviz_request_stage(r->id, s, GGMLVIZ_REQUEST_FIRST_TOKEN, r->prompt, 0);
		slots[s].prompt_done = 1;
		if (++r->generated < r->generate)
			continue;
		ggmlviz_request_end(r->id, s, (uint32_t)r->status, r->prompt, 0, r->generated,
				    r->status == GGMLVIZ_REQUEST_DONE ? "limit" : NULL);
		slots[s].r = NULL;
	}
}

/* Free slots take the oldest requests waiting. */
static void place(struct slot *slots, int n_slots, struct req *reqs, int *next, int arrived)
{
	for (int s = 0; s < n_slots && *next < arrived; s++) {
		if (slots[s].r)
			continue;
		slots[s].r = &reqs[(*next)++];
		slots[s].prompt_done = 0;
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

/* The op types' names, as a GGML adapter gives them. */
static void names(void)
{
	static const char *const op_names[] = { NULL, "RMS_NORM", NULL, "MUL_MAT", "ROPE", "ADD" };

	for (uint64_t op = 0; op < sizeof op_names / sizeof op_names[0]; op++)
		if (op_names[op])
			ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, op, op_names[op]);
}

static int arg_int(int argc, char **argv, const char *name, int dflt)
{
	for (int i = 2; i + 1 < argc; i++)
		if (!strcmp(argv[i], name))
			return atoi(argv[i + 1]);
	return dflt;
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	struct slot slots[MAX_SLOTS] = { { 0 } };
	struct req *reqs;
	int n = arg_int(argc, argv, "--requests", 24), n_slots = arg_int(argc, argv, "--slots", 2);
	int burst = arg_int(argc, argv, "--burst", 3), gap_ms = arg_int(argc, argv, "--gap-ms", 30);
	uint64_t step_us = (uint64_t)arg_int(argc, argv, "--step-us", 400), next_burst;
	int arrived = 0, next = 0, rc;

	if (argc < 2 || n < 1 || n > MAX_REQUESTS || n_slots < 1 || n_slots > MAX_SLOTS || burst < 1) {
		fprintf(stderr, "usage: gen-server OUT [--requests N] [--slots S (1 to %d)] [--step-us US]"
			" [--burst B] [--gap-ms MS]\n", MAX_SLOTS);
		return 2;
	}
	if (!(reqs = calloc((size_t)n, sizeof *reqs)))
		return 1;
	for (int i = 0; i < n; i++)
		reqs[i] = (struct req){ (uint64_t)i, 8 + 4u * (uint32_t)(i % 5), 6 + 2u * (uint32_t)(i % 4),
					0, i % 7 == 6 ? GGMLVIZ_REQUEST_FAILED
					   : i % 3 == 2 ? GGMLVIZ_REQUEST_CANCELLED : GGMLVIZ_REQUEST_DONE };
	for (int i = 0; i < n; i++)
		if (reqs[i].status == GGMLVIZ_REQUEST_CANCELLED)
			reqs[i].generate -= 2;
	ggmlviz_config_init(&cfg);
	cfg.output = argv[1];
	cfg.memory_tracking = 1;
	if ((rc = ggmlviz_start(&cfg)) < 0) {
		fprintf(stderr, "gen-server: %s: %s\n", argv[1], ggmlviz_strerror(rc));
		return 1;
	}
	names();
	memory(0);
	next_burst = now_ns();
	for (;;) {
		int busy = 0;

		while (arrived < n && now_ns() >= next_burst) {
			for (int b = 0; b < burst && arrived < n; b++, arrived++)
				ggmlviz_request_begin(reqs[arrived].id, GGMLVIZ_REQUEST_COMPLETION,
						      reqs[arrived].prompt, "completion");
			next_burst += (uint64_t)gap_ms * 1000000u;
		}
		place(slots, n_slots, reqs, &next, arrived);
		step(slots, n_slots, step_us);
		after_step(slots, n_slots);
		for (int s = 0; s < n_slots; s++)
			busy += slots[s].r != NULL;
		if (!busy && next == n)
			break;
		if (!busy) /* idle until the next burst */
			nanosleep(&(struct timespec){ 0, 100000 }, NULL);
	}
	memory(1);
	rc = ggmlviz_stop();
	free(reqs);
	return rc < 0 ? 1 : 0;
}
