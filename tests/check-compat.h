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
