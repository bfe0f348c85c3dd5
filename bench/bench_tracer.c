/*
 * bench_tracer: what recording costs the application, in one run.
 *
 * Prints ns per recorded event (op begin + end with a 13-byte label) on 1
 * and 2 threads, as ratios to one clock_gettime() and one rdtsc measured in
 * each round, the instructions per event where perf_event_open allows, ns per
 * call when tracing is not started, and how often the tracer's threads wake
 * in a session where nothing happens (the writer's throughput:
 * bench_writer). Usage: bench_tracer [DIR] (default $TMPDIR
 * or /tmp); the trace files are deleted afterwards. bench_tracer
 * --emit-only N only records 2N pairs, for bench/insns.sh.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#include "bench.h"

#define RUNS 15
/*
 * Per run: 100k events (6.4 MB) into a 2^18-event (16 MiB) ring, then a
 * pause while the writer drains it. The ring stays in the CPU's caches, as
 * it does in an application that drains at least every millisecond; a ring
 * far larger than the caches would measure this machine's memory bandwidth
 * instead (bench_writer measures floods).
 */
#define PAIRS 50000
#define MEASURE_RING (1u << 18)

static char path[4096];
static double clock_ns;

static int start(uint32_t buffer_events, uint64_t max_events)
{
	struct ggmlviz_config cfg;

	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.buffer_events = buffer_events;
	cfg.max_events = max_events;
	return ggmlviz_start(&cfg);
}

/* One run of op begin/end pairs; returns ns per event. Not inlined: bench/insns.sh counts it. */
__attribute__((noinline)) static double emit_pairs(int pairs)
{
	static const char label[] = "attn_output-1"; /* 13 bytes */
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < pairs; i++) {
		const void *t = (const void *)(uintptr_t)(0x1000 + 64 * (i & 255));
		ggmlviz_op_begin(t, 23, 4096, NULL, label);
		ggmlviz_op_end(t, 23, 4096, NULL, label);
	}
	return (double)(bench_now_ns() - t0) / (2.0 * pairs);
}

/* ns per clock_gettime() and per rdtsc, over short loops: measured in each round. */
static double clock_round(void)
{
	volatile uint64_t sink = 0;
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < 20000; i++)
		sink += bench_now_ns();
	(void)sink;
	return (double)(bench_now_ns() - t0) / 20000;
}

static double rdtsc_round(void)
{
#if defined(__x86_64__)
	volatile uint64_t sink = 0;
	uint64_t t0 = bench_now_ns();

	for (int i = 0; i < 20000; i++)
		sink += __builtin_ia32_rdtsc();
	(void)sink;
	return (double)(bench_now_ns() - t0) / 20000;
#else
	return 0;
#endif
}

/* One round's figures: ns per event, and the two clocks measured just before. */
struct round {
	double event, clock, rdtsc;
};

/* Runs separated by a pause that lets the writer drain: no run measures drops. */
static void *thread_runs(void *arg)
{
	struct round *rounds = arg;

	for (int r = 0; r < RUNS; r++) {
		rounds[r].clock = clock_round();
		rounds[r].rdtsc = rdtsc_round();
		rounds[r].event = emit_pairs(PAIRS);
		usleep(50000);
	}
	return NULL;
}

/* Medians over RUNS rounds on each of n threads: ns per event and its ratios to the clocks. */
static struct round per_event(int n)
{
	struct round rounds[2][RUNS], med;
	double ev[2 * RUNS], vs_clock[2 * RUNS], vs_tsc[2 * RUNS];
	pthread_t th[2];
	struct ggmlviz_stats st;
	size_t k = 0;

	start(MEASURE_RING, 0);
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, thread_runs, rounds[i]);
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	ggmlviz_stop();
	ggmlviz_get_stats(&st);
	if (st.dropped)
		printf("  (warning: %" PRIu64 " events dropped during the measurement)\n", st.dropped);
	for (int i = 0; i < n; i++)
		for (int r = 0; r < RUNS; r++, k++) {
			ev[k] = rounds[i][r].event;
			vs_clock[k] = rounds[i][r].event / rounds[i][r].clock;
			vs_tsc[k] = rounds[i][r].rdtsc > 0 ? rounds[i][r].event / rounds[i][r].rdtsc : 0;
		}
	med.event = bench_median(ev, k);
	med.clock = bench_median(vs_clock, k); /* ratios, not times */
	med.rdtsc = bench_median(vs_tsc, k);
	return med;
}

/* User-space instructions per recorded event (perf_event_open), or -1 where not allowed. */
static double instructions_per_event(void)
{
	struct perf_event_attr a;
	uint64_t count = 0;
	int fd;

	memset(&a, 0, sizeof a);
	a.type = PERF_TYPE_HARDWARE;
	a.size = sizeof a;
	a.config = PERF_COUNT_HW_INSTRUCTIONS;
	a.disabled = 1;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
	if (fd < 0)
		return -1;
	start(MEASURE_RING, 0);
	emit_pairs(PAIRS); /* warm: the ring exists, the labels are known */
	usleep(50000);
	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	emit_pairs(PAIRS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	ggmlviz_stop();
	if (read(fd, &count, sizeof count) != (ssize_t)sizeof count)
		count = 0;
	close(fd);
	return count ? (double)count / (2.0 * PAIRS) : -1;
}

static double not_started(void)
{
	double s[RUNS];

	for (int r = 0; r < RUNS; r++)
		s[r] = emit_pairs(10 * PAIRS);
	return bench_median(s, RUNS);
}

/* Context switches (voluntary and not) of the process's threads named name. */
static uint64_t switches_of(const char *name)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	uint64_t total = 0;

	while (d && (e = readdir(d))) {
		char file[300], line[256];
		FILE *f;
		int named = 0;

		snprintf(file, sizeof file, "/proc/self/task/%s/status", e->d_name);
		if (e->d_name[0] == '.' || !(f = fopen(file, "r")))
			continue;
		while (fgets(line, sizeof line, f)) {
			unsigned long long n;
			if (!strncmp(line, "Name:", 5))
				named = strstr(line, name) != NULL;
			else if (named && (sscanf(line, "voluntary_ctxt_switches: %llu", &n) == 1 ||
					   sscanf(line, "nonvoluntary_ctxt_switches: %llu", &n) == 1))
				total += n;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	return total;
}

/* Wake-ups per second of the tracer's threads over 2 s in which nothing is emitted. */
static double idle_wakeups(void)
{
	const struct timespec two = { 2, 0 }, settle = { 0, 200 * 1000 * 1000 };
	uint64_t before;

	if (start(1u << 16, 0) < 0)
		return -1;
	ggmlviz_mark("start", 0); /* this thread's ring, as in a program that traced once */
	nanosleep(&settle, NULL);
	before = switches_of("ggmlviz-writer");
	nanosleep(&two, NULL);
	before = switches_of("ggmlviz-writer") - before;
	ggmlviz_stop();
	return (double)before / 2.0;
}

/* --emit-only N: a session, N pairs to warm up, N more, the stop (bench/insns.sh counts). */
static int emit_only(const char *pairs)
{
	int n = atoi(pairs);

	if (n <= 0)
		return 2;
	start(MEASURE_RING, 0);
	emit_pairs(n);
	emit_pairs(n);
	ggmlviz_stop();
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 && argv[1][0] != '-' ? argv[1] : getenv("TMPDIR");
	struct round one, two;
	double off, insns;

	snprintf(path, sizeof path, "%s/bench-tracer-%ld.ggmlviz", dir ? dir : "/tmp", (long)getpid());
	if (argc > 2 && !strcmp(argv[1], "--emit-only"))
		return emit_only(argv[2]);
	clock_ns = bench_clock_cost_ns();
	printf("clock_gettime(CLOCK_MONOTONIC): %.1f ns\n", clock_ns);
	one = per_event(1);
	printf("recorded event (op begin/end, 13-byte label), 1 thread: %.1f ns = %.2fx "
	       "clock_gettime, %.2fx rdtsc (medians of per-round ratios, both clocks measured "
	       "in each round)\n", one.event, one.clock, one.rdtsc);
	two = per_event(2);
	printf("recorded event, 2 threads at once: %.1f ns per event per thread = %.2fx "
	       "clock_gettime, %.2fx rdtsc\n", two.event, two.clock, two.rdtsc);
	insns = instructions_per_event();
	if (insns < 0)
		printf("instructions per recorded event: not measurable here (perf_event_open: %s; "
		       "bench/insns.sh counts them with callgrind)\n", strerror(errno));
	else
		printf("instructions per recorded event (user space, perf_event_open): %.1f\n", insns);
	off = not_started();
	printf("not started: %.2f ns per call\n", off);
	printf("idle session (nothing emitted, flush interval 100 ms): %.1f wake-ups/s of the "
	       "tracer's threads\n", idle_wakeups());
	unlink(path);
	return 0;
}
