/*
 * Memory by device and part (memory.h): the backend buffers the adapters
 * record with memory tracking on (TENSOR_ALLOC "weights CPU_Mapped",
 * "kv_cache Vulkan0", "compute CUDA0"), each on the device its META DEVICE
 * names (else, from a writer older than that record, its buffer's name),
 * summed by what they hold, with each device's peak of live bytes and its
 * memory where the trace says it. What info and stats print, and what
 * advise's near-full finding reads.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/input.h"
#include "memory/memory.h"

const char *const cli_mem_role_names[CLI_MEM_ROLES] = { "weights", "KV cache", "compute",
							 "other" };

/* A buffer live now: its device, its part, its bytes. */
struct buffer {
	uint64_t ptr, size;
	int device, role; /* device -1: not known yet (pending) */
	char name[32];    /* its buffer's name ("CPU_Mapped"), the device where none is said */
};

static bool buffer_eq(const void *item, const void *key)
{
	return ((const struct buffer *)item)->ptr == *(const uint64_t *)key;
}

/* The part a buffer's label says ("weights CPU_Mapped"), and where its buffer's name starts. */
static int role_of(const char *label, size_t len, size_t *rest)
{
	static const struct {
		const char *word;
		int role;
	} roles[] = { { "weights ", CLI_MEM_WEIGHTS }, { "kv_cache ", CLI_MEM_KV },
		      { "compute ", CLI_MEM_COMPUTE }, { "buffer ", CLI_MEM_OTHER } };

	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++) {
		size_t n = strlen(roles[i].word);
		if (len > n && !memcmp(label, roles[i].word, n)) {
			*rest = n;
			return roles[i].role;
		}
	}
	*rest = len;
	return CLI_MEM_OTHER;
}

/* The device named name (made if new; the last one past CLI_MEM_DEVICES). */
static int device_of(struct cli_mem_devices *m, const char *name, size_t len)
{
	char buf[sizeof m->d[0].name];
	size_t n = len < sizeof buf - 1 ? len : sizeof buf - 1;

	memcpy(buf, name, n);
	buf[n] = '\0';
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->d[i].name, buf))
			return (int)i;
	if (m->n == CLI_MEM_DEVICES) {
		m->devices_over++;
		return CLI_MEM_DEVICES - 1;
	}
	memcpy(m->d[m->n].name, buf, n + 1);
	return (int)m->n++;
}

static void live(struct cli_mem_devices *m, int dev, int role, int64_t bytes)
{
	struct cli_mem_device *d = &m->d[dev];

	d->live += (uint64_t)bytes;
	d->role_live[role] += (uint64_t)bytes;
	if (d->role_live[role] > d->role_peak[role])
		d->role_peak[role] = d->role_live[role];
	if (d->live > d->peak) {
		d->peak = d->live;
		memcpy(d->at_peak, d->role_live, sizeof d->at_peak);
	}
}

/*
 * The buffer recorded last, counted on its device now: META DEVICE follows
 * its TENSOR_ALLOC on the same thread, so a buffer waits for the next
 * memory record before its buffer's name is taken as its device.
 */
static void settle(struct cli_mem_devices *m)
{
	struct buffer *b = m->pending;

	m->pending = NULL;
	if (!b)
		return;
	if (b->device < 0)
		b->device = device_of(m, b->name, strlen(b->name));
	live(m, b->device, b->role, (int64_t)b->size);
}

static void on_alloc(struct cli_mem_devices *m, const struct ggmlviz_event *ev)
{
	uint64_t ptr = ev->data.memory.ptr, hash = cli_hash_u64(ptr);
	struct buffer *b;
	size_t rest, n;
	int role = role_of(ev->label ? ev->label : "", ev->label_len, &rest);

	settle(m);
	m->any = true;
	b = cli_htab_find(&m->live, hash, buffer_eq, &ptr);
	if (b) { /* allocated again while live: the old one is gone */
		live(m, b->device, b->role, -(int64_t)b->size);
	} else {
		if (m->live.count >= CLI_MEM_DEVICE_BUFFERS) { /* hostile: counted, not followed */
			m->untracked++;
			return;
		}
		if (!(b = calloc(1, sizeof *b)) || cli_htab_add(&m->live, hash, b) < 0) {
			free(b);
			m->error = -ENOMEM;
			return;
		}
	}
	b->ptr = ptr, b->size = ev->data.memory.size, b->role = role, b->device = -1;
	if (rest < ev->label_len) { /* a buffer an adapter recorded: its buffer's name */
		n = ev->label_len - rest < sizeof b->name - 1 ? ev->label_len - rest : sizeof b->name - 1;
		memcpy(b->name, ev->label + rest, n);
		b->name[n] = '\0';
	} else {
		snprintf(b->name, sizeof b->name, "(not said)");
	}
	m->pending = b;
}

static void on_free(struct cli_mem_devices *m, const struct ggmlviz_event *ev)
{
	uint64_t ptr = ev->data.memory.ptr;
	struct buffer *b;

	settle(m);
	b = cli_htab_remove(&m->live, cli_hash_u64(ptr), buffer_eq, &ptr);
	if (!b)
		return;
	live(m, b->device, b->role, -(int64_t)b->size);
	free(b);
}

/*
 * META DEVICE, right after its buffer's TENSOR_ALLOC: the buffer moves to
 * the device it names, which learns its memory.
 */
static void on_device(struct cli_mem_devices *m, const struct ggmlviz_event *ev)
{
	uint64_t ptr = ev->data.meta.key;
	struct buffer *b = cli_htab_find(&m->live, cli_hash_u64(ptr), buffer_eq, &ptr);
	int dev;

	m->devices_said = true;
	if (!b || !ev->label_len)
		return;
	dev = device_of(m, ev->label, ev->label_len);
	if (b == m->pending) {
		b->device = dev;
		settle(m);
	} else if (dev != b->device) { /* said late: moved */
		live(m, b->device, b->role, -(int64_t)b->size);
		b->device = dev;
		live(m, dev, b->role, (int64_t)b->size);
	}
	if (ev->data.meta.value) { /* the least free of its buffers' first uses */
		struct cli_mem_device *d = &m->d[dev];
		d->free_seen = d->total && d->free_seen < ev->data.meta.value2 ? d->free_seen
									       : ev->data.meta.value2;
		d->total = ev->data.meta.value;
	}
}

void cli_mem_devices_event(struct cli_mem_devices *m, const struct ggmlviz_event *ev)
{
	if (ev->type == GGMLVIZ_EVENT_TENSOR_ALLOC)
		on_alloc(m, ev);
	else if (ev->type == GGMLVIZ_EVENT_TENSOR_FREE)
		on_free(m, ev);
	else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_DEVICE)
		on_device(m, ev);
}

int cli_mem_devices_read(const char *path, struct cli_mem_devices *m)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	memset(m, 0, sizeof *m);
	if (cli_path_reopen(path, &r) < 0)
		return -1;
	while (!m->error && ggmlviz_reader_next(r, &ev) == 1)
		cli_mem_devices_event(m, &ev);
	cli_mem_devices_end(m);
	ggmlviz_reader_close(r);
	return m->error;
}

void cli_mem_devices_end(struct cli_mem_devices *m)
{
	settle(m);
}

void cli_mem_devices_free(struct cli_mem_devices *m)
{
	cli_htab_free_all(&m->live);
}

void cli_mem_devices_text(struct cli_out *o, const struct cli_mem_devices *m, const char *indent)
{
	char b[3][32];

	for (size_t i = 0; i < m->n; i++) {
		const struct cli_mem_device *d = &m->d[i];
		bool first = true;

		char *name = cli_text_dup(d->name, strlen(d->name)); /* the trace's bytes, escaped */

		cli_out_printf(o, "%s%-10s", indent, name ? name : "?");
		free(name);
		for (int r = 0; r < CLI_MEM_ROLES; r++)
			if (d->role_peak[r]) {
				cli_out_printf(o, "%s%s %s", first ? " " : ", ", cli_mem_role_names[r],
					       cli_fmt_bytes(d->role_peak[r], b[0]));
				first = false;
			}
		cli_out_printf(o, "; peak %s", cli_fmt_bytes(d->peak, b[0]));
		if (d->total)
			cli_out_printf(o, " of its %s (%.1f%%), %s free at least",
				       cli_fmt_bytes(d->total, b[1]), 100.0 * (double)d->peak / (double)d->total,
				       cli_fmt_bytes(d->free_seen, b[2]));
		cli_out_char(o, '\n');
	}
	if (m->n && !m->devices_said)
		cli_out_printf(o, "%s(no META DEVICE: each buffer under its own name, its device's memory"
			       " not said: a writer older than that record)\n", indent);
	if (m->untracked)
		cli_out_printf(o, "%s(%" PRIu64 " allocations past the %d live ones followed: in no"
			       " figure here)\n", indent, m->untracked, CLI_MEM_DEVICE_BUFFERS);
	if (m->devices_over)
		cli_out_printf(o, "%s(%" PRIu64 " buffers of devices past the first %d, counted in the"
			       " last)\n", indent, m->devices_over, CLI_MEM_DEVICES);
}

void cli_mem_devices_json(struct cli_out *o, const struct cli_mem_devices *m)
{
	static const char *const keys[CLI_MEM_ROLES] = { "weights", "kv_cache", "compute", "other" };

	cli_out_str(o, "[");
	for (size_t i = 0; i < m->n; i++) {
		const struct cli_mem_device *d = &m->d[i];

		cli_out_str(o, i ? ",{\"device\":" : "{\"device\":");
		cli_json_cstr(o, d->name);
		for (int r = 0; r < CLI_MEM_ROLES; r++)
			cli_out_printf(o, ",\"%s_bytes\":%" PRIu64, keys[r], d->role_peak[r]);
		cli_out_printf(o, ",\"peak_bytes\":%" PRIu64 ",\"end_bytes\":%" PRIu64, d->peak, d->live);
		if (d->total)
			cli_out_printf(o, ",\"device_bytes\":%" PRIu64 ",\"least_free_bytes\":%" PRIu64,
				       d->total, d->free_seen);
		else
			cli_out_str(o, ",\"device_bytes\":null,\"least_free_bytes\":null");
		cli_out_char(o, '}');
	}
	cli_out_str(o, "]");
}
