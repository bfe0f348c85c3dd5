/*
 * The machine's peak (peak_threads, GGML_VIZ_PEAK): measured when tracing
 * starts, recorded as META PEAK right after PROCESS, measured once a
 * process for a thread count; bad thread counts refused.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "trace-util.h"

struct peak {
	int seen, second; /* records, and whether PEAK came right after PROCESS */
	int index;
	uint64_t threads, bytes_per_s, flop_per_s;
	char how[200];
};

static int find_peak(const struct ggmlviz_event *ev, void *arg)
{
	struct peak *p = arg;

	p->index++;
	if (ev->type != GGMLVIZ_EVENT_META || ev->data.meta.kind != GGMLVIZ_META_PEAK)
		return 0;
	p->seen++;
	p->second = p->index == 2;
	p->threads = ev->data.meta.key;
	p->bytes_per_s = ev->data.meta.value;
	p->flop_per_s = ev->data.meta.value2;
	snprintf(p->how, sizeof p->how, "%.*s", (int)ev->label_len, ev->label ? ev->label : "");
	return 0;
}

static void traced(uint32_t threads, struct peak *p)
{
	struct ggmlviz_config cfg;
	char path[256];

	memset(p, 0, sizeof *p);
	tu_path(path, sizeof path, "peak");
	tu_config(&cfg, path);
	cfg.peak_threads = threads;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("m", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, find_peak, p), 0);
	unlink(path);
}

START_TEST(peak_recorded_once_per_thread_count)
{
	struct peak a, b, c;

	traced(2, &a);
	ck_assert_int_eq(a.seen, 1);
	ck_assert(a.second); /* right after PROCESS */
	ck_assert_uint_eq(a.threads, 2);
	/* plausible for any machine that runs this: over 100 MB/s and 100 MFLOP/s */
	ck_assert_uint_gt(a.bytes_per_s, 100000000u);
	ck_assert_uint_gt(a.flop_per_s, 100000000u);
	ck_assert_msg(strstr(a.how, "2 threads"), "%s", a.how);
	traced(2, &b); /* the same thread count: the same measure, not another */
	ck_assert_str_eq(b.how, a.how);
	ck_assert_uint_eq(b.bytes_per_s, a.bytes_per_s);
	traced(0, &c); /* not asked for: not measured */
	ck_assert_int_eq(c.seen, 0);
}
END_TEST

START_TEST(bad_thread_count_refused)
{
	struct ggmlviz_config cfg;
	char path[256];

	tu_path(path, sizeof path, "peak-bad");
	tu_config(&cfg, path);
	cfg.peak_threads = 1025;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	cfg.peak_threads = 1;
	cfg.reserved3_u32 = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("the machine's peak");
	TCase *c = tcase_create("peak");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, peak_recorded_once_per_thread_count);
	tcase_add_test(c, bad_thread_count_refused);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
