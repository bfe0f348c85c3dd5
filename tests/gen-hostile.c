/*
 * gen-hostile: writes a trace made to exhaust a reader's memory, for
 * tests/test-tool-hostile.sh:
 *
 *   gen-hostile KIND N OUT
 *
 *   begins   N op begins that never end (each its own tensor)
 *   threads  N marks, each from a thread of its own
 *   names    N THREAD_NAME records, each for a thread of its own
 *   big      N OP_NAME records of 1 MiB names
 *   ops      N op types, each named by OP_NAME and timed once
 *   allocs   N allocations never freed
 *   labels   two processes whose names and ops' names are made to break a
 *            terminal and Prometheus' exposition: a name of 64 bytes and
 *            more whose 63rd byte falls inside a character, "llama\xff",
 *            op names holding escape sequences, two op types of one name,
 *            a buffer's device name that is not UTF-8; each op type timed
 *            N times by each process, then TRACE_END
 *
 * Records are written by the library's encoder.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

static FILE *out;
static char *big;

static void put(const struct ggmlviz_event *ev)
{
	static uint8_t buf[GGMLVIZ_LABELED_RECORD_SIZE + (1u << 20)];
	int n = ggmlviz_encode_record(ev, buf, sizeof buf);

	if (n < 0 || fwrite(buf, 1, (size_t)n, out) != (size_t)n) {
		perror("gen-hostile");
		exit(1);
	}
}

static void op(uint8_t type, uint64_t ts, uint64_t tensor, uint32_t op_type)
{
	struct ggmlviz_event ev = { .type = type, .timestamp_ns = ts, .thread_id = 1 };

	ev.data.op.tensor_ptr = tensor;
	ev.data.op.op_type = op_type;
	ev.data.op.op_size = 4;
	put(&ev);
}

static void meta(uint64_t ts, uint32_t kind, uint64_t key, const char *label, uint32_t len)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_META, .timestamp_ns = ts,
				    .thread_id = 1, .label = label, .label_len = len };

	ev.data.meta.kind = kind;
	ev.data.meta.key = key;
	put(&ev);
}

/* An op of op_type on backend, [ts, ts + ns). */
static void timed(uint64_t ts, uint64_t ns, uint32_t op_type, uint64_t backend)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, .timestamp_ns = ts,
				    .thread_id = 1 };

	ev.data.op.tensor_ptr = 0x1000 + op_type;
	ev.data.op.op_type = op_type;
	ev.data.op.op_size = 4;
	ev.data.op.backend_ptr = backend;
	put(&ev);
	ev.type = GGMLVIZ_EVENT_OP_COMPUTE_END, ev.timestamp_ns = ts + ns;
	put(&ev);
}

static void alloc(uint64_t ts, uint64_t ptr, uint64_t size, const char *label)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_TENSOR_ALLOC, .timestamp_ns = ts,
				    .thread_id = 1, .label = label, .label_len = (uint32_t)strlen(label) };

	ev.data.memory.ptr = ptr;
	ev.data.memory.size = size;
	put(&ev);
}

/* One process of the labels kind: its names, N timings of each op type. */
static void labelled(uint64_t pid, const char *name, uint64_t n, uint64_t t0)
{
	static const char *const ops[] = { NULL, "\x1b]0;pwned\x07\x1b[31mRED", "ADD", "ADD",
					   "MUL\x1b[2J_MAT" };
	uint64_t t = t0;

	meta(t, GGMLVIZ_META_PROCESS, pid, name, (uint32_t)strlen(name));
	for (uint32_t k = 1; k < sizeof ops / sizeof ops[0]; k++)
		meta(t, GGMLVIZ_META_OP_NAME, k, ops[k], (uint32_t)strlen(ops[k]));
	meta(t, GGMLVIZ_META_BACKEND_NAME, 0xB1, "GPU\x1b[2J\xff", 8);
	meta(t, GGMLVIZ_META_THREAD_NAME, 1, "main\x1b]0;x\x07", 11);
	alloc(t, 0x900000 + pid, 1 << 20, "weights dev\x1b[31m\xfe");
	for (uint64_t i = 0; i < n; i++)
		for (uint32_t k = 1; k < sizeof ops / sizeof ops[0]; k++, t += 2000)
			timed(t, 1000 * k, k, k == 4 ? 0xB1 : 0);
}

static void one(const char *kind, uint64_t i)
{
	char name[32];
	int len = snprintf(name, sizeof name, "name-%llu", (unsigned long long)i);

	if (!strcmp(kind, "begins")) {
		op(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, i, 0x1000 + i, 1);
	} else if (!strcmp(kind, "threads")) {
		struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_MARK, .timestamp_ns = i,
					    .thread_id = (uint32_t)i + 1 };
		put(&ev);
	} else if (!strcmp(kind, "names")) {
		meta(i, GGMLVIZ_META_THREAD_NAME, i + 1, name, (uint32_t)len);
	} else if (!strcmp(kind, "big")) {
		meta(i, GGMLVIZ_META_OP_NAME, i, big, 1u << 20);
	} else if (!strcmp(kind, "labels")) {
		char cut[80];

		memset(cut, 'a', 62); /* the 63rd byte is the first of a 2-byte character */
		snprintf(cut + 62, sizeof cut - 62, "\xc3\xa9-server");
		labelled(4242, cut, i, 1000000);
		labelled(4343, "llama\xff", i, 5000000000u);
		meta(9000000000u, GGMLVIZ_META_TRACE_END, 0, NULL, 0);
	} else if (!strcmp(kind, "ops")) {
		meta(i, GGMLVIZ_META_OP_NAME, i, name, (uint32_t)len);
		op(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, i, 0x1000, (uint32_t)i);
		op(GGMLVIZ_EVENT_OP_COMPUTE_END, i + 1 + (i % 2 ? 1u << 30 : 0), 0x1000, (uint32_t)i);
	} else {
		struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_TENSOR_ALLOC, .timestamp_ns = i,
					    .thread_id = 1 };
		ev.data.memory.ptr = 0x1000 + 64 * i;
		ev.data.memory.size = 64;
		put(&ev);
	}
}

int main(int argc, char **argv)
{
	static const char *const kinds[] = { "begins", "threads", "names", "big", "ops", "allocs",
					     "labels" };
	uint8_t header[GGMLVIZ_HEADER_SIZE];
	int known = 0;

	if (argc == 1) {
		puts("1..0 # SKIP helper of tests/test-tool-hostile.sh, not a test by itself");
		return 0;
	}
	for (size_t k = 0; argc == 4 && k < sizeof kinds / sizeof kinds[0]; k++)
		known |= !strcmp(argv[1], kinds[k]);
	if (!known || !(out = fopen(argv[3], "wb")) || !(big = malloc(1u << 20))) {
		fputs("usage: gen-hostile begins|threads|names|big|ops|allocs|labels N OUT\n", stderr);
		return 2;
	}
	memset(big, 'x', 1u << 20);
	ggmlviz_encode_header(header, sizeof header);
	fwrite(header, 1, sizeof header, out);
	if (!strcmp(argv[1], "labels"))
		one(argv[1], strtoull(argv[2], NULL, 10)); /* N: the timings of each op type */
	else
		for (uint64_t i = 0, n = strtoull(argv[2], NULL, 10); i < n; i++)
			one(argv[1], i);
	free(big);
	return fclose(out) ? 1 : 0;
}
