/*
 * bench_writer: whether the writer keeps up, in one run.
 *
 * Each round measures the page cache's own write() bandwidth (1 MiB
 * batches to the same folder, what the writer hands the kernel per pass at
 * most) and then a flood: N producer threads emitting op
 * begin/end pairs as fast as they can for RUN_S (0.25 s), in drop mode
 * (what the writer takes from producers that never wait) or block mode
 * (lossless: producers wait for room). The flood begins once every
 * producer's ring is made (its first event maps and faults it in: four
 * rings of 2^20 events took 120 to 260 ms of this machine's two cores,
 * which a flood that counted them read as a writer several times slower),
 * and that time is printed apart. Printed: events written per second
 * until the stop has drained everything, what was dropped, and the
 * writer's bandwidth as a ratio to the loop's in the same round: medians
 * of per-round figures over 5 rounds after a warm-up round. Also the CPU
 * time each takes: the writer's (the process's CPU time in the flood less
 * the producers') against the loop's own, as events per CPU-second, which
 * is what each would move with a core to itself (this machine's 2 cores
 * are shared by the producers and the writer). N is 1, 4 and every core;
 * rings of the default 2^16 events and of 2^20. Then the same floods to
 * /dev/null (what the writer moves with no page cache behind it), and one
 * producer paced at 20 M events/s in drop mode: from the default ring,
 * which grows when its thread is that busy (buffer_events_max), from the
 * same ring kept at its size, and from a ring of 2^20 events.
 *
 * Usage: bench_writer [DIR] [--threads N] [--ring EVENTS] [--paced] (default
 * $TMPDIR or /tmp, every count, both rings; --paced: only the paced runs);
 * the files are deleted afterwards.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#include "bench.h"

#define ROUNDS 5
/*
 * Seconds per flood and per page-cache run: 0.25 s writes well under a
 * gigabyte, below the kernel's dirty-page thresholds (vm.dirty_background_ratio
 * of memory), so that both measure the page cache and not how fast the
 * kernel's flusher empties it to the disk.
 */
#define RUN_S 0.25
static char path[4096];

/* Where floods go: the trace file, or /dev/null to measure the writer without the page cache. */
static const char *flood_output = path;

/* The most a ring grows to in the next sessions: 0, the default; buffer_events: no growth. */
static uint32_t ring_max;

static int start(uint32_t buffer_events, int overflow)
{
	struct ggmlviz_config cfg;

	ggmlviz_config_init(&cfg);
	cfg.output = flood_output;
	cfg.buffer_events = buffer_events;
	cfg.buffer_events_max = ring_max;
	cfg.max_events = 0; /* no limit (the default stops at 10 M) */
	cfg.overflow = overflow;
	return ggmlviz_start(&cfg);
}

static void emit_pairs(int pairs)
{
	static const char label[] = "attn_output-1"; /* 13 bytes: 64-byte records */

	for (int i = 0; i < pairs; i++) {
		const void *t = (const void *)(uintptr_t)(0x1000 + 64 * (i & 255));
		ggmlviz_op_begin(t, 23, 4096, NULL, label);
		ggmlviz_op_end(t, 23, 4096, NULL, label);
	}
}

/* What one measurement gave: bytes per second, and bytes per CPU-second of the writer (or loop). */
struct rate {
	double mbps, mb_per_cpu_s;
	double offered, written, dropped_pct; /* floods only: M events/s, M events/s, % */
	double setup_ms;   /* floods: until every producer's ring was made (its first event in) */
};

static uint64_t cpu_ns(clockid_t which)
{
	struct timespec ts;

	clock_gettime(which, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* write() of 1 MiB for `seconds`. */
static struct rate page_cache(double seconds)
{
	static char buf[1u << 20];
	char file[4200];
	struct rate r = { 0, 0, 0, 0, 0, 0 };
	uint64_t t0, c0, bytes = 0;
	int fd;

	snprintf(file, sizeof file, "%s.pagecache", path);
	memset(buf, 0x5a, sizeof buf);
	fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return r;
	t0 = bench_now_ns();
	c0 = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	while (bench_now_ns() - t0 < (uint64_t)(seconds * 1e9))
		if (write(fd, buf, sizeof buf) == (ssize_t)sizeof buf)
			bytes += sizeof buf;
	r.mbps = (double)bytes / ((double)(bench_now_ns() - t0) / 1e3);
	r.mb_per_cpu_s = (double)bytes / ((double)(cpu_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / 1e3);
	close(fd);
	unlink(file);
	return r;
}

struct producer {
	pthread_t thread;
	pthread_barrier_t *ready;
	uint64_t cpu_ns;   /* its CPU time, at its end */
	uint64_t made_ns;  /* when its first event was in: its ring made */
};

static void *produce(void *arg)
{
	struct producer *p = arg;
	uint64_t until;

	emit_pairs(1); /* its ring: mapped and faulted in */
	p->made_ns = bench_now_ns();
	pthread_barrier_wait(p->ready); /* the flood starts once every ring is made */
	until = bench_now_ns() + (uint64_t)(RUN_S * 1e9);
	while (bench_now_ns() < until)
		emit_pairs(1000);
	p->cpu_ns = cpu_ns(CLOCK_THREAD_CPUTIME_ID);
	return NULL;
}

/* n producers for RUN_S; the writer's figures until the stop has drained everything. */
static struct rate flood(int n, uint32_t ring, int overflow)
{
	struct producer t[256];
	pthread_barrier_t ready;
	struct ggmlviz_stats st;
	struct rate r;
	uint64_t t0, ns, c0, writer_cpu, made;

	start(ring, overflow);
	pthread_barrier_init(&ready, NULL, (unsigned)n + 1);
	made = bench_now_ns();
	for (int i = 0; i < n; i++) {
		t[i].ready = &ready;
		pthread_create(&t[i].thread, NULL, produce, &t[i]);
	}
	pthread_barrier_wait(&ready); /* every ring made: the flood begins */
	t0 = bench_now_ns();
	c0 = cpu_ns(CLOCK_PROCESS_CPUTIME_ID); /* the main thread then waits: what is not the producers' is the writer's */
	for (int i = 0; i < n; i++)
		pthread_join(t[i].thread, NULL);
	ggmlviz_stop();
	ns = bench_now_ns() - t0;
	writer_cpu = cpu_ns(CLOCK_PROCESS_CPUTIME_ID) - c0;
	for (int i = 0; i < n; i++)
		writer_cpu -= t[i].cpu_ns < writer_cpu ? t[i].cpu_ns : writer_cpu;
	ggmlviz_get_stats(&st);
	unlink(path);
	pthread_barrier_destroy(&ready);
	r.setup_ms = (double)(t0 - made) / 1e6;
	r.offered = (double)st.emitted / ((double)ns / 1e3);
	r.written = (double)st.written / ((double)ns / 1e3);
	r.dropped_pct = st.emitted ? 100.0 * (double)st.dropped / (double)st.emitted : 0;
	r.mbps = (double)st.bytes_written / ((double)ns / 1e3);
	r.mb_per_cpu_s = writer_cpu ? (double)st.bytes_written / ((double)writer_cpu / 1e3) : 0;
	return r;
}

/* One warm-up and ROUNDS rounds of page cache then flood; medians of per-round figures. */
static void flood_series(int n, uint32_t ring, int overflow)
{
	double cache[ROUNDS], written[ROUNDS], offered[ROUNDS], lost[ROUNDS], ratio[ROUNDS];
	double writer_cpu[ROUNDS], loop_cpu[ROUNDS], setup[ROUNDS];
	int lossless = 0;

	page_cache(RUN_S);
	flood(n, ring, overflow);
	for (int i = 0; i < ROUNDS; i++) {
		struct rate c = page_cache(RUN_S), f = flood(n, ring, overflow);

		cache[i] = c.mbps / 64.0; /* M events of 64 bytes per second */
		offered[i] = f.offered;
		written[i] = f.written;
		lost[i] = f.dropped_pct;
		lossless += f.dropped_pct == 0;
		ratio[i] = f.mbps / c.mbps;
		writer_cpu[i] = f.mb_per_cpu_s / 64.0;
		loop_cpu[i] = c.mb_per_cpu_s / 64.0;
		setup[i] = f.setup_ms;
	}
	printf("%d producer%s, ring of %" PRIu32 " events%s, %s mode: %.1f M events/s offered, %.1f "
	       "M/s written, %.2f%% dropped (%d of %d rounds lossless) = %.2fx the page cache's "
	       "write() loop (%.1f M events/s)\n",
	       n, n == 1 ? "" : "s", ring,
	       overflow == GGMLVIZ_OVERFLOW_DROP && ring < (1u << 20) ? " (grows)" : "",
	       overflow == GGMLVIZ_OVERFLOW_BLOCK ? "block" : "drop",
	       bench_median(offered, ROUNDS), bench_median(written, ROUNDS),
	       bench_median(lost, ROUNDS), lossless, ROUNDS, bench_median(ratio, ROUNDS),
	       bench_median(cache, ROUNDS));
	printf("    per CPU-second: the writer %.1f M events, the write() loop %.1f M\n",
	       bench_median(writer_cpu, ROUNDS), bench_median(loop_cpu, ROUNDS));
	printf("    before it: the producers' rings made (mapped and faulted in, at each one's first "
	       "event) in %.1f ms\n", bench_median(setup, ROUNDS));
}

/*
 * The same flood written to /dev/null: what the writer moves when the page
 * cache is not behind it (scanning, converting stamps, one writev per
 * pass), which is what it could give a faster page cache.
 */
static void null_series(int n, uint32_t ring)
{
	double written[ROUNDS], writer_cpu[ROUNDS];
	int lossless = 0;

	flood_output = "/dev/null";
	flood(n, ring, GGMLVIZ_OVERFLOW_BLOCK);
	for (int i = 0; i < ROUNDS; i++) {
		struct rate f = flood(n, ring, GGMLVIZ_OVERFLOW_BLOCK);

		written[i] = f.written;
		writer_cpu[i] = f.mb_per_cpu_s / 64.0;
		lossless += f.dropped_pct == 0;
	}
	flood_output = path;
	printf("%d producer%s, ring of %" PRIu32 " events, block mode, to /dev/null (no page cache): "
	       "%.1f M events/s written (%d of %d rounds lossless); the writer %.1f M events per "
	       "CPU-second\n", n, n == 1 ? "" : "s", ring, bench_median(written, ROUNDS), lossless,
	       ROUNDS, bench_median(writer_cpu, ROUNDS));
}

/* Emits at `rate` events per second for 1 s (bursts of 2000); the share dropped, %. */
static double paced(uint32_t buffer_events, double rate)
{
	uint64_t t0, sent = 0, total = (uint64_t)rate;
	struct ggmlviz_stats st;

	start(buffer_events, GGMLVIZ_OVERFLOW_DROP);
	t0 = bench_now_ns();
	while (sent < total) {
		while ((double)(bench_now_ns() - t0) * rate / 1e9 < (double)sent)
			;
		emit_pairs(1000);
		sent += 2000;
	}
	ggmlviz_stop();
	ggmlviz_get_stats(&st);
	unlink(path);
	return 100.0 * (double)st.dropped / (double)st.emitted;
}

/*
 * 20 M events/s offered for 1 s by one thread, after an untimed run (fresh
 * page-cache memory costs a VM a first touch): of 5 runs, how many lost
 * nothing, and the median share dropped. max: the most the ring grows to
 * (0: the default).
 */
static void paced_series(uint32_t buffer_events, uint32_t max, const char *what)
{
	double lost[5];
	int clean = 0;

	ring_max = max;
	paced(buffer_events, 20e6);
	for (int i = 0; i < 5; i++) {
		lost[i] = paced(buffer_events, 20e6);
		clean += lost[i] == 0;
	}
	ring_max = 0;
	printf("paced at 20 M events/s for 1 s, 1 producer, %s: %d of 5 runs dropped nothing; "
	       "median %.3f%% dropped\n", what, clean, bench_median(lost, 5));
}

int main(int argc, char **argv)
{
	const char *dir = getenv("TMPDIR");
	int counts[3] = { 1, 4, (int)sysconf(_SC_NPROCESSORS_ONLN) }, n = 3, only = 0;
	uint32_t rings[2] = { 1u << 16, 1u << 20 }, n_rings = 2;
	int paced_only = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			only = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--paced"))
			paced_only = 1;
		else if (!strcmp(argv[i], "--ring") && i + 1 < argc)
			rings[0] = (uint32_t)strtoul(argv[++i], NULL, 0), n_rings = 1;
		else
			dir = argv[i];
	snprintf(path, sizeof path, "%s/bench-writer-%ld.ggmlviz", dir ? dir : "/tmp", (long)getpid());
	if (only > 0 && only <= 256) {
		counts[0] = only;
		n = 1;
	} else if (counts[2] <= 4 || counts[2] > 256) {
		n = 2;
	}
	printf("%ld cores online; floods of %.2f s, 64-byte events\n", sysconf(_SC_NPROCESSORS_ONLN),
	       RUN_S);
	if (paced_only) {
		paced_series(rings[0], 0, n_rings == 1 ? "ring of --ring events, growing"
						       : "default ring (2^16 events, grows)");
		paced_series(rings[0], rings[0], n_rings == 1 ? "ring of --ring events, kept"
							      : "default ring kept at 2^16 events");
		return 0;
	}
	for (uint32_t k = 0; k < n_rings; k++)
		for (int i = 0; i < n; i++) {
			flood_series(counts[i], rings[k], GGMLVIZ_OVERFLOW_DROP);
			flood_series(counts[i], rings[k], GGMLVIZ_OVERFLOW_BLOCK);
		}
	for (int i = 0; i < n; i++)
		null_series(counts[i], rings[0]);
	if (only == 0 && n_rings == 2) {
		paced_series(1u << 16, 0, "default ring (2^16 events, grows)");
		paced_series(1u << 16, 1u << 16, "default ring kept at 2^16 events");
		paced_series(1u << 20, 0, "ring of 2^20 events");
	}
	return 0;
}
