/*
 * Shared by the Check test programs: run a suite so that automake's TAP
 * driver sees one result per test (CK_TAP_LOG_FILE_NAME=- is set by
 * Makefile.am), and the exit status says whether any failed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CHECK_COMPAT_H
#define GGMLVIZ_CHECK_COMPAT_H

#include <check.h>
#include <stdlib.h>
#include <string.h>

/*
 * CK_RUN_TEST=NAME adds that test function alone to its case (Check picks
 * suites and cases only: CK_RUN_SUITE, CK_RUN_CASE), so that
 * bench/stress.sh runs one test many times.
 */
static inline void tu_tcase_add_test(TCase *tc, const TTest *test, int signal, int exit_value,
				     int start, int end)
{
	const char *only = getenv("CK_RUN_TEST");

	if (only && *only && strcmp(only, test->name) != 0)
		return;
	_tcase_add_test(tc, test, signal, exit_value, start, end);
}
#define _tcase_add_test tu_tcase_add_test

static inline int run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	srunner_run_all(sr, CK_ENV);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
