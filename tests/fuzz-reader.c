/*
 * libFuzzer target: the reader on any bytes. Every record is read (its
 * label touched, its names looked up), the reason reading stopped is
 * described, then the records are paired into timings from the start; a
 * single record is also decoded on its own. Built with --enable-fuzzing
 * (clang); tests/run-all.sh runs it for a bounded time on a seed corpus.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

static void read_all(struct ggmlviz_reader *r)
{
	struct ggmlviz_event ev;
	const char *name;
	char op[24];

	while (ggmlviz_reader_next(r, &ev) == 1) {
		for (uint32_t i = 0; ev.label && i < ev.label_len; i++)
			sink += (uint8_t)ev.label[i];
		name = ggmlviz_reader_op_name(r, ev.data.op.op_type);
		sink += name ? (uint8_t)name[0] : 0;
		/* any op type, a fused pair's too, named into a buffer that cuts most names */
		if (ggmlviz_reader_write_op_name(r, ev.data.op.op_type, op, sizeof op) > 0)
			sink += (uint8_t)op[0];
		name = ggmlviz_reader_thread_name(r, ev.thread_id);
		sink += name ? (uint8_t)name[0] : 0;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	struct ggmlviz_event ev;
	char why[256];

	if (ggmlviz_decode_record(data, size, &ev) > 0)
		sink += ev.type;
	if (ggmlviz_reader_open_memory(data, size, &r) < 0)
		return 0;
	read_all(r);
	ggmlviz_reader_describe(r, why, sizeof why);
	ggmlviz_reader_rewind(r);
	while (ggmlviz_reader_next_timing(r, &t) == 1)
		sink += t.duration_ns + (t.label_len ? (uint8_t)t.label[0] : 0);
	ggmlviz_reader_close(r);
	return 0;
}
