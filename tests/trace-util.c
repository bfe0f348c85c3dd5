/*
 * Helpers of the tracer tests.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "plain-util.h"
#include "trace-util.h"

void tu_path(char *buf, size_t size, const char *tag)
{
	static unsigned n;
	const char *dir = getenv("TMPDIR");

	snprintf(buf, size, "%s/ggmlviz-test-%ld-%u-%s.ggmlviz", dir ? dir : "/tmp", (long)getpid(),
		 n++, tag);
	unlink(buf);
}

void tu_config(struct ggmlviz_config *cfg, const char *path)
{
	ggmlviz_config_init(cfg);
	cfg->output = path;
	cfg->flush_interval_ms = 5;
}

void tu_config_cpu(struct ggmlviz_config *cfg, char *path, size_t size, const char *tag)
{
	tu_path(path, size, tag);
	tu_config(cfg, path);
	cfg->gpu_kernels = 0;
}

void tu_wait_written_past(uint64_t written)
{
	struct ggmlviz_stats st;

	do {
		usleep(1000);
		ggmlviz_get_stats(&st);
	} while (st.written <= written);
}

void tu_wait_for_a_pass(void)
{
	tu_wait_written_past(0);
}

uint32_t tu_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t tu_realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

uint64_t tu_monotonic_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

void tu_spin_ns(uint64_t ns)
{
	uint64_t until = tu_monotonic_ns() + ns;

	while (tu_monotonic_ns() < until)
		;
}

void tu_sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) < 0)
		;
}

static int is_accounting(const struct ggmlviz_event *ev)
{
	return ev->type == GGMLVIZ_EVENT_META &&
	       (ev->data.meta.kind == GGMLVIZ_META_PROCESS ||
		ev->data.meta.kind == GGMLVIZ_META_DROPPED ||
		ev->data.meta.kind == GGMLVIZ_META_TRACE_END ||
		ev->data.meta.kind == GGMLVIZ_META_GPU ||
		ev->data.meta.kind == GGMLVIZ_META_CLOCK ||
		ev->data.meta.kind == GGMLVIZ_META_USAGE);
}

static void count(struct tu_summary *s, const struct ggmlviz_event *ev)
{
	int end = ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_TRACE_END;

	s->records++;
	s->by_type[ev->type]++;
	s->events += !is_accounting(ev);
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind < 32)
		s->by_meta[ev->data.meta.kind]++;
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_DROPPED)
		s->dropped_noted += ev->data.meta.value;
	s->trace_end_last = end;
	if (end) {
		s->end_written = ev->data.meta.value;
		s->end_dropped = ev->data.meta.value2;
	}
}

int tu_summarize(const char *path, struct tu_summary *s)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int rc;

	memset(s, 0, sizeof *s);
	rc = ggmlviz_reader_open(path, &r);
	if (rc < 0)
		return rc;
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		count(s, &ev);
	s->end_rc = rc;
	s->size = ggmlviz_reader_size(r);
	ggmlviz_reader_close(r);
	return 0;
}

char tu_messages[8192];
int tu_n_messages;

void tu_capture(void *user, int level, const char *msg)
{
	(void)user;
	(void)level;
	strncat(tu_messages, msg, sizeof tu_messages - strlen(tu_messages) - 2);
	strcat(tu_messages, "\n");
	tu_n_messages++;
}

void tu_capture_clear(void)
{
	tu_messages[0] = '\0';
	tu_n_messages = 0;
}

int tu_type_counts(const char *path, uint64_t by_type[256])
{
	struct tu_summary s;
	int rc = tu_summarize(path, &s);

	memcpy(by_type, s.by_type, sizeof s.by_type);
	return rc < 0 ? rc : s.end_rc != 0 || !s.trace_end_last;
}

int tu_each_timing(const char *path, void (*fn)(const struct ggmlviz_timing *t, void *arg),
		   void *arg)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	int rc = ggmlviz_reader_open(path, &r);

	if (rc < 0)
		return rc;
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1)
		fn(&t, arg);
	ggmlviz_reader_close(r);
	return rc;
}

int tu_each(const char *path, int (*fn)(const struct ggmlviz_event *ev, void *arg), void *arg)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int rc = ggmlviz_reader_open(path, &r);

	if (rc < 0)
		return rc;
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		if (fn(&ev, arg)) {
			rc = 0;
			break;
		}
	ggmlviz_reader_close(r);
	return rc;
}
