/*
 * How fast the reader decodes records and pairs them: builds a synthetic
 * trace (graphs of 1000 ops, each op a begin and an end with a 13-byte
 * label), then times ggmlviz_reader_next over the file and over memory,
 * and ggmlviz_reader_next_timing, each the median of several passes after a
 * warm-up pass, next to the cost of one clock_gettime.
 *
 * usage: bench_reader [records]   (default 4000000)
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <ggmlviz/reader.h>

#include "bench.h"

#define PASSES 5
#define OPS_PER_GRAPH 1000u

static char trace_path[4096];

/* The trace is removed however the program ends. */
static void remove_trace(void)
{
	if (trace_path[0])
		unlink(trace_path);
}

struct out {
	FILE *f;
	uint8_t buf[64];
	uint64_t records, bytes;
};

static void emit(struct out *o, uint32_t n)
{
	if (fwrite(o->buf, 1, n, o->f) != n) {
		perror("bench_reader: write");
		exit(1);
	}
	o->records++;
	o->bytes += n;
}

/* Encodes ev with the library's encoder and writes it. */
static void emit_event(struct out *o, const struct ggmlviz_event *ev)
{
	int n = ggmlviz_encode_record(ev, o->buf, sizeof o->buf);

	if (n < 0) {
		fprintf(stderr, "bench_reader: encode: %s\n", ggmlviz_strerror(n));
		exit(1);
	}
	emit(o, (uint32_t)n);
}

static void emit_graph(struct out *o, uint8_t type, uint64_t ts, uint64_t graph)
{
	struct ggmlviz_event ev = { .type = type, .timestamp_ns = ts, .thread_id = 1000 };

	ev.data.graph.graph_ptr = graph;
	ev.data.graph.n_nodes = OPS_PER_GRAPH;
	ev.data.graph.n_threads = 8;
	emit_event(o, &ev);
}

static void emit_op(struct out *o, uint8_t type, uint64_t ts, uint32_t i)
{
	char label[16];
	struct ggmlviz_event ev = { .type = type, .timestamp_ns = ts, .thread_id = 1000 };

	snprintf(label, sizeof label, "blk.%02u.attn_q", i % 100); /* 13 bytes */
	ev.label = label;
	ev.label_len = 13;
	ev.data.op.tensor_ptr = 0x7f0000100000ull + (uint64_t)i * 512;
	ev.data.op.op_type = 29;
	ev.data.op.op_size = 4096;
	emit_event(o, &ev);
}

/* Writes about `records` records into a new file; returns its path. */
static const char *make_trace(uint64_t records, struct out *o)
{
	const char *tmp = getenv("TMPDIR");
	char *path = trace_path;
	uint8_t header[GGMLVIZ_HEADER_SIZE];
	uint64_t ts = 1700000000000000000ull;
	int fd;

	snprintf(path, sizeof trace_path, "%s/bench-reader-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(path);
	atexit(remove_trace);
	if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
		fprintf(stderr, "bench_reader: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	ggmlviz_encode_header(header, sizeof header);
	fwrite(header, 1, sizeof header, o->f);
	o->bytes = sizeof header;
	for (uint64_t g = 0; o->records < records; g++) {
		emit_graph(o, GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN, ts++, 0x5500 + g % 4);
		for (uint32_t i = 0; i < OPS_PER_GRAPH; i++) {
			emit_op(o, GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, ts, i);
			emit_op(o, GGMLVIZ_EVENT_OP_COMPUTE_END, ts + 700, i);
			ts += 1000;
		}
		emit_graph(o, GGMLVIZ_EVENT_GRAPH_COMPUTE_END, ts++, 0x5500 + g % 4);
	}
	if (fclose(o->f) != 0) {
		perror("bench_reader: close");
		exit(1);
	}
	return path;
}

/* The next event (timings = 0) or timing (1); what to add to the checksum in *sum. */
static inline int step(struct ggmlviz_reader *r, int timings, uint64_t *sum)
{
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	int rc;

	if (timings) {
		rc = ggmlviz_reader_next_timing(r, &t);
		*sum += rc == 1 ? t.duration_ns + t.graph_seq : 0;
	} else {
		rc = ggmlviz_reader_next(r, &ev);
		*sum += rc == 1 ? ev.timestamp_ns + ev.label_len : 0;
	}
	return rc;
}

/* One pass over the whole trace; returns ns, counts what it got into *n. */
static double pass(struct ggmlviz_reader *r, int timings, uint64_t *n, uint64_t *sink)
{
	uint64_t t0, count = 0, sum = 0;
	int rc;

	ggmlviz_reader_rewind(r);
	t0 = bench_now_ns();
	while ((rc = step(r, timings, &sum)) == 1)
		count++;
	t0 = bench_now_ns() - t0;
	if (rc != 0) {
		fprintf(stderr, "bench_reader: %s\n", ggmlviz_strerror(rc));
		exit(1);
	}
	*n = count;
	*sink += sum;
	return (double)t0;
}

/* Median ns of PASSES passes after a warm-up one. */
static double median_pass(struct ggmlviz_reader *r, int timings, uint64_t *n, uint64_t *sink)
{
	double ns[PASSES];

	pass(r, timings, n, sink);
	for (int i = 0; i < PASSES; i++)
		ns[i] = pass(r, timings, n, sink);
	return bench_median(ns, PASSES);
}

static void report_events(const char *what, double ns, uint64_t n, uint64_t bytes, double clk)
{
	printf("%s: %.1f MB/s, %.1f M events/s (%.1f ns/event = %.1fx clock_gettime)\n", what,
	       (double)bytes / ns * 1e3, (double)n / ns * 1e3, ns / (double)n,
	       ns / (double)n / clk);
}

static void *slurp(const char *path, size_t size)
{
	void *p = malloc(size);
	FILE *f = fopen(path, "rb");

	if (!p || !f || fread(p, 1, size, f) != size) {
		fprintf(stderr, "bench_reader: cannot read %s back\n", path);
		exit(1);
	}
	fclose(f);
	return p;
}

static long peak_rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

int main(int argc, char **argv)
{
	uint64_t records = argc > 1 ? strtoull(argv[1], NULL, 10) : 4000000u, n, sink = 0;
	struct out o = { 0 };
	struct ggmlviz_reader *r;
	double clk, ns;
	const char *path;
	void *copy;
	int rc;

	clk = bench_clock_cost_ns();
	printf("clock_gettime: %.1f ns\n", clk);
	path = make_trace(records, &o);
	printf("trace: %llu records, %.1f MB\n", (unsigned long long)o.records,
	       (double)o.bytes / 1e6);

	rc = ggmlviz_reader_open(path, &r);
	if (rc < 0) {
		fprintf(stderr, "bench_reader: %s: %s\n", path, ggmlviz_strerror(rc));
		return 1;
	}
	ns = median_pass(r, 0, &n, &sink);
	report_events("reader (file)", ns, n, o.bytes, clk);
	printf("peak RSS after reading the file %d times: %ld MB\n", PASSES + 1, peak_rss_mb());
	ns = median_pass(r, 1, &n, &sink);
	printf("timings: %.1f M timings/s (%.1f ns/timing = %.1fx clock_gettime), %.1f ns/record\n",
	       (double)n / ns * 1e3, ns / (double)n, ns / (double)n / clk,
	       ns / (double)o.records);
	ggmlviz_reader_close(r);

	copy = slurp(path, o.bytes);
	remove_trace();
	trace_path[0] = '\0';
	rc = ggmlviz_reader_open_memory(copy, o.bytes, &r);
	if (rc < 0)
		return 1;
	ns = median_pass(r, 0, &n, &sink);
	report_events("reader (memory)", ns, n, o.bytes, clk);
	ggmlviz_reader_close(r);
	free(copy);
	printf("(checksum %llu)\n", (unsigned long long)sink);
	return 0;
}
