/*
 * What packing costs (GGML_VIZ_PACK, ggmlviz(5) "Packed records"): the
 * records of a trace packed as the writer packs them (runs of one
 * thread's packable records, a body of 64 KiB at most), and read back by
 * ggmlviz_reader_next, against the same trace read unpacked; each the
 * median of several passes, in ns a record, next to one clock_gettime,
 * and the bytes before and after.
 *
 * usage: bench_pack TRACE   (a trace written without GGML_VIZ_PACK)
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ggmlviz/reader.h>

#include "bench.h"
#include "format/pack.h"

#define PASSES 5

struct buf {
	uint8_t *data;
	size_t size;
	uint64_t records;
};

static void slurp(const char *path, struct buf *b)
{
	FILE *f = fopen(path, "rb");
	struct stat st;

	if (!f || fstat(fileno(f), &st) < 0 || !(b->data = malloc((size_t)st.st_size)) ||
	    fread(b->data, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		perror(path);
		exit(1);
	}
	b->size = (size_t)st.st_size;
	fclose(f);
}

/* Reads data whole; returns the records, and the ns it took in *ns. */
static uint64_t read_all(const uint8_t *data, size_t size, double *ns)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	uint64_t n = 0, t0;

	if (ggmlviz_reader_open_memory(data, size, &r) < 0)
		exit(1);
	t0 = bench_now_ns();
	while (ggmlviz_reader_next(r, &ev) == 1)
		n++;
	*ns = (double)(bench_now_ns() - t0);
	ggmlviz_reader_close(r);
	return n;
}

static double clock_cost(void)
{
	uint64_t t0 = bench_now_ns(), sink = 0;

	for (int i = 0; i < 1000000; i++)
		sink += bench_now_ns();
	return (double)(bench_now_ns() - t0 - (sink & 1)) / 1e6;
}

int main(int argc, char **argv)
{
	struct buf in;
	uint8_t *out;
	size_t packed = 0;
	double pack[PASSES], plain[PASSES], unpack[PASSES], ns;
	uint64_t records = 0, records_packed = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: bench_pack TRACE\n");
		return 2;
	}
	slurp(argv[1], &in);
	if (!(out = malloc(3 * in.size + 4096)))
		return 1;
	for (int i = 0; i <= PASSES; i++) { /* pass 0 warms up */
		uint64_t t0 = bench_now_ns();

		packed = ggmlviz__pack_trace(in.data, in.size, out);
		ns = (double)(bench_now_ns() - t0);
		records = read_all(in.data, in.size, &plain[i ? i - 1 : 0]);
		records_packed = read_all(out, packed, &unpack[i ? i - 1 : 0]);
		if (i)
			pack[i - 1] = ns;
	}
	if (records != records_packed) {
		fprintf(stderr, "bench_pack: %llu records read packed, %llu unpacked\n",
			(unsigned long long)records_packed, (unsigned long long)records);
		return 1;
	}
	printf("records %llu; bytes %zu unpacked, %zu packed (%.3f); clock_gettime %.1f ns\n",
	       (unsigned long long)records, in.size, packed, (double)packed / (double)in.size,
	       clock_cost());
	printf("pack (the writer's work)  %.1f ns a record (median of %d passes)\n",
	       bench_median(pack, PASSES) / (double)records, PASSES);
	printf("read unpacked             %.1f ns a record\n",
	       bench_median(plain, PASSES) / (double)records);
	printf("read packed               %.1f ns a record\n",
	       bench_median(unpack, PASSES) / (double)records);
	free(out);
	free(in.data);
	return 0;
}
