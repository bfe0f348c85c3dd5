/*
 * Helpers of the tracer tests whose declarations use none of the public
 * headers' types, so that a test built against another copy of the headers
 * (tests/test-abi-0.2.c, against 0.2's) uses them as any other test does.
 * In tests/libtestutil.a, built against the current headers.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PLAIN_UTIL_H
#define GGMLVIZ_PLAIN_UTIL_H

#include <stdint.h>

/*
 * Counts path's records by type into by_type[256] (zeroed first); 0 when
 * the trace reads to its end and ends with TRACE_END, else nonzero.
 */
int tu_type_counts(const char *path, uint64_t by_type[256]);

/* The tracer's messages that tu_capture() received, one a line, and how many. */
extern char tu_messages[8192];
extern int tu_n_messages;

/* A ggmlviz_log_fn that keeps each message in tu_messages. */
void tu_capture(void *user, int level, const char *msg);

/* Forgets the messages kept. */
void tu_capture_clear(void);

#endif
