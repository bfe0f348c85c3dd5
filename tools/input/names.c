/*
 * Names for what a trace identifies by number: ops (the trace's OP_NAME
 * records, since enum ggml_op changes between ggml versions), backends,
 * threads; and the layer of a llama.cpp tensor name.
 *
 * A command that reads a trace twice makes its first pass on a reader of
 * its own and closes it, so that none of its pages stay mapped; the names
 * that pass found for the ops, backends and threads it saw are kept here,
 * and used when the second reader has not read them yet.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/anon.h"
#include "base/htab.h"
#include "input/input.h"

enum { NAME_OP, NAME_BACKEND, NAME_THREAD };

struct known {
	int kind;
	uint64_t id;
	char *name; /* NULL until learnt, or when the trace has none */
};

void cli_names_init(struct cli_names *n, struct cli_anon *anon)
{
	*n = (struct cli_names){ .ops_named = -1, .anon = anon };
}

static bool known_eq(const void *item, const void *key)
{
	const struct known *a = item, *b = key;

	return a->kind == b->kind && a->id == b->id;
}

static uint64_t known_hash(const struct known *k)
{
	return cli_hash_u64(k->id ^ (uint64_t)k->kind << 62);
}

static const char *known_name(const struct cli_names *n, int kind, uint64_t id)
{
	struct known key = { kind, id, NULL }, *k;

	k = cli_htab_find(&n->known, known_hash(&key), known_eq, &key);
	return k ? k->name : NULL;
}

static void note(struct cli_names *n, int kind, uint64_t id)
{
	struct known key = { kind, id, NULL }, *k;

	if (cli_htab_find(&n->known, known_hash(&key), known_eq, &key) ||
	    n->known.count >= 3 * (size_t)GGMLVIZ_READER_MAX_NAMES)
		return; /* past the reader's own limit: the name is looked up there only */
	k = malloc(sizeof *k);
	if (k && (*k = key, cli_htab_add(&n->known, known_hash(k), k) < 0))
		free(k); /* the name is then looked up only in the second reader */
}

void cli_names_note(struct cli_names *n, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_OP_NAME)
		n->ops_named = 1;
	if (ev->type >= GGMLVIZ_EVENT_META)
		n->ours = true; /* the original writer wrote types 0 to 8 only */
	note(n, NAME_THREAD, ev->thread_id);
	if (ev->type == GGMLVIZ_EVENT_OP_COMPUTE_BEGIN) {
		note(n, NAME_OP, ev->data.op.op_type);
		note(n, NAME_BACKEND, ev->data.op.backend_ptr);
	} else if (ev->type == GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN) {
		note(n, NAME_BACKEND, ev->data.graph.backend_ptr);
	} else if (ev->type == GGMLVIZ_EVENT_META &&
		   ev->data.meta.kind == GGMLVIZ_META_THREAD_NAME) {
		note(n, NAME_THREAD, (uint32_t)ev->data.meta.key);
	}
}

void cli_names_learn(struct cli_names *n, const struct ggmlviz_reader *r)
{
	struct known *k;
	size_t cursor = 0;

	if (n->ops_named < 0)
		n->ops_named = 0; /* the first pass read it all and met no OP_NAME */
	while ((k = cli_htab_next(&n->known, &cursor))) {
		const char *name = k->kind == NAME_OP ? ggmlviz_reader_op_name(r, (uint32_t)k->id)
				   : k->kind == NAME_BACKEND ? ggmlviz_reader_backend_name(r, k->id)
				   : ggmlviz_reader_thread_name(r, (uint32_t)k->id);
		if (name && !k->name)
			k->name = strdup(name);
	}
}

void cli_names_free(struct cli_names *n)
{
	struct known *k;
	size_t cursor = 0;

	if (!n)
		return;
	while ((k = cli_htab_next(&n->known, &cursor))) {
		free(k->name);
		free(k);
	}
	cli_htab_free(&n->known);
	cli_names_init(n, n->anon);
}

void cli_names_ours(struct cli_names *n)
{
	n->ours = true;
}

void cli_names_decide(struct cli_names *n, bool any_named)
{
	if (n->ops_named < 0)
		n->ops_named = any_named;
}

/* A part of a fused op: the trace's name, one a first pass kept, or "op#N" in spare. */
static const char *part_name(struct cli_names *n, const struct ggmlviz_reader *r, uint32_t op,
			     char spare[16])
{
	const char *name = ggmlviz_reader_op_name(r, op);

	if (name || (name = known_name(n, NAME_OP, op)))
		return name;
	snprintf(spare, 16, "op#%" PRIu32, op);
	return spare;
}

/* A fused op's name from its parts' ("RMS_NORM+MUL", "MUL_MAT+op#100", as
 * ggmlviz_reader_write_op_name() writes it, with the names a first pass kept). */
static const char *fused_name(struct cli_names *n, const struct ggmlviz_reader *r,
			      uint32_t op_type, char buf[CLI_OP_NAME_MAX])
{
	char a[16], b[16];
	int len = snprintf(buf, CLI_OP_NAME_MAX, "%s+%s",
			   part_name(n, r, GGMLVIZ_OP_TYPE_FIRST(op_type), a),
			   part_name(n, r, GGMLVIZ_OP_TYPE_SECOND(op_type), b));

	return len < 0 ? "?" : buf; /* two names of GGML's, however long, fit whole */
}

const char *cli_op_name(struct cli_names *n, const struct ggmlviz_reader *r, uint32_t op_type,
			char buf[CLI_OP_NAME_MAX])
{
	const char *name = ggmlviz_reader_op_name(r, op_type);

	if (op_type == CLI_OP_RUN_START)
		return "(run start)"; /* told apart from a run's first op (stats/ticks.h) */
	if (name || (name = known_name(n, NAME_OP, op_type)))
		return name;
	if (op_type & GGMLVIZ_OP_TYPE_FUSED)
		return fused_name(n, r, op_type, buf);
	if (n->ops_named == 0 && !n->ours && (name = cli_assumed_op_name(op_type))) {
		n->assumed = true; /* the trace names no op: said wherever it is used */
		return name;
	}
	snprintf(buf, CLI_OP_NAME_MAX, "op#%" PRIu32, op_type);
	return buf;
}

const char *cli_backend_name(const struct cli_names *n, const struct ggmlviz_reader *r,
			     uint64_t ptr, char buf[24])
{
	const char *name = ggmlviz_reader_backend_name(r, ptr);

	if (name || (name = known_name(n, NAME_BACKEND, ptr)))
		return name;
	if (!ptr)
		return "CPU";
	snprintf(buf, 24, "0x%" PRIx64, cli_anon(n->anon, ptr));
	return buf;
}

const char *cli_thread_label(const struct cli_names *n, const struct ggmlviz_reader *r,
			     uint32_t tid, char *buf, size_t size)
{
	const char *name = ggmlviz_reader_thread_name(r, tid);

	if ((name || (name = known_name(n, NAME_THREAD, tid))) && (tid & 0x80000000u))
		snprintf(buf, size, "%s", name); /* a GPU track: its id is not a thread's */
	else if (name)
		snprintf(buf, size, "%s (%" PRIu32 ")", name, tid);
	else
		snprintf(buf, size, "%" PRIu32, tid);
	return buf;
}

const char *cli_kernel_name(const char *s, size_t len, char buf[96])
{
	size_t i = 2, n = 0;

	if (len > 2 && s[0] == '_' && s[1] == 'Z') {
		i += i < len && s[i] == 'L'; /* a kernel of internal linkage */
		while (i < len && s[i] >= '0' && s[i] <= '9' && n < 1000)
			n = n * 10 + (size_t)(s[i++] - '0');
		if (n > 0 && i + n <= len) {
			snprintf(buf, 96, "%.*s", (int)n, s + i);
			return buf;
		}
	}
	snprintf(buf, 96, "%.*s", (int)(len < 95 ? len : 95), s ? s : "");
	return buf;
}

const char *cli_phase_name(uint32_t phase)
{
	static const char *const names[CLI_PHASES] = { "unknown", "prompt", "generation", "encode" };

	return phase < CLI_PHASES ? names[phase] : "unknown";
}

uint64_t cli_layer_key(const struct ggmlviz_timing *t)
{
	uint64_t stack = t->node_flags & GGMLVIZ_NODE_ENCODER	? 1
			 : t->node_flags & GGMLVIZ_NODE_DECODER ? 2
								: 0;

	return t->layer < 0 ? 0 : ((uint64_t)t->layer + 1) | stack << 32;
}

const char *cli_layer_name(uint64_t key, char *buf, size_t cap)
{
	static const char *const stacks[] = { "", "enc.", "dec." };
	uint64_t stack = key >> 32;

	if (!key)
		return "(none)";
	snprintf(buf, cap, "%s%" PRIu64, stack < 3 ? stacks[stack] : "", (key & 0xffffffffu) - 1);
	return buf;
}

uint32_t cli_layer_slot(uint64_t key)
{
	uint64_t layer = (key & 0xffffffffu) - 1, stack = key >> 32;

	return !key || layer > (UINT32_MAX - 3) / 3 ? 0 : 1 + (uint32_t)(3 * layer + stack % 3);
}

uint64_t cli_layer_of_slot(uint32_t slot)
{
	return !slot ? 0 : ((uint64_t)(slot - 1) / 3 + 1) | (uint64_t)((slot - 1) % 3) << 32;
}

const char *cli_request_kind(uint32_t kind)
{
	static const char *const names[] = { "other", "completion", "embedding", "rerank", "infill",
					     "transcription" };

	return kind < sizeof names / sizeof names[0] ? names[kind] : "other";
}

const char *cli_request_status(int32_t status)
{
	static const char *const names[] = { "done", "cancelled", "failed" };

	return status >= 0 && status < 3 ? names[status] : "unknown";
}

bool cli_step_is_housekeeping(const struct ggmlviz_timing *t)
{
	return t->kind == GGMLVIZ_TIMING_STEP && t->label &&
	       ((t->label_len == 6 && !memcmp(t->label, "warmup", 6)) ||
		(t->label_len == 5 && !memcmp(t->label, "probe", 5)));
}
