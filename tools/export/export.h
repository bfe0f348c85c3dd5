/*
 * Traces written in other forms (tools/export/): Chrome Trace Event JSON
 * (chrome.c) or Perfetto's protobuf trace (perfetto.c, through pb.c), on
 * tracks without partial overlaps (tracks.c), one record as
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
#include <string.h>

#include "base/anon.h"
#include "base/htab.h"
#include "base/opts.h"
#include "input/input.h"
#include "stats/ticks.h"
#include "memory/memory.h"
#include "output/output.h"

/* ---- Where export's slices, instants and counters go (chrome.c, perfetto.c) ---- */

/*
 * A writer of a trace for viewers: Chrome Trace Event JSON (chrome.c) or
 * Perfetto's protobuf trace (perfetto.c). Times are the trace's ns; a
 * track is a thread id, a GPU track or an overlap track of one (tracks.c),
 * within process pid. An event (slice or instant) takes args until
 * end(); a counter and a name take none.
 */
struct cli_esink;
#define CLI_PROCESS_TRACK UINT32_MAX /* an instant's track: the process's own */
struct cli_esink_ops {
	void (*name_process)(struct cli_esink *s, uint64_t pid, const char *name, size_t len);
	void (*name_track)(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
			   size_t len);
	/* A slice [ts, ts + dur) of category cat; encloses: slices may lie inside it. */
	void (*slice)(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
		      size_t len, const char *cat, uint64_t ts, uint64_t dur, bool encloses);
	void (*instant)(struct cli_esink *s, uint64_t pid, uint32_t track, const char *name,
			size_t len, uint64_t ts);
	/* The counter name of process pid is v from ts on; key: what v is ("bytes", "value"). */
	void (*counter)(struct cli_esink *s, uint64_t pid, const char *name, size_t len,
			uint64_t ts, const char *key, double v);
	void (*arg_u64)(struct cli_esink *s, const char *key, uint64_t v);
	void (*arg_i64)(struct cli_esink *s, const char *key, int64_t v);
	void (*arg_str)(struct cli_esink *s, const char *key, const char *v, size_t len);
	/* An address, through --anonymize's ids where asked. */
	void (*arg_addr)(struct cli_esink *s, const char *key, uint64_t v);
	/* A tensor's shape: its 4 dimensions. */
	void (*arg_shape)(struct cli_esink *s, const char *key, const int64_t ne[4]);
	/* Ends the slice or instant begun last. */
	void (*end)(struct cli_esink *s);
};

struct cli_esink {
	const struct cli_esink_ops *ops;
	uint64_t t0; /* the trace's start: time 0 in the output */
	struct cli_anon *anon; /* addresses written as ids (--anonymize), or NULL */
	/*
	 * Slices nest in the output (Perfetto): an op's args leave out what
	 * its name and the slices around it say (op_type, graph, step; and
	 * backend and timed_by inside a run of its backend timed by ticks).
	 */
	bool nested;
	/* A step is named without its number (speedscope: steps group by name). */
	bool unnumbered;
};

/* Whether a counter's value is a whole number an int64_t holds (then written as one). */
static inline bool cli_esink_integral(double v)
{
	return v >= -9223372036854775808.0 && v < 9223372036854775808.0 && v == (double)(int64_t)v;
}

static inline void cli_esink_arg_cstr(struct cli_esink *s, const char *key, const char *v)
{
	s->ops->arg_str(s, key, v, strlen(v));
}

/* ---- Chrome Trace Event JSON, for chrome://tracing and Perfetto (chrome.c) ---- */

struct cli_chrome {
	struct cli_esink base;
	struct cli_out *o;
	uint64_t events; /* written so far */
	uint64_t ts;     /* the last event's ts, ns from t0 (for its dur) */
	bool args;       /* the event being written has args: "args":{ is open */
};

/* Opens the document: {"traceEvents":[ ; addresses go through anon (may be NULL). */
void cli_chrome_begin(struct cli_chrome *c, struct cli_out *o, uint64_t t0, struct cli_anon *anon);

/* Closes the array; the caller writes more keys (each after a comma) and "}". */
void cli_chrome_end(struct cli_chrome *c);

/* ---- Protocol Buffers' wire format, into memory (pb.c) ---- */

struct cli_pb {
	uint8_t *buf;
	size_t len, cap;
	bool failed; /* memory ran out: nothing was written since */
};

void cli_pb_varint(struct cli_pb *b, uint64_t v);
/* Fields: a varint (uint32/64, enum, bool), an int64 (two's complement), a double, bytes. */
void cli_pb_uint(struct cli_pb *b, uint32_t field, uint64_t v);
void cli_pb_int(struct cli_pb *b, uint32_t field, int64_t v);
void cli_pb_double(struct cli_pb *b, uint32_t field, double v);
void cli_pb_bytes(struct cli_pb *b, uint32_t field, const void *p, size_t n);
/* Bytes already encoded (fields, a packet), appended as they are. */
void cli_pb_raw(struct cli_pb *b, const void *p, size_t n);
/* A nested message: its fields follow; cli_pb_close() with what this returned ends it. */
size_t cli_pb_open(struct cli_pb *b, uint32_t field);
void cli_pb_close(struct cli_pb *b, size_t body);
void cli_pb_free(struct cli_pb *b);

/* ---- Slices held and written in nesting order (nest.c) ---- */

/*
 * For formats whose slices are a begin and an end event: slices are held
 * (a step at a time, or CLI_NEST_MAX of them) and written per track in
 * nesting order, so that a slice and the first slice inside it, which may
 * begin on the same nanosecond (a GPU op and its kernel, a run of one
 * op), come outer first, and adjacent ones end before the next begins.
 */
#define CLI_NEST_MAX 65536               /* slices held before they are written anyway */
#define CLI_NEST_BYTES ((size_t)32 << 20) /* ... or bytes of their opening events */

struct cli_nest_slice {
	uint64_t track, begin, end;
	size_t off;   /* its opening bytes in the arena (set by cli_nest_hold) */
	uint32_t len, seq;
	uint8_t rank; /* cli_nest_rank() of its category */
	bool slice;   /* it has an end (else an instant) */
};

struct cli_nest {
	struct cli_nest_slice *held;
	size_t n, cap;
	struct cli_pb arena;
	/* called in nesting order: a slice opens (with the bytes held for it), and closes */
	void (*open)(void *ctx, const struct cli_nest_slice *s, const uint8_t *bytes);
	void (*close)(void *ctx, const struct cli_nest_slice *s, const uint8_t *bytes);
	void *ctx;
};

/* Where a category nests: steps outside graphs, runs, ops, kernels (others last). */
uint8_t cli_nest_rank(const char *cat);
/* Holds s with len bytes to open it with; writes what is held when full; 0 or -ENOMEM. */
int cli_nest_hold(struct cli_nest *n, const struct cli_nest_slice *s, const void *bytes,
		  size_t len);
/* Writes every held slice, each track's in nesting order. */
void cli_nest_flush(struct cli_nest *n);
void cli_nest_free(struct cli_nest *n);

/* ---- Perfetto's protobuf trace: TrackEvent packets (perfetto.c) ---- */

struct cli_perfetto_state;

struct cli_perfetto {
	struct cli_esink base;
	struct cli_out *o;
	struct cli_perfetto_state *st;
};

/* Starts the trace into o; 0 or -ENOMEM. */
int cli_perfetto_begin(struct cli_perfetto *p, struct cli_out *o, uint64_t t0,
		       struct cli_anon *anon);
/*
 * Writes what it holds and frees it; 0, or -ENOMEM when memory ran out on
 * the way. *tracks_over: the asks for tracks past the most it describes
 * (65536: more threads' slices went on one "(other tracks)" track, their
 * names and more counters were left out).
 */
int cli_perfetto_end(struct cli_perfetto *p, uint64_t *tracks_over);

/* ---- speedscope's own file format: evented profiles (speedscope.c) ---- */

struct cli_speedscope_state;

struct cli_speedscope {
	struct cli_esink base;
	struct cli_out *o;
	struct cli_speedscope_state *st;
};

/* Starts it; nothing is written before cli_speedscope_end(); 0 or -ENOMEM. */
int cli_speedscope_begin(struct cli_speedscope *p, struct cli_out *o, uint64_t t0);
/*
 * Writes the whole file into o (its profiles, a thread or GPU track each,
 * then the frames), named name, and frees what it held; 0, or a negative
 * errno when memory or a temporary file failed on the way. *left_out:
 * slices of tracks past the most it keeps.
 */
int cli_speedscope_end(struct cli_speedscope *p, const char *name, uint64_t *left_out);

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

/* ---- What viewers see of a trace: slices, instants, counters, names (viewer.c) ---- */

#define CLI_RUNS_FOLLOWED 16 /* threads whose open run is followed (formats where slices nest) */

/* The run of nodes open on a thread (its SPLIT_BEGIN read, not its end). */
struct cli_open_run {
	uint32_t tid;
	bool open;
	uint64_t backend;
};

struct cli;
/* Writing a trace into a sink; the caller sets cli, sink, window and no_args, zeroes the rest. */
struct cli_viewer {
	struct cli *cli;
	struct cli_esink *sink;
	struct cli_window window; /* --from/--to */
	bool no_args;             /* leave out the args of ops, graphs, runs and kernels */
	const struct ggmlviz_reader *r;
	uint64_t pid;             /* the process of the records read last */
	struct cli_live live;     /* live tensor bytes, for their counter */
	struct cli_tracks tracks;
	struct cli_open_run runs[CLI_RUNS_FOLLOWED];
	struct cli_ticks ticks;   /* op times from ticks, estimated (stats/ticks.h); .raw: as ticked */
	struct cli_tick_est est;  /* of the op being written: what the estimate says of it */
	int error;
};

/* Every record of in into v->sink, from pid onwards; 0 or a negative code. */
int cli_viewer_write(struct cli_viewer *v, struct cli_input *in);
/* An instant "ggmlviz export" at time 0: what the JSON's otherData says, as args. */
void cli_viewer_about(struct cli_viewer *v, const struct cli_input *in);

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
	CLI_TABLE_SUMMARIES,
	CLI_TABLE_REQUESTS,
	CLI_TABLE_RUN_STARTS,
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

/*
 * Where rows go: row() gets a row of a table, its values in the table's
 * column order; the ops come through ticks, the estimate of op times
 * learnt by a first pass (stats/ticks.h: compute_ns, run_starts), or as
 * ticked where it is NULL or learnt nothing.
 */
struct cli_table_sink {
	int (*row)(struct cli_table_sink *sink, int table, const struct cli_val *v);
	struct cli_ticks *ticks;
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

/* ---- OpenTelemetry: the requests and steps as spans, in OTLP/JSON (otlp.c) ---- */

/*
 * in's requests (a pass of their own) and steps as spans into o, one
 * ExportTraceServiceRequest a line, the ops of each step summed by op
 * type through k (stats/ticks.h); 0 or a negative code.
 */
int cli_otlp_write(struct cli *cli, struct cli_input *in, struct cli_out *o, struct cli_ticks *k);

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
int cli_tables_sqlite(struct cli *cli, struct cli_input *in, const char *path, bool append,
		      struct cli_ticks *ticks);

#endif /* CLI_EXPORT_H */
