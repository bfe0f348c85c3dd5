/*
 * The tracer's memory from pages of its own (lib/util/pages.h): a block is
 * zeroed and 64-byte aligned; an array that overflows a size_t is refused;
 * a block made larger over many pages keeps its bytes, made smaller keeps
 * them too; NULL resized is a new block, NULL freed is nothing; a copy of
 * a text is the text; blocks taken in turn begin at 16 places of their
 * pages, 64-byte aligned, a moved one too. Where the library is not built
 * with AddressSanitizer, a block lies outside the C library's heap: it
 * takes no block malloc() gave back, and giving it back puts none before
 * those malloc() gives next.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check-compat.h"
#include "util/pages.h"

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

START_TEST(a_block_is_zeroed_and_aligned)
{
	static const size_t sizes[] = { 0, 1, 63, 64, 4000, 4096, 70000 };

	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		uint8_t *p = ggmlviz__pages_alloc(sizes[i]);

		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 64, 0);
		ck_assert(all_zero(p, sizes[i]));
		memset(p, 0xa5, sizes[i]); /* every byte writable */
		ggmlviz__pages_free(p);
	}
	{
		uint8_t *a = ggmlviz__pages_array(3, 1000);

		ck_assert_ptr_nonnull(a);
		ck_assert(all_zero(a, 3000));
		ggmlviz__pages_free(a);
	}
}
END_TEST

START_TEST(an_array_past_a_size_t_is_refused)
{
	ck_assert_ptr_null(ggmlviz__pages_array(SIZE_MAX / 8 + 1, 8));
	ck_assert_ptr_null(ggmlviz__pages_alloc(SIZE_MAX - 10));
	ck_assert_ptr_null(ggmlviz__pages_resize(NULL, SIZE_MAX - 10));
}
END_TEST

START_TEST(a_resized_block_keeps_its_bytes)
{
	uint8_t *p = ggmlviz__pages_resize(NULL, 100);

	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < 100; i++)
		p[i] = (uint8_t)i;
	for (size_t size = 200; size <= 1u << 20; size *= 3) {
		uint8_t *q = ggmlviz__pages_resize(p, size);

		ck_assert_ptr_nonnull(q);
		for (size_t i = 0; i < 100; i++)
			ck_assert_uint_eq(q[i], (uint8_t)i);
		q[size - 1] = 7; /* its last byte writable */
		p = q;
	}
	p = ggmlviz__pages_resize(p, 50);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < 50; i++)
		ck_assert_uint_eq(p[i], (uint8_t)i);
	ggmlviz__pages_free(p);
	ggmlviz__pages_free(NULL);
}
END_TEST

START_TEST(a_copy_is_the_text)
{
	char *c = ggmlviz__pages_copy("ops, steps and memory");

	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c, "ops, steps and memory");
	ggmlviz__pages_free(c);
}
END_TEST

#if !GGMLVIZ__PAGES_FROM_HEAP
START_TEST(a_block_is_not_on_the_heap)
{
	char *a = malloc(48), *b, *c, *p;

	/* a malloc() after a free() of the same size takes the same place again, */
	free(a);
	p = ggmlviz__pages_alloc(48);
	b = malloc(48);
	ck_assert_ptr_eq(b, a); /* which the block did not take, */
	ck_assert(p < b - 4096 || p > b + 4096);
	free(b);
	ggmlviz__pages_free(p);
	c = malloc(48);
	ck_assert_ptr_eq(c, a); /* nor did giving it back put one before it */
	free(c);
}
END_TEST
#endif

START_TEST(blocks_begin_at_places_of_their_own_in_their_pages)
{
	uint8_t *p[17];
	unsigned int seen = 0;

	for (int i = 0; i < 17; i++) {
		p[i] = ggmlviz__pages_alloc(100);
		ck_assert_ptr_nonnull(p[i]);
		ck_assert_uint_eq((uintptr_t)p[i] % 64, 0);
		seen |= 1u << (((uintptr_t)p[i] & 4095) / 64 % 32);
	}
	p[0] = ggmlviz__pages_resize(p[0], 100000);
	ck_assert_ptr_nonnull(p[0]);
	if (!GGMLVIZ__PAGES_FROM_HEAP) /* realloc() promises 16 bytes only */
		ck_assert_uint_eq((uintptr_t)p[0] % 64, 0); /* a block moved keeps its place */
	for (int i = 0; i < 17; i++)
		ggmlviz__pages_free(p[i]);
	if (!GGMLVIZ__PAGES_FROM_HEAP)
		ck_assert_uint_ge((unsigned)__builtin_popcount(seen), 16); /* 16 places in turn */
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("pages");
	TCase *tc = tcase_create("blocks");

	tcase_add_test(tc, a_block_is_zeroed_and_aligned);
	tcase_add_test(tc, an_array_past_a_size_t_is_refused);
	tcase_add_test(tc, a_resized_block_keeps_its_bytes);
	tcase_add_test(tc, a_copy_is_the_text);
#if !GGMLVIZ__PAGES_FROM_HEAP
	tcase_add_test(tc, a_block_is_not_on_the_heap);
#endif
	tcase_add_test(tc, blocks_begin_at_places_of_their_own_in_their_pages);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
