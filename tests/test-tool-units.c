/*
 * Unit tests of the pieces of the ggmlviz command that its end-to-end
 * tests (tests/test-tool.sh) reach only in part: the hash table under many
 * removals, the quantile error bound on random durations, strict UTF-8,
 * JSON and CSV escaping, the parsing of durations and counts, and the
 * steps' time between a trace's USAGE records.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "trace-util.h"

#include "stats/stats.h"
#include "base/anon.h"
#include "base/htab.h"
#include "input/input.h"
#include "base/opts.h"
#include "output/output.h"
#include "advise/usage.h"

struct item {
	uint64_t key;
};

static bool item_eq(const void *item, const void *key)
{
	return ((const struct item *)item)->key == *(const uint64_t *)key;
}

/*
 * A poor hash on purpose: every key wants one of the last 7 slots, so runs
 * of collisions are long and wrap around the end of the table, the hard
 * cases of backward-shift deletion.
 */
static uint64_t bad_hash(uint64_t key)
{
	return ~(key % 7);
}

START_TEST(htab_survives_removals)
{
	enum { N = 2000 };
	static struct item items[N];
	struct cli_htab t = { 0 };
	uint64_t state = 12345;

	for (uint64_t i = 0; i < N; i++) {
		items[i].key = i;
		ck_assert_int_eq(cli_htab_add(&t, bad_hash(i), &items[i]), 0);
	}
	for (int round = 0; round < 3 * N; round++) {
		uint64_t k;

		state = state * 6364136223846793005ull + 1442695040888963407ull;
		k = (state >> 33) % N;
		if (cli_htab_find(&t, bad_hash(k), item_eq, &k)) {
			ck_assert_ptr_eq(cli_htab_remove(&t, bad_hash(k), item_eq, &k), &items[k]);
			ck_assert_ptr_null(cli_htab_find(&t, bad_hash(k), item_eq, &k));
		} else {
			ck_assert_int_eq(cli_htab_add(&t, bad_hash(k), &items[k]), 0);
		}
	}
	/* every key still in is found, and the count agrees with a walk */
	size_t cursor = 0, walked = 0;
	struct item *it;
	while ((it = cli_htab_next(&t, &cursor))) {
		ck_assert_ptr_eq(cli_htab_find(&t, bad_hash(it->key), item_eq, &it->key), it);
		walked++;
	}
	ck_assert_uint_eq(walked, t.count);
	cli_htab_free(&t);
}
END_TEST

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* p50 and p95 of random durations over 9 decades: within 1/64 of nearest rank. */
START_TEST(quantiles_within_bound)
{
	enum { N = 5001 };
	static uint64_t v[N];
	uint64_t spent = 0;
	struct cli_dist d = { .spent = &spent };
	uint64_t state = 42 + (uint64_t)_i, total = 0;
	static const double qs[] = { 0.01, 0.5, 0.9, 0.95, 0.99, 1.0 };

	for (int i = 0; i < N; i++) {
		state = state * 6364136223846793005ull + 1442695040888963407ull;
		v[i] = (uint64_t)pow(10.0, (double)(state >> 11) / 9007199254740992.0 * 9.0);
		total += v[i];
		ck_assert_int_eq(cli_dist_add(&d, v[i]), 0);
	}
	qsort(v, N, sizeof v[0], cmp_u64);
	ck_assert_uint_eq(d.count, N);
	ck_assert_uint_eq(d.total, total);
	ck_assert_uint_eq(d.min, v[0]);
	ck_assert_uint_eq(d.max, v[N - 1]);
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		uint64_t exact = v[(size_t)ceil(qs[i] * N) - 1], got = cli_dist_quantile(&d, qs[i]);
		double err = fabs((double)got - (double)exact);
		ck_assert_msg(err < (double)exact / 64 || (exact < 64 && err == 0),
			      "q%.2f: %llu for %llu", qs[i], (unsigned long long)got,
			      (unsigned long long)exact);
	}
	ck_assert_uint_gt(spent, 0); /* counted in the command's budget */
	cli_dist_free(&d);
	ck_assert_uint_eq(spent, 0);
}
END_TEST

/* --anonymize's ids belong to one run's state: 1, 2, ... per run, the same address the same id. */
START_TEST(anon_ids_per_run)
{
	struct cli_anon a = { 0 }, b = { 0 };

	ck_assert_uint_eq(cli_anon(&a, 0x7f00), 0x7f00); /* off: the address itself */
	cli_anon_enable(&a);
	cli_anon_enable(&b);
	ck_assert_uint_eq(cli_anon(&a, 0x7f00), 1);
	ck_assert_uint_eq(cli_anon(&a, 0x7f40), 2);
	ck_assert_uint_eq(cli_anon(&a, 0x7f00), 1);
	ck_assert_uint_eq(cli_anon(&a, 0), 0);
	ck_assert_uint_eq(cli_anon(&b, 0x7f40), 1); /* another run starts over */
	for (uint64_t i = 0; i < 20000; i++) /* several chunks of entries */
		ck_assert_uint_eq(cli_anon(&b, 0x10000 + 64 * i), i < 1 ? 2 : i + 2);
	ck_assert_uint_eq(cli_anon(&b, 0x7f40), 1);
	cli_anon_free(&a);
	cli_anon_free(&b);
	cli_anon_free(NULL);
}
END_TEST

/*
 * Op names from the original ggml-viz's numbering are assumed for a trace
 * that names no op, unless libggmlviz wrote it (cli_names_ours): its
 * unnamed ops are its user's own numbers.
 */
START_TEST(names_assumed_for_the_original_only)
{
	static const unsigned char header[12] = { 'G', 'G', 'M', 'L', 'V', 'I', 'Z', '1', 1, 0, 0, 0 };
	struct ggmlviz_reader *r;
	struct cli_names n;
	char buf[CLI_OP_NAME_MAX];

	ck_assert_ptr_nonnull(cli_assumed_op_name(29));
	ck_assert_int_eq(ggmlviz_reader_open_memory(header, sizeof header, &r), 0);
	cli_names_init(&n, NULL);
	cli_names_decide(&n, false);
	ck_assert_str_eq(cli_op_name(&n, r, 29, buf), cli_assumed_op_name(29));
	ck_assert(n.assumed);
	cli_names_free(&n);
	cli_names_decide(&n, false);
	cli_names_ours(&n);
	ck_assert_str_eq(cli_op_name(&n, r, 29, buf), "op#29");
	/* a fused pair named nowhere: by its parts, as the reader's ggmlviz_reader_write_op_name() */
	ck_assert_str_eq(cli_op_name(&n, r, GGMLVIZ_OP_TYPE_FUSE(24, 7), buf), "op#24+op#7");
	ck_assert(!n.assumed);
	cli_names_free(&n);
	ggmlviz_reader_close(r);
}
END_TEST

/* JSON inside an HTML page escapes < > &: a property of that output only. */
START_TEST(json_html_per_output)
{
	struct cli_out page, plain;

	cli_out_memory(&page);
	cli_out_memory(&plain);
	page.json_html = true;
	cli_json_cstr(&page, "</script>&");
	cli_json_cstr(&plain, "</script>&");
	cli_out_char(&page, '\0');
	cli_out_char(&plain, '\0');
	ck_assert_str_eq(page.buf, "\"\\u003c/script\\u003e\\u0026\"");
	ck_assert_str_eq(plain.buf, "\"</script>&\"");
	free(page.buf);
	free(plain.buf);
}
END_TEST

START_TEST(quantile_of_nothing)
{
	uint64_t spent = 0;
	struct cli_dist d = { .spent = &spent };

	ck_assert_uint_eq(cli_dist_quantile(&d, 0.5), 0);
	ck_assert_int_eq(cli_dist_add(&d, UINT64_MAX), 0);
	ck_assert_int_eq(cli_dist_add(&d, 0), 0);
	ck_assert_uint_eq(cli_dist_quantile(&d, 1.0), UINT64_MAX);
	ck_assert_uint_eq(cli_dist_quantile(&d, 0.5), 0);
	cli_dist_free(&d);
}
END_TEST

/* Writes through f into memory and returns the NUL-terminated text (freed by the caller). */
static char *render(void (*f)(struct cli_out *, const char *, size_t), const char *s,
		    size_t len)
{
	struct cli_out o;

	cli_out_memory(&o);
	f(&o, s, len);
	cli_out_char(&o, '\0');
	ck_assert_int_eq(o.error, 0);
	return o.buf;
}

static const struct {
	const char *in, *json, *text, *csv;
} escapes[] = {
	{ "plain", "\"plain\"", "plain", "plain" },
	{ "q\"b\\", "\"q\\\"b\\\\\"", "q\\\"b\\\\", "\"q\"\"b\\\"" },
	{ "\n\t\r\b\f\x01\x1f\x7f", "\"\\n\\t\\r\\b\\f\\u0001\\u001f\x7f\"",
	  "\\n\\t\\r\\x08\\x0c\\x01\\x1f\\x7f", "\"\n\t\r\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"" },
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
	  "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80" },
	/* overlong, surrogate, past U+10FFFF, lone continuation, cut sequence */
	{ "\xc0\xaf", "\"\\ufffd\\ufffd\"", "\\xc0\\xaf", "\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\"", "\\xe0\\x80\\xaf",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"", "\\xed\\xa0\\x80",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"", "\\xf4\\x90\\x80\\x80",
	  "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" },
	{ "\x80x", "\"\\ufffdx\"", "\\x80x", "\xef\xbf\xbdx" },
	{ "\xe2\x82x\xe2\x82", "\"\\ufffdx\\ufffd\"", "\\xe2\\x82x\\xe2\\x82",
	  "\xef\xbf\xbdx\xef\xbf\xbd" },
	{ "a,b", "\"a,b\"", "a,b", "\"a,b\"" },
	{ " pad", "\" pad\"", " pad", "\" pad\"" },
};

START_TEST(escaping)
{
	const char *in = escapes[_i].in;
	char *json = render(cli_json_str, in, strlen(in));
	char *text = render(cli_text_str, in, strlen(in));
	char *csv = render(cli_csv_str, in, strlen(in));

	ck_assert_str_eq(json, escapes[_i].json);
	ck_assert_str_eq(text, escapes[_i].text);
	ck_assert_str_eq(csv, escapes[_i].csv);
	free(json);
	free(text);
	free(csv);
}
END_TEST

START_TEST(json_null_and_numbers)
{
	struct cli_out o;

	cli_out_memory(&o);
	cli_json_str(&o, NULL, 0);
	cli_out_char(&o, ' ');
	cli_json_double(&o, (double)NAN);
	cli_out_char(&o, ' ');
	cli_json_double(&o, (double)INFINITY);
	cli_out_char(&o, ' ');
	cli_json_double(&o, 200.0);
	cli_out_char(&o, ' ');
	cli_json_us(&o, 1234567);
	cli_out_char(&o, ' ');
	cli_json_us(&o, 5);
	cli_out_char(&o, ' ');
	cli_out_i64(&o, INT64_MIN);
	cli_out_char(&o, ' ');
	cli_out_hex(&o, UINT64_MAX);
	cli_out_char(&o, '\0');
	ck_assert_str_eq(o.buf, "null null null 200 1234.567 0.005 -9223372036854775808 "
				"0xffffffffffffffff");
	free(o.buf);
}
END_TEST

START_TEST(durations)
{
	static const struct {
		const char *in;
		uint64_t ns;
	} good[] = {
		{ "0", 0 },		 { "15", 15 },		 { "15ns", 15 },
		{ "1.5us", 1500 },	 { "2ms", 2000000 },	 { "1.25s", 1250000000 },
		{ ".5ms", 500000 },	 { "3.", 3 },		 { "1.0000000009s", 1000000000 },
		{ "18446744073709551615", UINT64_MAX },
	};
	static const char *const bad[] = { "", "ms", ".", "1x", "-1", "1 ms", "1.2.3",
					   "18446744073709551616", "18446744074s" };
	uint64_t ns;

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		ck_assert_int_eq(cli_parse_duration("t", "--from", good[i].in, &ns), 0);
		ck_assert_uint_eq(ns, good[i].ns);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(cli_parse_duration("t", "--from", bad[i], &ns) ==
			      CLI_EXIT_USAGE, "'%s' taken", bad[i]);
}
END_TEST

START_TEST(counts_and_choices)
{
	static const char *const choices[] = { "op", "name", NULL };
	uint64_t v;
	int c;

	ck_assert_int_eq(cli_parse_count("t", "--top", "18446744073709551615", &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	ck_assert_int_eq(cli_parse_count("t", "--top", "18446744073709551616", &v),
			 CLI_EXIT_USAGE);
	ck_assert_int_eq(cli_parse_count("t", "--top", "", &v), CLI_EXIT_USAGE);
	ck_assert_int_eq(cli_parse_count("t", "--top", "+3", &v), CLI_EXIT_USAGE);
	ck_assert_int_eq(cli_parse_choice("t", "--by", "name", choices, &c), 0);
	ck_assert_int_eq(c, 1);
	ck_assert_int_eq(cli_parse_choice("t", "--by", "Name", choices, &c),
			 CLI_EXIT_USAGE);
}
END_TEST

/*
 * A session whose CPU backend (a pool of one thread, as a GGML built with
 * the shares' edit calls it) measures 3 nodes that no run asked about:
 * what stats reads of its META SHARES record says 3 unattributed; a trace
 * without the record says nothing, and a path that is no file is not read.
 */
START_TEST(shares_said_read_back)
{
	static char pool, nodes_mem[3];
	const void *nodes[3] = { &nodes_mem[0], &nodes_mem[1], &nodes_mem[2] };
	struct ggmlviz_config cfg;
	struct cli_shares_said said;
	char path[256];

	tu_config_cpu(&cfg, path, sizeof path, "shares-said");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < 3; i++) {
		ggmlviz_cpu_share_begin(&pool, 0, i);
		ggmlviz_cpu_share_end(&pool, 0, i);
	}
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, nodes, 3, NULL), 3);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	cli_shares_said_read(path, &said);
	ck_assert(said.read);
	ck_assert_uint_eq(said.sessions, 1);
	ck_assert_uint_eq(said.unattributed, 3);
	ck_assert_uint_eq(said.beyond, 0);
	/* a session that measured nothing says nothing */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	cli_shares_said_read(path, &said);
	ck_assert(said.read);
	ck_assert_uint_eq(said.sessions, 0);
	unlink(path);
	cli_shares_said_read(path, &said);
	ck_assert(!said.read);
}
END_TEST

/*
 * A fused pair of GGML's two longest op names is named whole by the
 * tools, as by ggmlviz_reader_write_op_name(): where names were cut at 23
 * bytes, "CROSS_ENTROPY_LOSS_BACK+CONV_TRANSPOSE_2D" printed as its first
 * part alone.
 */
START_TEST(fused_name_of_long_parts_whole)
{
	static const char first[] = "CROSS_ENTROPY_LOSS_BACK", second[] = "CONV_TRANSPOSE_2D";
	uint32_t fused = GGMLVIZ_OP_TYPE_FUSE(71, 52);
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r;
	struct cli_names n;
	char path[256], buf[CLI_OP_NAME_MAX], want[CLI_OP_NAME_MAX];
	static char tensor;

	tu_config_cpu(&cfg, path, sizeof path, "long-names");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, 71, first);
	ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, 52, second);
	ggmlviz_op_begin(&tensor, fused, 4, NULL, "fused");
	ggmlviz_op_end(&tensor, fused, 4, NULL, "fused");
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while (ggmlviz_reader_next(r, &(struct ggmlviz_event){ 0 }) == 1)
		; /* the names are known once read */
	cli_names_init(&n, NULL);
	cli_names_decide(&n, true);
	snprintf(want, sizeof want, "%s+%s", first, second);
	ck_assert_str_eq(cli_op_name(&n, r, fused, buf), want);
	ck_assert_int_eq(ggmlviz_reader_write_op_name(r, fused, buf, sizeof buf), (int)strlen(want));
	ck_assert_str_eq(buf, want);
	cli_names_free(&n);
	ggmlviz_reader_close(r);
	unlink(path);
}
END_TEST

/* An op timing of step, layer and phase lasting ns, into c. */
static void cold_op(struct cli_cold *c, uint64_t step, int32_t layer, uint32_t phase, uint64_t ns)
{
	struct ggmlviz_timing t = { 0 };

	t.kind = GGMLVIZ_TIMING_OP;
	t.step_seq = step;
	t.layer = layer;
	t.phase = phase;
	t.duration_ns = ns;
	cli_cold_add(c, &t);
}

/* Three layers, step 1's layer 0 taking first0, every later step's 100 a layer. */
static void cold_steps(struct cli_cold *c, uint64_t first0)
{
	memset(c, 0, sizeof *c);
	for (uint64_t step = 1; step <= 3; step++)
		for (int32_t l = 0; l < 3; l++)
			cold_op(c, step, l, step == 1 ? 1 : 2, step == 1 && l == 0 ? first0 : 100);
}

START_TEST(cold_first_step_edges)
{
	static struct cli_agg a; /* its cold, phase and steps only */
	struct cli_cold *c = &a.cold;
	struct cli_cold_found f;

	cold_steps(c, 300); /* 60% of step 1 against a third later: said */
	ck_assert(cli_cold_find(&a, &f));
	ck_assert_uint_eq(f.step, 1);
	ck_assert_uint_eq(f.layer, 0);
	ck_assert_uint_eq(f.ns, 300);
	ck_assert_uint_eq(f.layers_ns, 500);
	ck_assert_uint_eq(f.excess_ns, 133); /* 300 - 500 / 3 */
	a.phase = 1;                         /* its phase: in the view */
	ck_assert(cli_cold_find(&a, &f));
	a.phase = 2;                         /* another phase's view: not said */
	ck_assert(!cli_cold_find(&a, &f));
	a.phase = 0;
	a.step_range = (struct cli_steps){ 1, 3 }; /* --steps 1-3: in the view */
	ck_assert(cli_cold_find(&a, &f));
	a.step_range = (struct cli_steps){ 2, 0 }; /* --steps 2-: left out */
	ck_assert(!cli_cold_find(&a, &f));
	a.step_range = (struct cli_steps){ 0, 0 };
	cold_steps(c, 100); /* every step alike */
	ck_assert(!cli_cold_find(&a, &f));
	cold_steps(c, 20); /* a first step's layer 0 faster than later: nothing, no negative time */
	ck_assert(!cli_cold_find(&a, &f));
	ck_assert_uint_eq(f.excess_ns, 0);
	memset(c, 0, sizeof *c); /* two layers say nothing */
	for (uint64_t step = 1; step <= 2; step++)
		for (int32_t l = 0; l < 2; l++)
			cold_op(c, step, l, 2, step == 1 && l == 0 ? 1000 : 100);
	ck_assert(!cli_cold_find(&a, &f));
	memset(c, 0, sizeof *c); /* ops of no layer, no step, or past the layers followed: left */
	cold_op(c, 1, -1, 2, 1000);
	cold_op(c, 0, 0, 2, 1000);
	cold_op(c, 1, CLI_COLD_LAYERS, 2, 1000);
	ck_assert_uint_eq(c->first_step, 0);
	cold_steps(c, 300); /* no later step: nothing to tell it from */
	memset(c->later, 0, sizeof c->later);
	ck_assert(!cli_cold_find(&a, &f));
}
END_TEST

START_TEST(steps_ranges)
{
	static const struct {
		const char *val;
		uint64_t first, last; /* first = last = 99: refused */
	} cases[] = { { "2-9", 2, 9 }, { "2-", 2, 0 }, { "-9", 0, 9 }, { "3", 3, 3 },
		      { "4-4", 4, 4 }, { "0", 99, 99 }, { "0-3", 99, 99 }, { "9-2", 99, 99 },
		      { "-", 99, 99 }, { "", 99, 99 }, { "1-2-3", 99, 99 }, { "x", 99, 99 },
		      { "2-x", 99, 99 }, { "99999999999999999999", 99, 99 } };
	struct cli_steps s;

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int rc = cli_parse_steps("t", cases[i].val, &s);

		if (cases[i].first == 99) {
			ck_assert_msg(rc != 0, "--steps '%s' taken", cases[i].val);
			continue;
		}
		ck_assert_msg(rc == 0 && s.first == cases[i].first && s.last == cases[i].last,
			      "--steps '%s': %d, %llu to %llu", cases[i].val, rc,
			      (unsigned long long)s.first, (unsigned long long)s.last);
	}
	s = (struct cli_steps){ 2, 0 };
	ck_assert(!cli_steps_has(&s, 0) && !cli_steps_has(&s, 1) && cli_steps_has(&s, 2) &&
		  cli_steps_has(&s, 1000));
	s = (struct cli_steps){ 0, 3 };
	ck_assert(!cli_steps_has(&s, 0) && cli_steps_has(&s, 1) && cli_steps_has(&s, 3) &&
		  !cli_steps_has(&s, 4));
	s = (struct cli_steps){ 0, 0 }; /* not given: every step, and outside them */
	ck_assert(cli_steps_has(&s, 0) && cli_steps_has(&s, 7));
}
END_TEST

/*
 * --by part: the names llama.cpp's graph builder gives (a dense llama, a
 * mixture of experts, gemma: as the real traces of tests/tool-parts.py
 * show them), GGML's suffixes and fused pairs, and names no rule places.
 */
START_TEST(parts_of_llama_names)
{
	static const struct {
		const char *name, *op;
		int part;
	} cases[] = {
		{ "embd", "GET_ROWS", CLI_PART_EMBEDDING },
		{ "inp_scaled", "SCALE", CLI_PART_EMBEDDING },
		{ "norm-0 + attn_norm-0", "RMS_NORM+MUL", CLI_PART_NORM },
		{ "norm + result_norm", "RMS_NORM+MUL", CLI_PART_NORM },
		{ "Qcur-12", "MUL_MAT", CLI_PART_ATTN_PROJ },
		{ "Kcur-0", "ROPE", CLI_PART_ATTN_PROJ },
		{ "Qcur_scaled-3", "SCALE", CLI_PART_ATTN_PROJ },
		{ "cache_k_l0 (view)", "SET_ROWS", CLI_PART_KV_WRITE },
		{ "cache_v_l31 (view) (copy of Vcur-31)", "CPY", CLI_PART_KV_WRITE },
		{ "cache_k_l2 (view) (permuted)", "CONT", CLI_PART_ATTENTION }, /* read, not written */
		{ "node_21", "FLASH_ATTN_EXT", CLI_PART_ATTENTION },
		{ "kq_soft_max-4", "SOFT_MAX", CLI_PART_ATTENTION },
		{ "kqv_out-1", "CONT", CLI_PART_ATTENTION },
		{ "kqv_out-1", "MUL_MAT", CLI_PART_ATTN_OUT }, /* llama.cpp of 2024 */
		{ "kqv_merged_cont-0", "CONT", CLI_PART_ATTENTION },
		{ "attn_out-0", "MUL_MAT", CLI_PART_ATTN_OUT },
		{ "ffn_inp-0", "ADD", CLI_PART_ATTN_OUT },
		{ "sa_out-2", "ADD", CLI_PART_ATTN_OUT },
		{ "ffn_gate-0", "MUL_MAT", CLI_PART_FFN },
		{ "ffn_swiglu-0", "SWIGLU", CLI_PART_FFN },
		{ "ffn_out-0", "MUL_MAT", CLI_PART_FFN },
		{ "ffn_sqr(relu)-2", "SQR", CLI_PART_FFN },
		{ "l_out-3", "ADD", CLI_PART_FFN },
		{ "ffn_moe_logits-0", "MUL_MAT", CLI_PART_MOE_ROUTER },
		{ "ffn_moe_argsort-0", "ARGSORT", CLI_PART_MOE_ROUTER },
		{ "ffn_moe_weights_norm-0", "DIV", CLI_PART_MOE_ROUTER },
		{ "ffn_moe_weights_sum_clamped-0", "CLAMP", CLI_PART_MOE_ROUTER },
		{ "ffn_moe_gate-0", "MUL_MAT_ID", CLI_PART_MOE_EXPERTS },
		{ "ffn_moe_weighted-0", "MUL", CLI_PART_MOE_EXPERTS },
		{ "ffn_moe_out-0", "ADD", CLI_PART_MOE_EXPERTS },
		{ "ffn_shexp-0", "MUL_MAT", CLI_PART_MOE_EXPERTS },
		{ "result_output", "MUL_MAT", CLI_PART_OUTPUT },
		{ "node_117", "GET_ROWS", CLI_PART_OTHER },
		{ "", "MUL_MAT", CLI_PART_OTHER },
		{ "-3", "ADD", CLI_PART_OTHER },
		{ "my_layer-0", "MUL_MAT", CLI_PART_OTHER },
		{ "norm", NULL, CLI_PART_NORM },
		{ "cache_k_l0 (view)", NULL, CLI_PART_OTHER }, /* no op name: whether it writes, unknown */
		{ "cache_k_l0 (view)", "op#42", CLI_PART_OTHER },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		ck_assert_msg(cli_part_of(cases[i].name, strlen(cases[i].name), cases[i].op) ==
				      cases[i].part,
			      "%s (%s): %s, not %s", cases[i].name, cases[i].op ? cases[i].op : "?",
			      cli_part_names[cli_part_of(cases[i].name, strlen(cases[i].name),
							 cases[i].op)],
			      cli_part_names[cases[i].part]);
	/* a label not NUL-terminated is read to its length only */
	ck_assert_int_eq(cli_part_of("Qcur-0garbage", 6, "MUL_MAT"), CLI_PART_ATTN_PROJ);
	ck_assert_int_eq(cli_part_of(NULL, 0, "MUL_MAT"), CLI_PART_OTHER);
}
END_TEST

/* An unnamed product of attention's output is its output projection; any other stays (other). */
START_TEST(parts_by_source)
{
	struct cli_part_seen seen;
	struct ggmlviz_timing fa = { .ptr = 0x1000 }, wo = { .ptr = 0x2000, .src = { 7, 0x1000 } };
	struct ggmlviz_timing other = { .ptr = 0x3000, .src = { 7, 0x2000 } };

	memset(&seen, 0, sizeof seen);
	ck_assert_int_eq(cli_part_place(&seen, &fa, CLI_PART_CLASS_NONE, "FLASH_ATTN_EXT"),
			 CLI_PART_ATTENTION);
	ck_assert_int_eq(cli_part_place(&seen, &wo, CLI_PART_CLASS_NONE, "MUL_MAT"),
			 CLI_PART_ATTN_OUT);
	ck_assert_int_eq(cli_part_place(&seen, &other, CLI_PART_CLASS_NONE, "MUL_MAT"),
			 CLI_PART_OTHER);
	wo.src[1] = 0x9999;
	ck_assert_int_eq(cli_part_place(&seen, &wo, CLI_PART_CLASS_NONE, "MUL_MAT"),
			 CLI_PART_OTHER);
}
END_TEST

/* A META USAGE record of thread 7 as the reader hands it: cpu_ns of CPU time at ts. */
static void usage_at(struct cli_usage *u, uint64_t ts, uint64_t cpu_ns)
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = GGMLVIZ_EVENT_META;
	ev.timestamp_ns = ts;
	ev.thread_id = 7;
	ev.data.meta.kind = GGMLVIZ_META_USAGE;
	ev.data.meta.value = cpu_ns;
	cli_usage_record(u, &ev);
}

/*
 * Steps of 1 ms on one thread, three edges' worth, records in the reader's
 * order (a record before the step that ends after it), the last record
 * half a millisecond before the last step's end; first is where the first
 * record lies. Returns cli_usage_thread_ns().
 */
static uint64_t thread_ns_with_first_record_at(uint64_t first)
{
	const uint64_t ms = 1000000, n = 3 * CLI_USAGE_EDGE;
	struct cli_usage *u = calloc(1, sizeof *u);
	uint64_t ns;

	ck_assert_ptr_nonnull(u);
	for (uint64_t i = 0; i < n; i++) {
		if (first >= i * ms && first < (i + 1) * ms)
			usage_at(u, first, 1);
		if (i == n - 1)
			usage_at(u, n * ms - ms / 2, 2);
		cli_usage_step(u, i * ms, (i + 1) * ms, 1);
	}
	ns = cli_usage_thread_ns(u);
	free(u);
	return ns;
}

/*
 * The steps' time between the first USAGE record and the last: the steps
 * at the edges clipped, the middle ones whole; where the first record
 * came after the steps kept at the head (a long flush interval), the
 * middle ones are not all inside it, and nothing is weighed.
 */
START_TEST(usage_weighs_the_steps_between_its_records)
{
	const uint64_t ms = 1000000, n = 3 * CLI_USAGE_EDGE;

	ck_assert_uint_eq(thread_ns_with_first_record_at(ms / 2), n * ms - ms);
	ck_assert_uint_eq(thread_ns_with_first_record_at(100 * ms + ms / 2), n * ms - 101 * ms);
	ck_assert_uint_eq(thread_ns_with_first_record_at((CLI_USAGE_EDGE + 10) * ms), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("ggmlviz command units");
	TCase *tc = tcase_create("units");

	tcase_add_test(tc, htab_survives_removals);
	tcase_add_loop_test(tc, quantiles_within_bound, 0, 8);
	tcase_add_test(tc, quantile_of_nothing);
	tcase_add_test(tc, anon_ids_per_run);
	tcase_add_test(tc, json_html_per_output);
	tcase_add_loop_test(tc, escaping, 0, (int)(sizeof escapes / sizeof escapes[0]));
	tcase_add_test(tc, json_null_and_numbers);
	tcase_add_test(tc, durations);
	tcase_add_test(tc, counts_and_choices);
	tcase_add_test(tc, names_assumed_for_the_original_only);
	tcase_add_test(tc, fused_name_of_long_parts_whole);
	tcase_add_test(tc, shares_said_read_back);
	tcase_add_test(tc, cold_first_step_edges);
	tcase_add_test(tc, steps_ranges);
	tcase_add_test(tc, parts_of_llama_names);
	tcase_add_test(tc, parts_by_source);
	tcase_add_test(tc, usage_weighs_the_steps_between_its_records);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
