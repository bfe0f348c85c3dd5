/*
 * What the files of the ggmlviz command share: exit statuses, messages,
 * option parsing, reading a trace with progress and damage reports,
 * buffered output with JSON/CSV/text escaping, and the subcommands.
 *
 * The command uses only the public API (<ggmlviz/format.h>,
 * <ggmlviz/reader.h>); nothing here is part of the library.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CLI_H
#define GGMLVIZ_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/format.h>
#include <ggmlviz/reader.h>

#if defined(__GNUC__)
#define GGMLVIZ__PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GGMLVIZ__PRINTF(f, a)
#endif

/* Exit statuses of every subcommand but validate (which has its own). */
enum {
	GGMLVIZ__EXIT_OK = 0,      /* done, every input read to its end */
	GGMLVIZ__EXIT_DAMAGED = 1, /* an input is damaged or unreadable (what came before used) */
	GGMLVIZ__EXIT_USAGE = 2    /* bad command line */
};

/* ---- messages and options (opts.c) ---- */

/* "ggmlviz: " + the message + newline, on stderr. */
void ggmlviz__error(const char *fmt, ...) GGMLVIZ__PRINTF(1, 2);

/* A subcommand's command line. */
struct ggmlviz__cmd {
	const char *name;             /* "stats" */
	const char *help;             /* the --help text */
	const char *shortopts;        /* for getopt_long, without the leading ':' */
	const struct option *longopts;
	int min_args, max_args;       /* operands; max_args < 0: no limit */
	/* Takes one option (getopt's c and optarg); 0, or GGMLVIZ__EXIT_USAGE. */
	int (*option)(void *ctx, int c, char *arg);
};

/*
 * Parses argv (argv[0] is the subcommand) with getopt_long; --help is
 * handled here. Returns -1 when the subcommand should run (its operands
 * are argv[*first] to argv[argc - 1]), or the exit status to end with: 0
 * after --help, GGMLVIZ__EXIT_USAGE after a message on stderr.
 */
int ggmlviz__parse(const struct ggmlviz__cmd *cmd, int argc, char **argv, void *ctx, int *first);

/* The option callback of a subcommand that has no option but --help. */
int ggmlviz__no_option(void *ctx, int c, char *arg);

/* Prints "ggmlviz CMD: ..." and the --help hint; returns GGMLVIZ__EXIT_USAGE. */
int ggmlviz__usage(const char *cmd, const char *fmt, ...) GGMLVIZ__PRINTF(2, 3);

/* A decimal count; 0, or GGMLVIZ__EXIT_USAGE after a message naming opt. */
int ggmlviz__parse_count(const char *cmd, const char *opt, const char *val, uint64_t *out);

/* A duration with an optional unit (ns, us, ms, s; ns by default). */
int ggmlviz__parse_duration(const char *cmd, const char *opt, const char *val, uint64_t *ns);

/* val's index in the NULL-terminated choices, into *out. */
int ggmlviz__parse_choice(const char *cmd, const char *opt, const char *val,
			  const char *const *choices, int *out);

/* --from / --to: a window of time relative to the start of the trace. */
struct ggmlviz__window {
	uint64_t from, to; /* ns after the start; to = UINT64_MAX: no end */
	bool set;          /* either bound was given */
};

/* Takes --from (c = 'F') or --to ('U') into w; 0 or GGMLVIZ__EXIT_USAGE. */
int ggmlviz__window_option(const char *cmd, struct ggmlviz__window *w, int c, const char *arg);
/* -1 when w is a window, GGMLVIZ__EXIT_USAGE after a message when --from is after --to. */
int ggmlviz__window_check(const char *cmd, const struct ggmlviz__window *w);

/* ---- reading a trace (input.c, scan.c) ---- */

/* Shows how far a long read went, on a terminal only (progress.c). */
struct ggmlviz__progress {
	bool on, shown;
	const char *what, *stage; /* the file; "" or "pass 1 of 2: " */
	uint64_t total;
	double start, last;
	uint32_t tick;
};

void ggmlviz__progress_init(struct ggmlviz__progress *p, const char *what, uint64_t total);
void ggmlviz__progress_update(struct ggmlviz__progress *p, uint64_t done);
void ggmlviz__progress_done(struct ggmlviz__progress *p);

/* An open trace, read to its end or to its damage. */
struct ggmlviz__input {
	const char *cmd, *path;
	struct ggmlviz_reader *r;
	struct ggmlviz__progress progress;
	int error;            /* 0, or why reading stopped early (GGMLVIZ_E*, -errno) */
	uint64_t error_offset; /* where it stopped */
	char what[256];        /* why, in one sentence (ggmlviz_reader_describe) */
	uint64_t records;      /* delivered so far */
	bool ended;            /* the last record delivered is a TRACE_END */
	uint64_t end_written, end_dropped, end_offset; /* of the last TRACE_END */
};

/* Opens path: 0, or the reader's negative code (nothing printed). */
int ggmlviz__input_start(struct ggmlviz__input *in, const char *cmd, const char *path);

/* Opens path; on failure prints why and returns -1. */
int ggmlviz__input_open(struct ggmlviz__input *in, const char *cmd, const char *path);

/* The next record: 1, or 0 at the end or at damage (in->error says which). */
int ggmlviz__input_next(struct ggmlviz__input *in, struct ggmlviz_event *ev);

/* The next timing (ggmlviz_timings_next): 1, or 0 as above. */
int ggmlviz__input_timing(struct ggmlviz__input *in, struct ggmlviz_timing *t);

/* One sentence on why reading stopped early, with the byte offset. */
void ggmlviz__input_describe(const struct ggmlviz__input *in, char *buf, size_t size);

/* Prints the damage, if any, on stderr; returns 0 or GGMLVIZ__EXIT_DAMAGED. */
int ggmlviz__input_report(const struct ggmlviz__input *in);

void ggmlviz__input_close(struct ggmlviz__input *in);

/* What a first pass learns of a trace (scan.c): its times, its first
 * process, and the names of what it holds (kept by names.c). */
struct ggmlviz__scan {
	uint64_t t_min, t_max; /* over every record but META (whose times mean little) */
	bool has_time;
	uint64_t first_pid;    /* of the first PROCESS record, or 0 */
};

/*
 * The first pass of a command that reads in twice: reads in's file to its
 * end on a reader of its own (closed after: none of its pages stay
 * mapped), fills s, and keeps the names it found (ggmlviz__names_learn).
 * Sets the progress stages of both passes. Damage is left for in to find.
 */
void ggmlviz__scan(struct ggmlviz__input *in, struct ggmlviz__scan *s);

/* Whether ev, at ev->timestamp_ns, lies in the window (relative to t0). */
bool ggmlviz__in_window(const struct ggmlviz__window *w, uint64_t t0, uint64_t ts);

/* The pid of the events that follow ev: a PROCESS record changes it. */
void ggmlviz__track_pid(uint64_t *pid, const struct ggmlviz_event *ev);

/* ---- names (names.c) ---- */

/* Remembers what ev names by number (op, backend, thread), during a first pass. */
void ggmlviz__names_note(const struct ggmlviz_event *ev);
/* Keeps the names r has for what was noted, for the readers that follow. */
void ggmlviz__names_learn(const struct ggmlviz_reader *r);
/* Frees the names kept. */
void ggmlviz__names_forget(void);

/* The trace's OP_NAME for op_type (or one a first pass kept), or "op#N" in buf. */
const char *ggmlviz__op_name(const struct ggmlviz_reader *r, uint32_t op_type, char buf[24]);

/* The trace's BACKEND_NAME, "CPU" for 0, or "0x..." in buf. */
const char *ggmlviz__backend_name(const struct ggmlviz_reader *r, uint64_t ptr, char buf[24]);

/* "name (tid)" or "tid" in buf. */
const char *ggmlviz__thread_label(const struct ggmlviz_reader *r, uint32_t tid, char *buf,
				  size_t size);

/*
 * The layer of a tensor name: the digits of a trailing "-N" (llama.cpp's
 * "attn_norm-12"), after dropping " (view)"-like suffixes. Returns the
 * number of digits (their start in *digits), 0 when there is no layer.
 */
size_t ggmlviz__layer(const char *label, size_t len, const char **digits);

/* ---- output (out.c, utf8.c, json.c, escape.c, fmt.c) ---- */

/* Buffered output to a file descriptor, counting bytes, keeping the first error. */
struct ggmlviz__out {
	int fd;
	bool owned;
	const char *path; /* for messages */
	char *buf;
	size_t len, cap;
	uint64_t bytes;
	int error;        /* 0 or -errno */
};

/* Opens path for writing ("-" or NULL: stdout); prints why on failure and returns -1. */
int ggmlviz__out_open(struct ggmlviz__out *o, const char *cmd, const char *path);
void ggmlviz__out_write(struct ggmlviz__out *o, const void *p, size_t n);
void ggmlviz__out_str(struct ggmlviz__out *o, const char *s);
void ggmlviz__out_u64(struct ggmlviz__out *o, uint64_t v);
void ggmlviz__out_i64(struct ggmlviz__out *o, int64_t v);
void ggmlviz__out_hex(struct ggmlviz__out *o, uint64_t v);
void ggmlviz__out_printf(struct ggmlviz__out *o, const char *fmt, ...) GGMLVIZ__PRINTF(2, 3);
/* Output into a growing memory buffer (o->buf, o->len) instead of a file. */
void ggmlviz__out_memory(struct ggmlviz__out *o);
/* Flushes and closes; prints a write error; returns 0 or GGMLVIZ__EXIT_DAMAGED. */
int ggmlviz__out_close(struct ggmlviz__out *o, const char *cmd);

static inline void ggmlviz__out_char(struct ggmlviz__out *o, char c)
{
	if (o->len == o->cap)
		ggmlviz__out_write(o, &c, 1);
	else
		o->buf[o->len++] = c, o->bytes++;
}

/*
 * Bytes of the UTF-8 character at s (n > 0 bytes there): 1 to 4 and *valid
 * true; or, for invalid bytes, *valid false and how many go together into
 * one U+FFFD (the maximal subpart of a sequence, or 1).
 */
size_t ggmlviz__utf8_char(const unsigned char *s, size_t n, bool *valid);

/* A JSON string: quoted, escaped, invalid UTF-8 replaced by U+FFFD. NULL: null. */
void ggmlviz__json_str(struct ggmlviz__out *o, const char *s, size_t len);
void ggmlviz__json_cstr(struct ggmlviz__out *o, const char *s);
/* A finite JSON number ("null" for NaN or infinity). */
void ggmlviz__json_double(struct ggmlviz__out *o, double v);
/* ns as microseconds with 3 decimals (the Chrome trace unit), exactly. */
void ggmlviz__json_us(struct ggmlviz__out *o, uint64_t ns);

/* Text: printable UTF-8 as is, the rest as C escapes (\n, \xff). */
void ggmlviz__text_str(struct ggmlviz__out *o, const char *s, size_t len);
/* The text form of a label as a new string (the caller frees it), or NULL. */
char *ggmlviz__text_dup(const char *s, size_t len);
/* A CSV field (RFC 4180): quoted when needed; invalid UTF-8 and control
 * characters but tab, CR and LF replaced by U+FFFD. */
void ggmlviz__csv_str(struct ggmlviz__out *o, const char *s, size_t len);

/* "12.345 ms": ns in the unit that suits it. */
const char *ggmlviz__fmt_ns(double ns, char buf[32]);
/* "1.500 MiB" (or "512 B"). */
const char *ggmlviz__fmt_bytes(uint64_t bytes, char buf[32]);
/* "2023-11-14T22:13:20.123456789Z" for epoch ns. */
const char *ggmlviz__fmt_epoch(uint64_t ns, char buf[40]);

/* One event as a text line or a JSON Lines object, with its newline (event.c). */
void ggmlviz__event_print(struct ggmlviz__out *o, const struct ggmlviz_reader *r,
			  const struct ggmlviz_event *ev, bool json);

/* GGMLVIZ v1 output (trace-out.c): the header, a record as read, a META record. */
void ggmlviz__trace_header(struct ggmlviz__out *o);
void ggmlviz__trace_record(struct ggmlviz__out *o, const struct ggmlviz_event *ev);
/* kv: key, value, value2. */
void ggmlviz__trace_meta(struct ggmlviz__out *o, uint64_t ts, uint32_t tid, uint32_t kind,
			 const uint64_t kv[3], const char *label, uint32_t len);

/* Whether paths a and b name the same existing file. */
bool ggmlviz__same_file(const char *a, const char *b);

/* ---- aligned text tables (table.c) ---- */

#define GGMLVIZ__TABLE_MAX_COLS 16

struct ggmlviz__table {
	size_t ncols, ncells, cap;
	char **cells;
};

void ggmlviz__table_init(struct ggmlviz__table *t, size_t ncols);
/* Appends a cell, row by row; false when out of memory. */
bool ggmlviz__table_add(struct ggmlviz__table *t, const char *fmt, ...) GGMLVIZ__PRINTF(2, 3);
/* Prints the rows: first column left-aligned, the others right-aligned. */
void ggmlviz__table_print(const struct ggmlviz__table *t, struct ggmlviz__out *o,
			  const char *indent);
void ggmlviz__table_free(struct ggmlviz__table *t);

/* ---- subcommands ---- */

int ggmlviz__cmd_info(int argc, char **argv);
int ggmlviz__cmd_dump(int argc, char **argv);
int ggmlviz__cmd_stats(int argc, char **argv);
int ggmlviz__cmd_export(int argc, char **argv);
int ggmlviz__cmd_diff(int argc, char **argv);
int ggmlviz__cmd_mem(int argc, char **argv);
int ggmlviz__cmd_merge(int argc, char **argv);
int ggmlviz__cmd_validate(int argc, char **argv);

#endif /* GGMLVIZ_CLI_H */
