/*
 * Traces written in other forms (tools/export/): Chrome Trace Event JSON
 * (chrome.c) on tracks without partial overlaps (tracks.c), one record as
 * a text line or a JSON Lines object (event.c), GGMLVIZ v1 records again
 * (trace-out.c, for merge), and tables for SQL engines (tables.c, the rows;
 * table-out.c, CSV, JSON Lines and SQLite).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_EXPORT_H
#define CLI_EXPORT_H

#include <ggmlviz/format.h>
#include <ggmlviz/reader.h>
#include <stdbool.h>
#include <stdint.h>

#include "base/anon.h"
#include "base/htab.h"
#include "input/input.h"
#include "output/output.h"

/* ---- Chrome Trace Event JSON, for Perfetto and chrome://tracing (chrome.c) ---- */

struct cli_chrome {
	struct cli_out *o;
	uint64_t t0;     /* the trace's start: ts 0 */
	uint64_t events; /* written so far */
	struct cli_anon *anon; /* addresses written as ids (--anonymize), or NULL */
	uint64_t ts;     /* the last event's ts, ns from t0 (for its dur) */
};

/* Opens the document: {"traceEvents":[ ; addresses go through anon (may be NULL). */
void cli_chrome_begin(struct cli_chrome *c, struct cli_out *o, uint64_t t0, struct cli_anon *anon);

/*
 * Starts an event: a separator, then {"ph":PH,"pid":..,"tid":..,"name":NAME
 * (and "ts" when ts != UINT64_MAX). The caller adds fields (each starting
 * with a comma) and closes it with cli_chrome_end_event().
 */
void cli_chrome_event(struct cli_chrome *c, char ph, uint64_t pid, uint32_t tid,
			   const char *name, size_t name_len, uint64_t ts);
void cli_chrome_end_event(struct cli_chrome *c);

/*
 * ,"dur":.. for a duration in ns from the last event's ts, written so that
 * a viewer adding ts and dur in doubles lands on the end's ts (a few
 * nanoseconds off where the decimals need it; where none lands, past it
 * for a slice that encloses others, short of it for one that does not):
 * adjacent slices never overlap, and children stay inside their parents.
 */
void cli_chrome_dur(struct cli_chrome *c, uint64_t ns, bool encloses);
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

/* ---- Tracks without partial overlaps (tracks.c) ---- */

#define CLI_TRACK_LEVELS 4 /* tracks per thread: its own and 3 for overlaps */
#define CLI_TRACK_RECENT 8 /* slices of a track an offender is looked for among */

struct cli_tracks {
	struct cli_htab threads;
	uint64_t moved; /* slices put on an overlap track */
};

/*
 * The track of a slice [begin, end) of thread tid, given in the order of
 * their ends: tid itself, or an overlap track's id (tid + level * 2^28).
 * *level is 0, or which overlap track; *first says it is that track's
 * first slice (name it). Memory grows with the threads, not the slices.
 */
uint32_t cli_track_of(struct cli_tracks *t, uint32_t tid, uint64_t begin, uint64_t end,
		      int *level, bool *first);

void cli_tracks_free(struct cli_tracks *t);

/* ---- One record as a text line or a JSON Lines object (event.c) ---- */

/* One event as a text line or a JSON Lines object, with its newline (event.c). */
void cli_event_print(struct cli_out *o, struct cli_names *names, const struct ggmlviz_reader *r,
		     const struct ggmlviz_event *ev, bool json);

/* ---- GGMLVIZ v1 records, through the library's encoder (trace-out.c) ---- */

/* Room to encode records in, grown to the largest seen; the writer's to free. */
struct cli_recbuf {
	uint8_t *buf;
	size_t cap;
};

/* GGMLVIZ v1 output (trace-out.c): the header, a record as read, a META record. */
void cli_trace_header(struct cli_out *o);
void cli_trace_record(struct cli_out *o, struct cli_recbuf *rb, const struct ggmlviz_event *ev);
/* kv: key, value, value2. */
void cli_trace_meta(struct cli_out *o, struct cli_recbuf *rb, uint64_t ts, uint32_t tid,
		    uint32_t kind, const uint64_t kv[3], const char *label, uint32_t len);
/* Frees rb's buffer. */
void cli_recbuf_free(struct cli_recbuf *rb);

/* ---- Tables: a row per op, step, run, kernel and allocation (tables.c, table-out.c) ---- */

struct cli;

enum { CLI_COL_NULL, CLI_COL_INT, CLI_COL_TEXT };
enum {
	CLI_TABLE_OPS,
	CLI_TABLE_STEPS,
	CLI_TABLE_SPLITS,
	CLI_TABLE_KERNELS,
	CLI_TABLE_MEMORY,
	CLI_TABLE_COUNT
};

struct cli_column {
	const char *name;
	int kind; /* CLI_COL_INT or CLI_COL_TEXT */
};

/* A table: its name, its columns (ending with a NULL name), the columns indexed in SQLite. */
struct cli_table_def {
	const char *name;
	const struct cli_column *cols;
	const char *indexed; /* column names separated by spaces */
};

extern const struct cli_table_def cli_tables[CLI_TABLE_COUNT];

/* A value of a row: a number, a text (not NUL-terminated), or NULL. */
struct cli_val {
	int kind;
	int64_t i;
	const char *s;
	size_t len;
};

/* Where rows go: row() gets a row of a table, its values in the table's column order. */
struct cli_table_sink {
	int (*row)(struct cli_table_sink *sink, int table, const struct cli_val *v);
};

/*
 * Every timed op, step, run and kernel, and every allocation and free, of
 * in's trace as rows into sink; 0 or a negative code.
 */
int cli_tables_write(struct cli *cli, struct cli_input *in, struct cli_table_sink *sink);

/* CSV or JSON Lines of one table into o (table-out.c). */
enum { CLI_TABLES_CSV, CLI_TABLES_JSONL, CLI_TABLES_SQLITE };
struct cli_text_sink {
	struct cli_table_sink base;
	struct cli_out *o;
	int table, format;
};
/* A sink of rows of table (CLI_TABLE_*) into o as format (CLI_TABLES_CSV or _JSONL). */
void cli_text_sink_init(struct cli_text_sink *s, struct cli_out *o, int table, int format);

/* The name rows give a trace: its file's, without the directories. */
const char *cli_trace_name(const struct cli_input *in);

/*
 * Every table into the SQLite database at path, in one transaction,
 * indexed: a new database (made beside path, renamed to it once whole:
 * what path held is replaced), or with append, the rows added to those of
 * the database at path (refused when it holds a trace of the same name);
 * 0, or -1 after a message naming the database and SQLite's words.
 * -ENOSYS where the command was built without SQLite.
 */
int cli_tables_sqlite(struct cli *cli, struct cli_input *in, const char *path, bool append);

#endif /* CLI_EXPORT_H */
