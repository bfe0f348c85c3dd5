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

#include "anon.h"
#include "htab.h"
#include "names.h"

enum { NAME_OP, NAME_BACKEND, NAME_THREAD };

struct known {
	int kind;
	uint64_t id;
	char *name; /* NULL until learnt, or when the trace has none */
};

static struct cli_htab known;
static int ops_named = -1; /* the trace names its ops: 1, 0; -1 not known yet */
static bool assumed;       /* a name of the assumed numbering was given */

static bool known_eq(const void *item, const void *key)
{
	const struct known *a = item, *b = key;

	return a->kind == b->kind && a->id == b->id;
}

static uint64_t known_hash(const struct known *k)
{
	return cli_hash_u64(k->id ^ (uint64_t)k->kind << 62);
}

static const char *known_name(int kind, uint64_t id)
{
	struct known key = { kind, id, NULL }, *k;

	k = cli_htab_find(&known, known_hash(&key), known_eq, &key);
	return k ? k->name : NULL;
}

static void note(int kind, uint64_t id)
{
	struct known key = { kind, id, NULL }, *k;

	if (cli_htab_find(&known, known_hash(&key), known_eq, &key) ||
	    known.count >= 3 * (size_t)GGMLVIZ_READER_MAX_NAMES)
		return; /* past the reader's own limit: the name is looked up there only */
	k = malloc(sizeof *k);
	if (k && (*k = key, cli_htab_add(&known, known_hash(k), k) < 0))
		free(k); /* the name is then looked up only in the second reader */
}

void cli_names_note(const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_OP_NAME)
		ops_named = 1;
	note(NAME_THREAD, ev->thread_id);
	if (ev->type == GGMLVIZ_EVENT_OP_COMPUTE_BEGIN) {
		note(NAME_OP, ev->data.op.op_type);
		note(NAME_BACKEND, ev->data.op.backend_ptr);
	} else if (ev->type == GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN) {
		note(NAME_BACKEND, ev->data.graph.backend_ptr);
	} else if (ev->type == GGMLVIZ_EVENT_META &&
		   ev->data.meta.kind == GGMLVIZ_META_THREAD_NAME) {
		note(NAME_THREAD, (uint32_t)ev->data.meta.key);
	}
}

void cli_names_learn(const struct ggmlviz_reader *r)
{
	struct known *k;
	size_t cursor = 0;

	if (ops_named < 0)
		ops_named = 0; /* the first pass read it all and met no OP_NAME */
	while ((k = cli_htab_next(&known, &cursor))) {
		const char *name = k->kind == NAME_OP ? ggmlviz_reader_op_name(r, (uint32_t)k->id)
				   : k->kind == NAME_BACKEND ? ggmlviz_reader_backend_name(r, k->id)
				   : ggmlviz_reader_thread_name(r, (uint32_t)k->id);
		if (name && !k->name)
			k->name = strdup(name);
	}
}

void cli_names_forget(void)
{
	struct known *k;
	size_t cursor = 0;

	while ((k = cli_htab_next(&known, &cursor))) {
		free(k->name);
		free(k);
	}
	cli_htab_free(&known);
	ops_named = -1;
	assumed = false;
}

void cli_names_decide(bool any_named)
{
	if (ops_named < 0)
		ops_named = any_named;
}

bool cli_op_names_assumed(void)
{
	return assumed;
}

const char *cli_op_name(const struct ggmlviz_reader *r, uint32_t op_type, char buf[24])
{
	const char *name = ggmlviz_reader_op_name(r, op_type);

	if (name || (name = known_name(NAME_OP, op_type)))
		return name;
	if (ops_named == 0 && (name = cli_assumed_op_name(op_type))) {
		assumed = true; /* the trace names no op: said wherever it is used */
		return name;
	}
	snprintf(buf, 24, "op#%" PRIu32, op_type);
	return buf;
}

const char *cli_backend_name(const struct ggmlviz_reader *r, uint64_t ptr, char buf[24])
{
	const char *name = ggmlviz_reader_backend_name(r, ptr);

	if (name || (name = known_name(NAME_BACKEND, ptr)))
		return name;
	if (!ptr)
		return "CPU";
	snprintf(buf, 24, "0x%" PRIx64, cli_anon(ptr));
	return buf;
}

const char *cli_thread_label(const struct ggmlviz_reader *r, uint32_t tid, char *buf,
				  size_t size)
{
	const char *name = ggmlviz_reader_thread_name(r, tid);

	if (name || (name = known_name(NAME_THREAD, tid)))
		snprintf(buf, size, "%s (%" PRIu32 ")", name, tid);
	else
		snprintf(buf, size, "%" PRIu32, tid);
	return buf;
}
