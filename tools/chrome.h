/*
 * Writing Chrome Trace Event JSON (the "JSON Object Format" that Perfetto
 * and chrome://tracing open), one event at a time: ts and dur in
 * microseconds relative to the start of the trace, written exactly from
 * nanoseconds (an absolute epoch in a double would lose them).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CHROME_H
#define GGMLVIZ_CHROME_H

#include <stdint.h>

#include "cli.h"

struct ggmlviz__chrome {
	struct ggmlviz__out *o;
	uint64_t t0;     /* the trace's start: ts 0 */
	uint64_t events; /* written so far */
};

/* Opens the document: {"traceEvents":[ */
void ggmlviz__chrome_begin(struct ggmlviz__chrome *c, struct ggmlviz__out *o, uint64_t t0);

/*
 * Starts an event: a separator, then {"ph":PH,"pid":..,"tid":..,"name":NAME
 * (and "ts" when ts != UINT64_MAX). The caller adds fields (each starting
 * with a comma) and closes it with ggmlviz__chrome_end_event().
 */
void ggmlviz__chrome_event(struct ggmlviz__chrome *c, char ph, uint64_t pid, uint32_t tid,
			   const char *name, size_t name_len, uint64_t ts);
void ggmlviz__chrome_end_event(struct ggmlviz__chrome *c);

/* ,"dur":.. for a duration in ns. */
void ggmlviz__chrome_dur(struct ggmlviz__chrome *c, uint64_t ns);
/* ,"cat":"..." */
void ggmlviz__chrome_cat(struct ggmlviz__chrome *c, const char *cat);

/* A process_name or thread_name metadata event. */
void ggmlviz__chrome_name(struct ggmlviz__chrome *c, const char *what, uint64_t pid, uint32_t tid,
			  const char *name, size_t len);

/* Args of an event: ,"args":{ then fields "k":v separated by commas, then } */
void ggmlviz__chrome_args(struct ggmlviz__chrome *c);
void ggmlviz__chrome_arg_u64(struct ggmlviz__chrome *c, const char *key, uint64_t v, bool first);
void ggmlviz__chrome_arg_i64(struct ggmlviz__chrome *c, const char *key, int64_t v, bool first);
void ggmlviz__chrome_arg_str(struct ggmlviz__chrome *c, const char *key, const char *s,
			     size_t len, bool first);
void ggmlviz__chrome_arg_cstr(struct ggmlviz__chrome *c, const char *key, const char *s,
			      bool first);
void ggmlviz__chrome_arg_hex(struct ggmlviz__chrome *c, const char *key, uint64_t v, bool first);
void ggmlviz__chrome_args_end(struct ggmlviz__chrome *c);

/* Closes the array; the caller writes more keys (each after a comma) and "}". */
void ggmlviz__chrome_end(struct ggmlviz__chrome *c);

#endif /* GGMLVIZ_CHROME_H */
