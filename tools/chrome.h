/*
 * Writing Chrome Trace Event JSON (the "JSON Object Format" that Perfetto
 * and chrome://tracing open), one event at a time: ts and dur in
 * microseconds relative to the start of the trace, written exactly from
 * nanoseconds (an absolute epoch in a double would lose them).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_CHROME_H
#define CLI_CHROME_H

#include <stdint.h>

#include "out.h"

struct cli_chrome {
	struct cli_out *o;
	uint64_t t0;     /* the trace's start: ts 0 */
	uint64_t events; /* written so far */
};

/* Opens the document: {"traceEvents":[ */
void cli_chrome_begin(struct cli_chrome *c, struct cli_out *o, uint64_t t0);

/*
 * Starts an event: a separator, then {"ph":PH,"pid":..,"tid":..,"name":NAME
 * (and "ts" when ts != UINT64_MAX). The caller adds fields (each starting
 * with a comma) and closes it with cli_chrome_end_event().
 */
void cli_chrome_event(struct cli_chrome *c, char ph, uint64_t pid, uint32_t tid,
			   const char *name, size_t name_len, uint64_t ts);
void cli_chrome_end_event(struct cli_chrome *c);

/* ,"dur":.. for a duration in ns. */
void cli_chrome_dur(struct cli_chrome *c, uint64_t ns);
/* ,"cat":"..." */
void cli_chrome_cat(struct cli_chrome *c, const char *cat);

/* A process_name or thread_name metadata event. */
void cli_chrome_name(struct cli_chrome *c, const char *what, uint64_t pid, uint32_t tid,
			  const char *name, size_t len);

/* Args of an event: ,"args":{ then fields "k":v separated by commas, then } */
void cli_chrome_args(struct cli_chrome *c);
void cli_chrome_arg_u64(struct cli_chrome *c, const char *key, uint64_t v, bool first);
void cli_chrome_arg_i64(struct cli_chrome *c, const char *key, int64_t v, bool first);
void cli_chrome_arg_str(struct cli_chrome *c, const char *key, const char *s,
			     size_t len, bool first);
void cli_chrome_arg_cstr(struct cli_chrome *c, const char *key, const char *s,
			      bool first);
void cli_chrome_arg_hex(struct cli_chrome *c, const char *key, uint64_t v, bool first);
void cli_chrome_args_end(struct cli_chrome *c);

/* Closes the array; the caller writes more keys (each after a comma) and "}". */
void cli_chrome_end(struct cli_chrome *c);

#endif /* CLI_CHROME_H */
