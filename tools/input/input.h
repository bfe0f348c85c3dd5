/*
 * How the ggmlviz command reads traces (tools/input/): a trace read to its
 * end or its damage (input.c), the progress of a long read (progress.c),
 * a stream copied to be read twice (stream.c), the first pass of a command
 * that reads twice (scan.c), and the names of
 * what a trace identifies by number (names.c, ggml-ops.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_INPUT_H
#define CLI_INPUT_H

#include <errno.h>
#include <ggmlviz/reader.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/anon.h"
#include "base/htab.h"
#include "base/opts.h"

struct cli_names;

/* ---- The progress of a long read, on a terminal only (progress.c) ---- */

/* Shows how far a long read went, on a terminal only (progress.c). */
struct cli_progress {
	bool on, shown;
	const char *what, *stage; /* the file; "" or "pass 1 of 2: " */
	uint64_t total;
	double start, last;
	uint32_t tick;
};

void cli_progress_init(struct cli_progress *p, const char *what, uint64_t total);
void cli_progress_update(struct cli_progress *p, uint64_t done);
void cli_progress_done(struct cli_progress *p);

/* ---- A trace read to its end or to its damage (input.c) ---- */

/* An open trace, read to its end or to its damage. */
struct cli_input {
	const char *cmd, *path;
	struct ggmlviz_reader *r;
	struct cli_progress progress;
	int error;            /* 0, or why reading stopped early (GGMLVIZ_E*, -errno) */
	uint64_t error_offset; /* where it stopped */
	char what[256];        /* why, in one sentence (ggmlviz_reader_describe) */
	uint64_t records;      /* delivered so far */
	bool ended;            /* the last record delivered is a TRACE_END */
	bool crashed;          /* ... or a CRASH: the program died of crash_signal */
	uint64_t segment_next; /* ... or a SEGMENT_END: a rotated trace's segment, read alone, that this one follows */
	uint64_t end_written, end_dropped, end_offset; /* of the last TRACE_END or CRASH */
	uint64_t crash_signal;
	char crash_name[16];   /* the signal's name, from the CRASH record */
	struct cli_as_ticks *as_ticks; /* --as-ticks: its state (as-ticks.c), made on first use */
};

/*
 * --as-ticks (stats, diff): measured CPU ops read as thread 0's ticks
 * would have timed them, the shares left out, so that the estimate reads
 * them as it reads a ticked trace (as-ticks.c). Set once by the command.
 */
extern bool cli_as_ticks_on;
/* t as ticked (1), or left out (0: a share); cli_input_timing calls it. */
int cli_as_ticks_apply(struct cli_input *in, struct ggmlviz_timing *t);
void cli_as_ticks_free(struct cli_input *in);

/* Opens path: 0, or the reader's negative code (nothing printed). */
int cli_input_start(struct cli_input *in, const char *cmd, const char *path);

/*
 * Why path could not be opened as a trace (rc: the reader's code): the
 * reader's words, or, for a GGUF model, that it is one and how a trace is
 * written (GGML_VIZ_OUTPUT). A constant string.
 */
const char *cli_unreadable_why(const char *path, int rc);
/* Whether the file at path starts as a GGUF model does ("GGUF"). */
bool cli_is_gguf(const char *path);

/* Opens path; on failure prints why and returns -1. */
int cli_input_open(struct cli_input *in, const char *cmd, const char *path);

/* The next record: 1, or 0 at the end or at damage (in->error says which). */
int cli_input_next(struct cli_input *in, struct ggmlviz_event *ev);

/* The next timing (ggmlviz_reader_next_timing): 1, or 0 as above. */
int cli_input_timing(struct cli_input *in, struct ggmlviz_timing *t);

/* One sentence on why reading stopped early, with the byte offset. */
void cli_input_describe(const struct cli_input *in, char *buf, size_t size);

/* Whether the input is a regular file (which a second reader can read again). */
bool cli_input_is_file(const struct cli_input *in);
/* Whether path can be read again: a regular file, or a stream already copied (stream.c). */
bool cli_path_is_file(const char *path);
/*
 * A second reader of path, for what a command reads apart from its pass
 * (a META record at the start or the end): 0 with *r open (the caller
 * closes it with ggmlviz_reader_close()), or -1 where path cannot be read
 * again (a stream not copied) or does not open.
 */
int cli_path_reopen(const char *path, struct ggmlviz_reader **r);

/* ---- A trace read from a stream, copied once to be read again (stream.c) ---- */

/*
 * What to open for path: path itself, or for a stream (a pipe, standard
 * input) a copy made at its first call and read by every later one (its
 * name borrowed, valid for the life of the command). NULL with *err set
 * to -errno when the copy fails (no room in TMPDIR, no /proc), or to
 * GGMLVIZ_EMAGIC when the stream does not begin as a trace (nothing is
 * copied: /dev/zero would be copied without end).
 */
const char *cli_path_source(const char *path, int *err);
/* Whether path names a stream already copied by cli_path_source(). */
bool cli_path_is_copied(const char *path);

/* ---- A trace followed as it is written (follow.c): what top and serve read ---- */

/* CLOCK_MONOTONIC in ns. */
uint64_t cli_mono_ns(void);

/* A file not grown for this long is said not to be growing. */
#define CLI_FOLLOW_STILL_NS (3 * 1000000000ull)

/*
 * A trace's state, as a follower tells it: the first three from its
 * records (TRACE_END, CRASH), the others from the file.
 */
enum { CLI_FOLLOW_WRITING, CLI_FOLLOW_ENDED, CLI_FOLLOW_CRASHED, CLI_FOLLOW_IDLE,
       CLI_FOLLOW_CUT, CLI_FOLLOW_DAMAGED, CLI_FOLLOW_GONE, CLI_FOLLOW_STATES };
/* "writing", "ended", "crashed", "idle", "cut", "damaged", "gone". */
extern const char *const cli_follow_state_names[CLI_FOLLOW_STATES];

/* A trace followed: its reader and pairing engine, and what the file did. Zeroed: closed. */
struct cli_follow {
	const char *path;         /* borrowed */
	struct ggmlviz_reader *r; /* NULL: could not be opened again */
	struct ggmlviz_pairing *p;
	int read_rc;              /* the reader's last answer: 0 (the end so far), or an error */
	uint64_t read_at;         /* where it stopped */
	uint64_t grew_ns;         /* when the file last grew (cli_mono_ns) */
	uint64_t dev, ino;        /* the file read, to tell a new file at its name (tail -F) */
	uint64_t pid;             /* the process of the records read last (PROCESS records) */
	uint64_t reopened;        /* times it was read again from its start */
	uint32_t missing;         /* a rotated trace's segments removed before they were read, said */
	bool copied;              /* what is read is a stream's copy (cli_path_source): cut */
	char note[240];           /* news: a file reopened, removed */
};

/* Opens path from its start (a stream: copied to its end first); 0, or the reader's code. */
int cli_follow_open(struct cli_follow *f, const char *path);
/*
 * Opens path from its start if it is a regular file, without ever waiting
 * (O_NONBLOCK: a FIFO at the name is not opened for reading, a device not
 * read); 0, the reader's code, or CLI_FOLLOW_NOT_FILE. What a follower
 * opens after its start (cli_follow_refresh), and serve always.
 */
int cli_follow_open_file(struct cli_follow *f, const char *path);
#define CLI_FOLLOW_NOT_FILE (-ESPIPE) /* the name holds a FIFO, a device, a socket */
/* What an opening's code means, in words (CLI_FOLLOW_NOT_FILE too). */
const char *cli_follow_strerror(int rc);
void cli_follow_close(struct cli_follow *f);
/*
 * Looks at the file again: grown (read on), replaced at its name, shrunk
 * or gone (opened again from its start, said in the note). 1 when it was
 * opened again (the caller forgets what it drew from the old one), 0, or
 * -1 when it cannot be read now (tried again at the next call).
 */
int cli_follow_refresh(struct cli_follow *f);
/* The next record there is now: 1, or 0 (read_rc says why: the end so far, or damage). */
int cli_follow_next(struct cli_follow *f, struct ggmlviz_event *ev);
/* The timings ev completes, each given to timing(arg, t). */
void cli_follow_feed(struct cli_follow *f, const struct ggmlviz_event *ev,
		     void (*timing)(void *arg, const struct ggmlviz_timing *t), void *arg);
/* Whether the reading stopped at damage (not at the end of what was written so far). */
bool cli_follow_damaged(const struct cli_follow *f);
/* The trace's state: records_state (WRITING, ENDED or CRASHED, from its records), or what the file says. */
int cli_follow_state(const struct cli_follow *f, int records_state);

/* Prints the damage, if any, on stderr; returns 0 or CLI_EXIT_DAMAGED. */
int cli_input_report(const struct cli_input *in);

void cli_input_close(struct cli_input *in);

/* ---- The first pass of a command that reads a trace twice (scan.c) ---- */

/* What a first pass learns of a trace (scan.c): its times, its first
 * process, and the names of what it holds (kept by names.c). */
struct cli_scan {
	uint64_t t_min, t_max; /* over every record but META (whose times mean little) */
	bool has_time;
	uint64_t first_pid;    /* of the first PROCESS record, or 0 */
};

/*
 * The first pass of a command that reads in twice: reads in's file to its
 * end on a reader of its own (closed after: none of its pages stay
 * mapped), fills s, and keeps the names it found in names (cli_names_learn).
 * Sets the progress stages of both passes. Damage is left for in to find.
 */
void cli_scan(struct cli_input *in, struct cli_scan *s, struct cli_names *names);

/* The pid of the events that follow ev: a PROCESS record changes it. */
void cli_track_pid(uint64_t *pid, const struct ggmlviz_event *ev);

/* ---- Names of what a trace identifies by number (names.c, ggml-ops.c) ---- */

/*
 * The names a command's first pass keeps of what its traces name by
 * number, for the readers that follow; part of the command's state (struct
 * cli, tools/cli.h). Zeroed, with ops_named -1: nothing known.
 */
struct cli_names {
	struct cli_htab known;        /* what was noted, and its name once learnt */
	int ops_named;                /* the trace names its ops: 1, 0; -1 not known yet */
	bool assumed;                 /* a name of the assumed numbering was given */
	bool ours;                    /* libggmlviz wrote it: names are never assumed */
	struct cli_anon *anon;        /* addresses printed for unnamed backends, or NULL */
};

/* Nothing known yet; backend addresses printed through anon (may be NULL). */
void cli_names_init(struct cli_names *n, struct cli_anon *anon);
/* Remembers what ev names by number (op, backend, thread), during a first pass. */
void cli_names_note(struct cli_names *n, const struct ggmlviz_event *ev);
/* Keeps the names r has for what was noted, for the readers that follow. */
void cli_names_learn(struct cli_names *n, const struct ggmlviz_reader *r);
/* Frees the names kept; n may be NULL. */
void cli_names_free(struct cli_names *n);

/*
 * The trace's OP_NAME for op_type (or one a first pass kept); for a trace
 * that names none of its ops (the original ggml-viz's), the name GGML's
 * numbering of mid-2025 gives it (n->assumed then says so); a fused pair
 * the trace names only by its parts, "FIRST+SECOND" in buf (a part named
 * nowhere "op#N", as ggmlviz_reader_write_op_name() writes it); else
 * "op#N" in buf.
 */
/*
 * The op type of a CPU run's start, told apart from its first op by the
 * estimate of op times from ticks (stats/ticks.h): named "(run start)".
 */
#define CLI_OP_RUN_START 0x7fffffffu

/*
 * The room an op's name is written into: a fused pair of GGML's longest
 * op names ("CROSS_ENTROPY_LOSS_BACK", 23 bytes) joined by "+" whole.
 */
#define CLI_OP_NAME_MAX 64

const char *cli_op_name(struct cli_names *n, const struct ggmlviz_reader *r, uint32_t op_type,
			char buf[CLI_OP_NAME_MAX]);

/*
 * For a command without a first pass: whether the trace names ops, as the
 * end of reading tells (any op of it has a name). A first pass decides
 * this by itself.
 */
void cli_names_decide(struct cli_names *n, bool any_named);

/*
 * The trace holds what only libggmlviz writes (a record of type 9 or
 * more; for a command without a first pass, a step, run, kernel or an op
 * of a known method): its unnamed ops are never given the original
 * ggml-viz's numbering, which is for the original's files.
 */
void cli_names_ours(struct cli_names *n);

/* GGML's op name for op_type in its numbering of mid-2025 (ggml-ops.c), or NULL. */
const char *cli_assumed_op_name(uint32_t op_type);

/* The trace's BACKEND_NAME, "CPU" for 0, or "0x..." in buf. */
const char *cli_backend_name(const struct cli_names *n, const struct ggmlviz_reader *r,
			     uint64_t ptr, char buf[24]);

/*
 * A kernel's name as people read it, in buf: the identifier a mangled C++
 * name starts with ("_Z12rms_norm_f32ILi256E..." is "rms_norm_f32"), else
 * the name itself (cuBLAS's "sm90_xmma_gemm_..."), cut to 95 bytes.
 */
const char *cli_kernel_name(const char *s, size_t len, char buf[96]);

/*
 * Whether a step served no request: llama.cpp's tools built by
 * scripts/build-llama-tools.sh label their warm-up decodes "warmup" and
 * their context probes "probe".
 */
bool cli_step_is_housekeeping(const struct ggmlviz_timing *t);

/* A request's kind (enum ggmlviz_request_kind) and status (enum ggmlviz_request_status) in words. */
const char *cli_request_kind(uint32_t kind);
/* A step's phase (enum ggmlviz_phase) in words: "prompt", "generation", "encode"; "unknown"
 * for 0 and for a phase this command does not know. */
#define CLI_PHASES 4 /* the phases it knows, 0 (unknown) included */
const char *cli_phase_name(uint32_t phase);
/*
 * An op's layer as a key that tells the stacks of an encoder-decoder model
 * apart (OP_NODE's GGMLVIZ_NODE_ENCODER, _DECODER: whisper.cpp): 0 for
 * none, else (layer + 1) | stack << 32, stack 0 (one stack), 1 (the
 * encoder's), 2 (the decoder's); in natural order, a stack's layers follow
 * one another. Its name: "(none)", "3", "enc.3", "dec.3".
 */
uint64_t cli_layer_key(const struct ggmlviz_timing *t);
const char *cli_layer_name(uint64_t key, char *buf, size_t cap);
/* The same key in a compact index (0 none, 1 + 3 * layer + stack), for arrays by layer. */
uint32_t cli_layer_slot(uint64_t key);
uint64_t cli_layer_of_slot(uint32_t slot);
const char *cli_request_status(int32_t status);

/* "name (tid)" or "tid" in buf; a named GPU track, its name alone ("GPU 0 stream 7"). */
const char *cli_thread_label(const struct cli_names *n, const struct ggmlviz_reader *r,
			     uint32_t tid, char *buf, size_t size);

#endif /* CLI_INPUT_H */
