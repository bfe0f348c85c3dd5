/*
 * The output of ggmlviz mem, as text or JSON.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"
#include "memory/memory.h"

#define BAR_WIDTH 40

static uint64_t rel(const struct cli_mem *m, uint64_t ts)
{
	return ts > m->t0 ? ts - m->t0 : 0;
}

/* The most live bytes of interval i; carry holds what the intervals before left. */
static uint64_t point_max(const struct cli_mem *m, size_t i, uint64_t *carry)
{
	const struct cli_mem_point *p = &m->timeline[i];

	if (!p->seen)
		return *carry;
	*carry = p->last;
	return p->max;
}

static void text_summary(struct cli_out *o, const struct cli_mem *m)
{
	char b[4][40];

	cli_out_printf(o, "%s: %" PRIu64 " allocations (%s), %" PRIu64 " frees (%s)\n",
			    m->path, m->allocs, cli_fmt_bytes(m->alloc_bytes, b[0]), m->frees,
			    cli_fmt_bytes(m->freed_bytes, b[1]));
	if (m->live.unknown_frees || m->live.reallocs)
		cli_out_printf(o, "  (%" PRIu64 " frees of pointers not allocated in the"
				    " trace, %" PRIu64 " allocations of a pointer still live)\n",
				    m->live.unknown_frees, m->live.reallocs);
	if (m->live.untracked)
		cli_out_printf(o, "  (%" PRIu64 " allocations not followed: %" PRIu64 " were live"
				    " already, the most this command follows)\n", m->live.untracked,
				    CLI_MAX_LIVE);
	if (!m->allocs)
		return;
	cli_out_printf(o, "peak:       %s (%" PRIu64 " bytes) live, allocations: %" PRIu64
			    ", at +%s (%s), reached by \"",
			    cli_fmt_bytes(m->peak_bytes, b[0]), m->peak_bytes, m->peak_count,
			    cli_fmt_ns((double)rel(m, m->peak.ts), b[1]),
			    cli_fmt_epoch(m->peak.ts, b[2]));
	cli_text_str(o, m->peak.label, m->peak.label_len);
	cli_out_printf(o, "\" (%s)\n", cli_fmt_bytes(m->peak.size, b[3]));
	cli_out_printf(o, "at the end: %s (%" PRIu64 " bytes) still allocated, allocations:"
			    " %" PRIu64 "\n", cli_fmt_bytes(m->end_bytes, b[0]), m->end_bytes,
			    m->end_count);
}

static void text_timeline(struct cli_out *o, const struct cli_mem *m)
{
	struct cli_table t;
	uint64_t carry = 0;
	char b[2][40];

	cli_out_printf(o, "live bytes over time (the most in each interval of %s):\n",
			    cli_fmt_ns((double)m->width, b[0]));
	cli_table_init(&t, 3);
	for (size_t i = 0; i < m->points; i++) {
		uint64_t v = point_max(m, i, &carry);
		size_t bar = m->peak_bytes ? (size_t)((double)v / (double)m->peak_bytes * BAR_WIDTH)
					   : 0;
		cli_table_add(&t, "+%s", cli_fmt_ns((double)i * (double)m->width, b[0]));
		cli_table_add(&t, "%s", cli_fmt_bytes(v, b[1]));
		cli_table_add(&t, "%-*.*s", BAR_WIDTH, (int)bar,
				   "########################################");
	}
	cli_table_print(&t, o, "  ");
	cli_table_free(&t);
}

static void text_allocs(struct cli_out *o, const struct cli_mem *m,
			const struct cli_top *top, const char *title)
{
	char b[2][40];

	cli_out_printf(o, "%s:%s\n", title, top->n ? "" : " none");
	for (size_t i = 0; i < top->n; i++) {
		const struct cli_alloc *a = &top->items[i];

		cli_out_printf(o, "  %12s  at +%-12s  0x%-14" PRIx64 " \"",
				    cli_fmt_bytes(a->size, b[0]),
				    cli_fmt_ns((double)rel(m, a->ts), b[1]), a->ptr);
		cli_text_str(o, a->label, a->label_len);
		cli_out_str(o, "\"\n");
	}
}

/* 2^k bytes, exactly: "512 B", "1 KiB", "64 MiB". */
static const char *pow2(unsigned k, char buf[40])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

	snprintf(buf, 40, "%u %s", 1u << (k % 10), units[k / 10]);
	return buf;
}

static void text_sizes(struct cli_out *o, const struct cli_mem *m)
{
	struct cli_table t;
	char b[3][40];

	cli_out_str(o, "allocation sizes:\n");
	cli_table_init(&t, 3);
	cli_table_add(&t, "SIZE");
	cli_table_add(&t, "COUNT");
	cli_table_add(&t, "BYTES");
	for (unsigned c = 0; c < CLI_SIZE_CLASSES; c++) {
		if (!m->class_count[c])
			continue;
		if (c == 0)
			cli_table_add(&t, "0 B");
		else
			cli_table_add(&t, "[%s, %s)", pow2(c - 1, b[0]), pow2(c, b[1]));
		cli_table_add(&t, "%" PRIu64, m->class_count[c]);
		cli_table_add(&t, "%s", cli_fmt_bytes(m->class_bytes[c], b[2]));
	}
	cli_table_print(&t, o, "  ");
	cli_table_free(&t);
}

/* A backend buffer the GGML and llama.cpp adapters recorded when a graph first used it. */
static bool adapter_buffer(const struct cli_alloc *a)
{
	static const char *const roles[] = { "weights ", "compute ", "kv_cache ", "buffer " };

	for (size_t i = 0; i < sizeof roles / sizeof roles[0]; i++)
		if (a->label && a->label_len > strlen(roles[i]) &&
		    !memcmp(a->label, roles[i], strlen(roles[i])))
			return true;
	return false;
}

void cli_mem_print_text(struct cli_out *o, const struct cli_mem *m)
{
	bool seen = false;

	text_summary(o, m);
	if (!m->allocs)
		return;
	text_timeline(o, m);
	text_allocs(o, m, &m->largest, "largest allocations");
	text_sizes(o, m);
	text_allocs(o, m, &m->still, "still allocated at the end (largest first)");
	for (size_t i = 0; i < m->still.n && !seen; i++)
		seen = adapter_buffer(&m->still.items[i]);
	if (seen)
		cli_out_str(o, "(weights, kv_cache, compute and buffer: GGML's backend buffers, which the"
			       " adapters record when a graph first uses them, and their frees only"
			       " where the program frees its llama.cpp context and model through"
			       " ggmlviz_llama_free() and ggmlviz_llama_model_free(), which"
			       " llama.cpp's tools built by build-llama-tools.sh do: those listed here"
			       " were not freed that way before the trace ended, which does not make"
			       " them leaks)\n");
}

static void json_alloc(struct cli_out *o, const struct cli_mem *m,
		       const struct cli_alloc *a)
{
	cli_out_printf(o, "{\"size\":%" PRIu64 ",\"ptr\":\"0x%" PRIx64 "\",\"pid\":%" PRIu64
			    ",\"ts\":%" PRIu64 ",\"t_ns\":%" PRIu64 ",\"offset\":%" PRIu64
			    ",\"label\":", a->size, a->ptr, a->pid, a->ts, rel(m, a->ts),
			    a->offset);
	cli_json_str(o, a->label, a->label_len);
	cli_out_char(o, '}');
}

static void json_allocs(struct cli_out *o, const struct cli_mem *m, const char *key,
			const struct cli_top *top)
{
	cli_out_printf(o, ",\"%s\":[", key);
	for (size_t i = 0; i < top->n; i++) {
		if (i)
			cli_out_char(o, ',');
		json_alloc(o, m, &top->items[i]);
	}
	cli_out_char(o, ']');
}

static void json_timeline(struct cli_out *o, const struct cli_mem *m)
{
	uint64_t carry = 0;

	cli_out_printf(o, ",\"timeline\":{\"start_ts\":%" PRIu64 ",\"interval_ns\":%" PRIu64
			    ",\"max_bytes\":[", m->t0, m->width);
	for (size_t i = 0; i < m->points; i++) {
		if (i)
			cli_out_char(o, ',');
		cli_out_u64(o, point_max(m, i, &carry));
	}
	cli_out_str(o, "]}");
}

static void json_sizes(struct cli_out *o, const struct cli_mem *m)
{
	const char *sep = "";

	cli_out_str(o, ",\"sizes\":[");
	for (unsigned c = 0; c < CLI_SIZE_CLASSES; c++) {
		if (!m->class_count[c])
			continue;
		uint64_t lo = c ? (uint64_t)1 << (c - 1) : 0;
		uint64_t hi = c ? (c < 64 ? ((uint64_t)1 << c) - 1 : UINT64_MAX) : 0;

		cli_out_printf(o, "%s{\"min\":%" PRIu64 ",\"max\":%" PRIu64
				    ",\"count\":%" PRIu64 ",\"bytes\":%" PRIu64 "}", sep, lo, hi,
				    m->class_count[c], m->class_bytes[c]);
		sep = ",";
	}
	cli_out_char(o, ']');
}

void cli_mem_print_json(struct cli_out *o, const struct cli_mem *m)
{
	cli_out_str(o, "{\"file\":");
	cli_json_cstr(o, m->path);
	cli_out_printf(o, ",\"allocations\":%" PRIu64 ",\"allocated_bytes\":%" PRIu64
			    ",\"frees\":%" PRIu64 ",\"freed_bytes\":%" PRIu64 ",\"unknown_frees\":%"
			    PRIu64 ",\"reallocations\":%" PRIu64 ",\"untracked\":%" PRIu64
			    ",\"peak\":{\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64 ",\"by\":",
			    m->allocs, m->alloc_bytes, m->frees, m->freed_bytes,
			    m->live.unknown_frees, m->live.reallocs, m->live.untracked,
			    m->peak_bytes, m->peak_count);
	if (m->allocs)
		json_alloc(o, m, &m->peak);
	else
		cli_out_str(o, "null");
	cli_out_printf(o, "},\"end\":{\"bytes\":%" PRIu64 ",\"allocations\":%" PRIu64 "}",
			    m->end_bytes, m->end_count);
	json_timeline(o, m);
	json_allocs(o, m, "largest", &m->largest);
	json_sizes(o, m);
	json_allocs(o, m, "still_allocated", &m->still);
	cli_out_str(o, "}\n");
}
