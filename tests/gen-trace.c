/*
 * gen-trace: writes a synthetic GGMLVIZ v1 trace whose every record is
 * known, so that the tests of the ggmlviz command can reason their
 * expected output from the model below. Records are written by the
 * library's encoder (ggmlviz_encode_record), whose bytes the reader's tests
 * check against vectors typed by hand from ggmlviz(5); the header is
 * written here, so that a bad magic or version can be made.
 *
 * The model (all times in ns; f(g) = g % 10 + 1; M = main thread =
 * --tid-base, W = worker = M + 1):
 *
 *   prologue at T0 on M: PROCESS(pid, name) unless --no-process,
 *     THREAD_NAME M "main", THREAD_NAME W "worker-1", OP_NAME x4,
 *     BACKEND_NAME 0xB1 "CUDA0", THREAD_BEGIN on W, then TENSOR_ALLOC
 *     "blk.l.weight" of (l+1) MiB at T0+100+l for each layer l.
 *   graph g (g = 0..G-1) on thread M when g is even, W when odd, from t:
 *     SCOPE_BEGIN "decode" (value g), MARK "token" (g), COUNTER "kv_used"
 *     (10g - 5) at t; GRAPH_BEGIN at t+10 (ptr 0x6000, nodes 4L+1, 1
 *     thread); TENSOR_ALLOC "scratch" 0x900000 of 4096 f(g) at t+20; from
 *     t+30 the ops, one after another, 10 ns apart; each layer l runs
 *     RMS_NORM "attn_norm-l" 2000 f(g), MUL_MAT "Qcur-l" 10000 f(g) on
 *     CUDA0 with OP_INFO (ne 4096x32x1x1, f32, 2e6 f(g) flops, right after
 *     its begin), SOFT_MAX "kq_soft_max-l" 3000 f(g), ADD "ffn_out-l"
 *     1000 f(g); graph 0 then runs op type 99 (no OP_NAME) with a label
 *     full of bytes to escape, 500 ns, and op type 31 (no OP_NAME) as
 *     "Kcur-3 (view)", 700 ns, then as "-7", 300 ns; every graph ends
 *     with MUL_MAT "result_output" 10000 f(g) on CUDA0 (no OP_INFO) (the
 *     tensor addresses and output sizes: layer_ops() and one_graph()).
 *     Then TENSOR_FREE scratch (size 0: unknown) at c, GRAPH_END at c+10,
 *     SCOPE_END at c+20;
 *     the next graph starts at c+1000. After graph 1, on W: DROPPED 7.
 *   epilogue at t: BARRIER_WAIT on W (500 ns), TENSOR_FREE of the weights
 *     of layers 1.. at t+l (layer 0 stays allocated), THREAD_FREE on W at
 *     t+100, with --unknown a record of type 200 at t+200, and unless
 *     --no-end TRACE_END at t+300 (written = records before it, dropped);
 *     with --crash, a META CRASH there instead (key 11, label "SIGSEGV").
 *
 * --steps: each graph g also a step (STEP_BEGIN at t+5, STEP_END at c+15
 * plus an idle (10 - f(g)) ms, n_tokens 1, generation), so that the
 * steps' own time falls as their ops' time rises.
 *
 * --cold N: graph 0's layer 0 ops take N times their time (its work too),
 * as a first graph that ran cold: stats --by layer says so.
 *
 * --undescribed: in the epilogue, before TRACE_END, on M at t+250, a
 * DESC_SET REPEAT of set 9 (never defined) for 2 ops, and those two ops
 * (MUL_MAT, 0xD000 and 0xD040, 10 ns each): ops left without their
 * descriptions, which info counts.
 *
 * --usage PCT: META THREADS on M at T0 (1 compute thread, 1 for a batch,
 * 2 CPUs), META USAGE on M at T0 (nothing so far), at the first step's
 * begin (1 ms of CPU time: the loading, which advise leaves out) and in
 * the epilogue at t+290 (1 ms more than PCT% of the steps' time, 50
 * involuntary switches, 5 voluntary): the share of its CPU the thread
 * got, which advise's cpus-taken weighs (with --steps).
 *
 * --size-mb N repeats graphs until the file holds N MiB. --cut-bytes N
 * drops the last N bytes; --corrupt I sets has_label of record I (from 0)
 * to 7. On stdout: records=, bytes=, last_record_offset=, graphs=, and
 * corrupt_offset= when --corrupt is given.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/format.h>

enum { T_GB, T_GE, T_OB, T_OE, T_ALLOC, T_FREE, T_BARRIER, T_TBEGIN, T_TFREE, T_META,
       T_MARK, T_COUNTER, T_SB, T_SE, T_INFO };
enum { M_OP_NAME = 1, M_THREAD_NAME, M_BACKEND_NAME, M_PROCESS, M_DROPPED, M_TRACE_END, M_CRASH };
#define M_USAGE GGMLVIZ_META_USAGE
#define M_THREADS GGMLVIZ_META_THREADS

struct gen {
	FILE *f;
	uint64_t bytes, records, last_offset;
	uint64_t corrupt_index, corrupt_offset; /* UINT64_MAX: none */
	uint64_t t0, pid;
	uint32_t main_tid, layers;
	uint64_t graphs, size_limit; /* size_limit: bytes, 0 = use graphs */
	const char *process, *magic;
	uint32_t version;
	int no_end, unknown, no_process, crash, original, steps, undescribed;
	uint64_t cut, dropped;
	uint64_t cold; /* graph 0's layer 0 ops take this many times their time (1: as the rest) */
	uint64_t usage; /* --usage: the CPU time's share of the steps' time, in % (0: none written) */
	uint64_t step_begin, step_ns; /* the open step's begin; every ended step's time */
};

struct op_kind {
	uint32_t type;
	const char *name, *label;
	uint64_t base;
	int on_gpu, has_info;
};

static const struct op_kind kinds[] = {
	{ 20, "RMS_NORM", "attn_norm", 2000, 0, 0 },
	{ 26, "MUL_MAT", "Qcur", 10000, 1, 1 },
	{ 40, "SOFT_MAX", "kq_soft_max", 3000, 0, 0 },
	{ 2, "ADD", "ffn_out", 1000, 0, 0 },
};

#define GPU 0xB1u
/* quotes, controls, valid UTF-8 (2, 3, 4 bytes) and invalid: a stray byte, an
 * overlong form, a surrogate, past U+10FFFF, a sequence cut by the end */
static const char weird[] = "we\"ird\\\n\t\x01\x7f\xff\xc3\xa9 \xe2\x82\xac/\xc0\xaf"
			    "\xe0\x80\xaf\xed\xa0\x80\xf4\x90\x80\x80\xf0\x9f\x98\x80\xe2\x82";

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void out(struct gen *g, const void *p, size_t n)
{
	if (fwrite(p, 1, n, g->f) != n) {
		perror("gen-trace: write");
		exit(1);
	}
	g->bytes += n;
}

/* One record, through the library's encoder (ggmlviz_encode_record). */
static void record(struct gen *g, const struct ggmlviz_event *ev)
{
	static uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + 4096];
	int n = ggmlviz_encode_record(ev, rec, sizeof rec);

	if (n < 0) {
		fprintf(stderr, "gen-trace: encode: %s\n", ggmlviz_strerror(n));
		exit(1);
	}
	if (g->records == g->corrupt_index)
		g->corrupt_offset = g->bytes;
	g->last_offset = g->bytes;
	g->records++;
	out(g, rec, (size_t)n);
}

/* A record of type at ts on tid, its label a C string or NULL. */
static struct ggmlviz_event event(uint8_t type, uint64_t ts, uint32_t tid, const char *label)
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.timestamp_ns = ts;
	ev.thread_id = tid;
	ev.label = label;
	ev.label_len = label ? (uint32_t)strlen(label) : 0;
	return ev;
}

static void meta(struct gen *g, uint64_t ts, uint32_t tid, uint32_t kind, uint64_t key,
		 uint64_t v1, uint64_t v2, const char *label)
{
	struct ggmlviz_event ev = event(T_META, ts, tid, label);

	ev.data.meta.kind = kind;
	ev.data.meta.key = key;
	ev.data.meta.value = v1;
	ev.data.meta.value2 = v2;
	record(g, &ev);
}

static void mem(struct gen *g, uint8_t type, uint64_t ts, uint32_t tid, uint64_t ptr,
		uint64_t size, const char *label)
{
	struct ggmlviz_event ev = event(type, ts, tid, label);

	ev.data.memory.ptr = ptr;
	ev.data.memory.size = size;
	record(g, &ev);
}

static void user(struct gen *g, uint8_t type, uint64_t ts, uint32_t tid, uint64_t value,
		 const char *label)
{
	struct ggmlviz_event ev = event(type, ts, tid, label);

	ev.data.user.value = value;
	ev.data.user.svalue = (int64_t)value;
	record(g, &ev);
}

static void step(struct gen *g, uint8_t type, uint64_t ts, uint32_t tid)
{
	struct ggmlviz_event ev = event(type, ts, tid, "decode");

	ev.data.step.ctx = 0xC0;
	ev.data.step.n_tokens = 1;
	ev.data.step.n_outputs = 1;
	ev.data.step.phase = GGMLVIZ_PHASE_GENERATION;
	record(g, &ev);
	if (type == GGMLVIZ_EVENT_STEP_BEGIN)
		g->step_begin = ts;
	else
		g->step_ns += ts - g->step_begin;
}

static void graph(struct gen *g, uint8_t type, uint64_t ts, uint32_t tid)
{
	struct ggmlviz_event ev = event(type, ts, tid, NULL);

	ev.data.graph.graph_ptr = 0x6000;
	ev.data.graph.n_nodes = 4 * g->layers + 1;
	ev.data.graph.n_threads = 1;
	record(g, &ev);
}

static void op_info(struct gen *g, uint64_t ts, uint32_t tid, uint64_t tensor, uint64_t flops)
{
	struct ggmlviz_event ev = event(T_INFO, ts, tid, "f32");

	ev.data.op_info.tensor_ptr = tensor;
	ev.data.op_info.ne[0] = 4096;
	ev.data.op_info.ne[1] = 32;
	ev.data.op_info.ne[2] = 1;
	ev.data.op_info.ne[3] = 1;
	ev.data.op_info.flops = flops;
	record(g, &ev);
}

struct op {
	uint64_t tensor, size, backend, dur, flops;
	uint32_t type;
	const char *label;
	size_t label_len;
};

/* Begin, OP_INFO when flops is set, end; returns the end time. */
static uint64_t op(struct gen *g, uint64_t ts, uint32_t tid, const struct op *o)
{
	struct ggmlviz_event ev = event(T_OB, ts, tid, NULL);

	ev.label = o->label;
	ev.label_len = (uint32_t)o->label_len;
	ev.data.op.tensor_ptr = o->tensor;
	ev.data.op.op_type = o->type;
	ev.data.op.op_size = o->size;
	ev.data.op.backend_ptr = o->backend;
	record(g, &ev);
	if (o->flops)
		op_info(g, ts + 1, tid, o->tensor, o->flops);
	ev.type = T_OE;
	ev.timestamp_ns = ts + o->dur;
	record(g, &ev);
	return ts + o->dur;
}

static uint64_t layer_ops(struct gen *g, uint64_t c, uint32_t tid, uint32_t l, uint64_t f)
{
	char label[64];

	for (uint32_t k = 0; k < 4; k++) {
		const struct op_kind *kd = &kinds[k];
		struct op o = { 0x100000u + (l * 8u + k) * 0x100u, 4096u * (k + 1),
				kd->on_gpu ? GPU : 0, kd->base * f, kd->has_info ? 2000000u * f : 0,
				kd->type, label, 0 };

		o.label_len = (size_t)snprintf(label, sizeof label, "%s-%u", kd->label, l);
		c = op(g, c, tid, &o) + 10;
	}
	return c;
}

/* Graph gi from time t; returns the start of the next graph. */
static uint64_t one_graph(struct gen *g, uint64_t gi, uint64_t t)
{
	uint32_t tid = g->main_tid + (uint32_t)(gi % 2);
	uint64_t f = gi % 10 + 1, c = t + 30;
	struct op weird_op = { 0x1E0000, 1, 0, 500, 0, 99, weird, sizeof weird - 1 };
	struct op view = { 0x1E0100, 2, 0, 700, 0, 31, "Kcur-3 (view)", 13 };
	struct op dash = { 0x1E0200, 3, 0, 300, 0, 31, "-7", 2 };
	struct op result = { 0x1F0000, 65536, GPU, 10000 * f, 0, 26, "result_output", 13 };

	uint64_t idle = g->steps ? (10 - f) * 1000000 : 0;

	user(g, T_SB, t, tid, gi, "decode");
	if (g->steps)
		step(g, GGMLVIZ_EVENT_STEP_BEGIN, t + 5, tid);
	if (g->steps && g->usage && gi == 0) /* the first step's begin: 1 ms of CPU so far */
		meta(g, t + 5, g->main_tid, M_USAGE, 0, 1000000u, 0, NULL);
	user(g, T_MARK, t, tid, gi, "token");
	user(g, T_COUNTER, t, tid, (uint64_t)((int64_t)gi * 10 - 5), "kv_used");
	graph(g, T_GB, t + 10, tid);
	mem(g, T_ALLOC, t + 20, tid, 0x900000, 4096 * f, "scratch");
	for (uint32_t l = 0; l < g->layers; l++)
		c = layer_ops(g, c, tid, l, gi == 0 && l == 0 ? f * g->cold : f);
	if (gi == 0) {
		c = op(g, c, tid, &weird_op) + 10;
		c = op(g, c, tid, &view) + 10;
		c = op(g, c, tid, &dash) + 10;
	}
	c = op(g, c, tid, &result) + 10;
	mem(g, T_FREE, c, tid, 0x900000, 0, NULL);
	graph(g, T_GE, c + 10, tid);
	if (g->steps)
		step(g, GGMLVIZ_EVENT_STEP_END, c + 15 + idle, tid);
	user(g, T_SE, c + 20 + idle, tid, gi, "decode");
	if (gi == 1) {
		meta(g, c + 30, g->main_tid + 1, M_DROPPED, g->main_tid + 1, 7, 0, NULL);
		g->dropped = 7;
	}
	return c + 1000 + idle;
}

static void prologue(struct gen *g)
{
	uint32_t m = g->main_tid, w = m + 1;
	char label[64];

	if (!g->no_process)
		meta(g, g->t0, m, M_PROCESS, g->pid, 0, 0, g->process);
	meta(g, g->t0, m, M_THREAD_NAME, m, 0, 0, "main");
	meta(g, g->t0, m, M_THREAD_NAME, w, 0, 0, "worker-1");
	for (size_t k = 0; k < 4; k++)
		meta(g, g->t0, m, M_OP_NAME, kinds[k].type, 0, 0, kinds[k].name);
	meta(g, g->t0, m, M_BACKEND_NAME, GPU, 0, 0, "CUDA0");
	if (g->usage) {
		meta(g, g->t0, m, M_THREADS, 0xC0, 1 | 1ull << 32, 2 | 2ull << 32, "1 thread");
		meta(g, g->t0, m, M_USAGE, 0, 0, 0, NULL); /* before the steps: loading, say */
	}
	mem(g, T_TBEGIN, g->t0, w, 0, 0, NULL);
	for (uint32_t l = 0; l < g->layers; l++) {
		snprintf(label, sizeof label, "blk.%u.weight", l);
		mem(g, T_ALLOC, g->t0 + 100 + l, m, 0x200000u + l * 0x1000u,
		    (uint64_t)(l + 1) << 20, label);
	}
}

/* A REPEAT of a set never defined, and its two ops (--undescribed). */
static void repeat_unknown_set(struct gen *g, uint64_t t)
{
	struct ggmlviz_event ev = event(GGMLVIZ_EVENT_DESC_SET, t, g->main_tid, NULL);

	ev.data.desc_set.set = 9;
	ev.data.desc_set.n_ops = 2;
	ev.data.desc_set.mode = GGMLVIZ_DESC_SET_REPEAT;
	ev.data.desc_set.method = GGMLVIZ_OP_METHOD_TICK;
	record(g, &ev);
	for (uint64_t i = 0; i < 2; i++) {
		struct ggmlviz_event op = event(T_OB, t + 1 + 20 * i, g->main_tid, NULL);

		op.data.op.tensor_ptr = 0xD000 + 0x40 * i;
		op.data.op.op_type = kinds[1].type;
		record(g, &op);
		op.type = T_OE;
		op.timestamp_ns += 10;
		record(g, &op);
	}
}

static void epilogue(struct gen *g, uint64_t t)
{
	uint32_t m = g->main_tid, w = m + 1;
	uint8_t pl[GGMLVIZ_PAYLOAD_SIZE] = { 0 };
	struct ggmlviz_event future = event(200, t + 200, m, "future");

	mem(g, T_BARRIER, t, w, 0xBA, 500, NULL);
	for (uint32_t l = 1; l < g->layers; l++)
		mem(g, T_FREE, t + l, m, 0x200000u + l * 0x1000u, (uint64_t)(l + 1) << 20, NULL);
	mem(g, T_TFREE, t + 100, w, 0, 0, NULL);
	if (g->unknown)
		future.payload = pl, record(g, &future);
	if (g->undescribed)
		repeat_unknown_set(g, t + 250);
	if (g->usage)
		meta(g, t + 290, m, M_USAGE, 50, 1000000u + g->step_ns * g->usage / 100, 5, NULL);
	if (g->crash)
		meta(g, t + 300, m, M_CRASH, 11, g->records, g->dropped, "SIGSEGV");
	else if (!g->no_end)
		meta(g, t + 300, m, M_TRACE_END, 0, g->records, g->dropped, NULL);
}

static void header(struct gen *g)
{
	uint8_t h[12];

	memcpy(h, g->magic, 8);
	put32(h + 8, g->version);
	out(g, h, sizeof h);
}

static uint64_t number(const char *opt, const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end) {
		fprintf(stderr, "gen-trace: %s: bad number '%s'\n", opt, s);
		exit(2);
	}
	return (uint64_t)v;
}

static int option(struct gen *g, const char *opt, const char *val)
{
	if (!strcmp(opt, "--graphs"))
		g->graphs = number(opt, val);
	else if (!strcmp(opt, "--layers"))
		g->layers = (uint32_t)number(opt, val);
	else if (!strcmp(opt, "--size-mb"))
		g->size_limit = number(opt, val) << 20;
	else if (!strcmp(opt, "--pid"))
		g->pid = number(opt, val);
	else if (!strcmp(opt, "--tid-base"))
		g->main_tid = (uint32_t)number(opt, val);
	else if (!strcmp(opt, "--t0"))
		g->t0 = number(opt, val);
	else if (!strcmp(opt, "--process"))
		g->process = val;
	else if (!strcmp(opt, "--cut-bytes"))
		g->cut = number(opt, val);
	else if (!strcmp(opt, "--corrupt"))
		g->corrupt_index = number(opt, val);
	else if (!strcmp(opt, "--magic") && strlen(val) == 8)
		g->magic = val;
	else if (!strcmp(opt, "--version"))
		g->version = (uint32_t)number(opt, val);
	else if (!strcmp(opt, "--cold") && number(opt, val) > 0)
		g->cold = number(opt, val);
	else if (!strcmp(opt, "--usage"))
		g->usage = number(opt, val);
	else
		return -1;
	return 0;
}

static void usage(void)
{
	fputs("usage: gen-trace [--graphs N] [--layers N] [--size-mb N] [--pid N]\n"
	      "  [--tid-base N] [--t0 NS] [--process NAME] [--no-process] [--no-end] [--crash] [--unknown]\n"
	      "  [--original] [--steps] [--cold N] [--undescribed] [--usage PCT]\n"
	      "  [--cut-bytes N] [--corrupt RECORD_INDEX] [--magic 8CHARS] [--version N] OUT\n",
	      stderr);
	exit(2);
}

static const char *parse(struct gen *g, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
		if (!strcmp(argv[i], "--no-end"))
			g->no_end = 1;
		else if (!strcmp(argv[i], "--crash"))
			g->crash = 1;
		else if (!strcmp(argv[i], "--original"))
			g->original = 1;
		else if (!strcmp(argv[i], "--unknown"))
			g->unknown = 1;
		else if (!strcmp(argv[i], "--no-process"))
			g->no_process = 1;
		else if (!strcmp(argv[i], "--steps"))
			g->steps = 1;
		else if (!strcmp(argv[i], "--undescribed"))
			g->undescribed = 1;
		else if (i + 1 >= argc || option(g, argv[i], argv[i + 1]) < 0)
			usage();
		else
			i++;
	}
	if (i != argc - 1)
		usage();
	return argv[i];
}

/*
 * --original: a trace as the original ggml-viz writer wrote it: types 0 to
 * 3 only, no META record (no OP_NAME, no PROCESS, no TRACE_END), a steady
 * clock (ns since boot: 5000 s), op types in GGML's mid-2025 numbering
 * (27 MUL_MAT, 2 ADD), and, in each graph, 10 ops on one thread where each
 * begins before the one before it ends (partially overlapping slices).
 */
static void original(struct gen *g)
{
	uint64_t t = 5000000000000ull;
	uint32_t tid = g->main_tid;

	for (uint64_t gi = 0; gi < g->graphs; gi++, t += 100000) {
		struct ggmlviz_event ev = event(GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN, t, tid, NULL);

		ev.data.graph.graph_ptr = 0x6000;
		ev.data.graph.n_nodes = 10;
		ev.data.graph.n_threads = 1;
		record(g, &ev);
		for (uint32_t i = 0; i < 10; i++) {
			uint64_t b = t + 100 + 1000 * i; /* 1500 ns each: into the next one's time */
			struct ggmlviz_event op = event(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, b, tid, NULL);

			op.data.op.tensor_ptr = 0x7000 + 64 * i;
			op.data.op.op_type = i % 2 ? 2 : 27;
			op.data.op.op_size = 4096;
			record(g, &op);
			op.type = GGMLVIZ_EVENT_OP_COMPUTE_END;
			op.timestamp_ns = b + 1500;
			record(g, &op);
		}
		ev.type = GGMLVIZ_EVENT_GRAPH_COMPUTE_END;
		ev.timestamp_ns = t + 20000;
		record(g, &ev);
	}
}

/* Sets has_label of the record at off to 7, and cuts the file if asked. */
static void damage(struct gen *g, const char *path)
{
	FILE *f = fopen(path, "r+b");

	if (!f || (g->corrupt_offset != UINT64_MAX &&
		   (fseeko(f, (off_t)(g->corrupt_offset + 45), SEEK_SET) || fputc(7, f) == EOF)) ||
	    (g->cut && ftruncate(fileno(f), (off_t)(g->bytes - g->cut)) < 0) || fclose(f)) {
		perror("gen-trace: damage");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct gen g = { .t0 = 1700000000000000000ull, .pid = 4242, .main_tid = 1001,
			 .layers = 2, .graphs = 4, .process = "gen-trace", .magic = "GGMLVIZ1",
			 .version = 1, .corrupt_index = UINT64_MAX, .corrupt_offset = UINT64_MAX,
			 .cold = 1 };
	static char buf[1 << 20];
	const char *path;
	uint64_t t, gi;

	if (argc == 1) {
		/* run by make check as a test: it is a helper of tests/test-tool*.sh */
		puts("1..0 # SKIP helper of tests/test-tool.sh, not a test by itself");
		return 0;
	}
	path = parse(&g, argc, argv);
	g.f = fopen(path, "wb");
	if (!g.f) {
		perror(path);
		return 1;
	}
	setvbuf(g.f, buf, _IOFBF, sizeof buf);
	header(&g);
	if (g.original) {
		original(&g);
		fclose(g.f);
		printf("records=%" PRIu64 "\nbytes=%" PRIu64 "\n", g.records, g.bytes);
		return 0;
	}
	prologue(&g);
	t = g.t0 + 1000;
	for (gi = 0; g.size_limit ? g.bytes < g.size_limit : gi < g.graphs; gi++)
		t = one_graph(&g, gi, t);
	epilogue(&g, t);
	if (fclose(g.f)) {
		perror(path);
		return 1;
	}
	damage(&g, path);
	printf("records=%" PRIu64 "\nbytes=%" PRIu64 "\nlast_record_offset=%" PRIu64
	       "\ngraphs=%" PRIu64 "\n", g.records, g.bytes, g.last_offset, gi);
	if (g.corrupt_offset != UINT64_MAX)
		printf("corrupt_offset=%" PRIu64 "\n", g.corrupt_offset);
	return 0;
}
