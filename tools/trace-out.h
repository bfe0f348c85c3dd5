/*
 * Writing GGMLVIZ v1 records (trace-out.c), through the library's encoder.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_TRACE_OUT_H
#define CLI_TRACE_OUT_H

#include <stdint.h>

#include <ggmlviz/format.h>

#include "out.h"

/* GGMLVIZ v1 output (trace-out.c): the header, a record as read, a META record. */
void cli_trace_header(struct cli_out *o);
void cli_trace_record(struct cli_out *o, const struct ggmlviz_event *ev);
/* kv: key, value, value2. */
void cli_trace_meta(struct cli_out *o, uint64_t ts, uint32_t tid, uint32_t kind,
			 const uint64_t kv[3], const char *label, uint32_t len);

#endif /* CLI_TRACE_OUT_H */
