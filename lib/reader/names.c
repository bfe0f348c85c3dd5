/*
 * The reader's name tables: op types, backends and threads named by META
 * records, kept as NUL-terminated copies until the reader closes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/reader.h>

#include "names.h"
#include "reader.h"

static struct ggmlviz__name *name_from(uint64_t value)
{
	return (struct ggmlviz__name *)(uintptr_t)value;
}

static int table_of(uint32_t kind)
{
	switch (kind) {
	case GGMLVIZ_META_OP_NAME:
		return GGMLVIZ__NAMES_OP;
	case GGMLVIZ_META_BACKEND_NAME:
		return GGMLVIZ__NAMES_BACKEND;
	case GGMLVIZ_META_THREAD_NAME:
		return GGMLVIZ__NAMES_THREAD;
	default:
		return -1;
	}
}

/* Whether the name stored already reads exactly label (traces repeat names). */
static int same_name(const struct ggmlviz__name *n, const char *label, uint32_t len)
{
	return n->length == len && memcmp(n->text, label, len) == 0;
}

/* Whether one more name of len bytes stays within the limits (reader.h). */
static int room_for(const struct ggmlviz_reader *r, int table, bool created, uint32_t len)
{
	if (created && ggmlviz__map_count(&r->names[table]) > GGMLVIZ_READER_MAX_NAMES)
		return 0;
	return r->name_bytes + len <= GGMLVIZ__NAME_BYTES;
}

int ggmlviz__names_update(struct ggmlviz_reader *r, const struct ggmlviz_event *ev)
{
	int thread_begin = ev->type == GGMLVIZ_EVENT_THREAD_BEGIN;
	int table = thread_begin ? GGMLVIZ__NAMES_THREAD : table_of(ev->data.meta.kind);
	uint64_t key = thread_begin ? ev->thread_id : ev->data.meta.key;
	uint32_t len = ev->label_len < GGMLVIZ_READER_NAME_MAX ? ev->label_len
							       : GGMLVIZ_READER_NAME_MAX;
	struct ggmlviz__name *name, *old;
	uint64_t *slot;
	bool created;

	if (table < 0 || !ev->label || (thread_begin && ev->label_len == 0))
		return 0;
	slot = ggmlviz__map_insert(&r->names[table], key, &created);
	if (!slot)
		return -ENOMEM;
	old = created ? NULL : name_from(*slot);
	if (old && same_name(old, ev->label, len))
		return 0;
	if (!room_for(r, table, created, len)) {
		if (created)
			ggmlviz__map_remove(&r->names[table], key);
		r->names_dropped++; /* past the limits: the name is not kept */
		return 0;
	}
	name = malloc(sizeof *name + len + 1);
	if (!name) {
		if (created)
			ggmlviz__map_remove(&r->names[table], key);
		return -ENOMEM;
	}
	memcpy(name->text, ev->label, len);
	name->text[len] = '\0';
	name->replaced_next = NULL;
	name->length = len;
	r->name_bytes += sizeof *name + len + 1;
	if (old) {
		/* callers may still hold the old string: it lives until close */
		old->replaced_next = r->replaced;
		r->replaced = old;
	}
	*slot = (uint64_t)(uintptr_t)name;
	return 0;
}

const char *ggmlviz__names_get(const struct ggmlviz_reader *r, enum ggmlviz__name_table table,
			       uint64_t key)
{
	uint64_t value;

	return ggmlviz__map_get(&r->names[table], key, &value) ? name_from(value)->text : NULL;
}

void ggmlviz__names_release(struct ggmlviz_reader *r)
{
	struct ggmlviz__name *n, *next;
	uint64_t key, value;

	for (int t = 0; t < GGMLVIZ__NAMES_COUNT; t++) {
		size_t cursor = 0;
		while (ggmlviz__map_next(&r->names[t], &cursor, &key, &value))
			free(name_from(value));
		ggmlviz__map_release(&r->names[t]);
	}
	for (n = r->replaced; n; n = next) {
		next = n->replaced_next;
		free(n);
	}
	r->replaced = NULL;
}

const char *ggmlviz_reader_op_name(const struct ggmlviz_reader *r, uint32_t op_type)
{
	return ggmlviz__names_get(r, GGMLVIZ__NAMES_OP, op_type);
}

/* An op type's name, or "op#N" in spare (a part of a fused pair's name). */
static const char *name_or_number(const struct ggmlviz_reader *r, uint32_t op_type, char spare[16])
{
	const char *name = ggmlviz_reader_op_name(r, op_type);

	if (name)
		return name;
	snprintf(spare, 16, "op#%" PRIu32, op_type);
	return spare;
}

int ggmlviz_reader_write_op_name(const struct ggmlviz_reader *r, uint32_t op_type, char *buf,
				 size_t size)
{
	char first[16], second[16];

	if (!r || (!buf && size))
		return -EINVAL;
	if (!(op_type & GGMLVIZ_OP_TYPE_FUSED) || ggmlviz_reader_op_name(r, op_type))
		return snprintf(buf, size, "%s", name_or_number(r, op_type, first));
	return snprintf(buf, size, "%s+%s", name_or_number(r, GGMLVIZ_OP_TYPE_FIRST(op_type), first),
			name_or_number(r, GGMLVIZ_OP_TYPE_SECOND(op_type), second));
}

const char *ggmlviz_reader_backend_name(const struct ggmlviz_reader *r, uint64_t backend_ptr)
{
	return ggmlviz__names_get(r, GGMLVIZ__NAMES_BACKEND, backend_ptr);
}

const char *ggmlviz_reader_thread_name(const struct ggmlviz_reader *r, uint32_t thread_id)
{
	return ggmlviz__names_get(r, GGMLVIZ__NAMES_THREAD, thread_id);
}
