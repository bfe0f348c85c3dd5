/*
 * ggmlviz serve (tools/serve/): traces followed as they are written, their
 * figures kept by process (metrics.c), written in Prometheus' text
 * exposition format (expose.c) and served over HTTP/1.1 (http.c).
 *
 * What is kept is bounded, whatever the traces hold and however long they
 * run: SRV_PROCS processes a trace, the op types a window follows
 * (CLI_WIN_KEYS), the devices and live allocations memory/devices.c
 * follows (CLI_MEM_DEVICES, CLI_MEM_DEVICE_BUFFERS) a process, fixed
 * histograms; the records read are let go (input/follow.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_SERVE_H
#define CLI_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/htab.h"
#include "input/input.h"
#include "memory/memory.h"
#include "output/output.h"
#include "stats/stats.h"

/* ---- The figures of the traces followed (metrics.c) ---- */

#define SRV_BUCKETS_MAX 32 /* a histogram's bounds, at most (the +Inf bucket besides) */
#define SRV_PROCS 64       /* processes followed per trace; the records of others are counted */

/* The upper bounds of the latency histograms' buckets, in seconds, increasing. */
struct srv_bounds {
	double le[SRV_BUCKETS_MAX];
	size_t n;
};

/* The default bounds: 1 ms to 120 s, 1-2.5-5 in each decade. */
void srv_bounds_default(struct srv_bounds *b);
/* Takes --buckets' list (seconds, comma-separated, increasing); 0, or -1 (the message in err). */
int srv_bounds_parse(struct srv_bounds *b, const char *list, char *err, size_t size);

/* A histogram of one figure of the requests (stats.h's enum cli_request_figure). */
struct srv_hist {
	uint64_t in[SRV_BUCKETS_MAX + 1]; /* values in each bucket (not cumulative); the last: +Inf */
	uint64_t count, sum_ns;
};

/* An op type's time since the start. */
struct srv_op {
	uint32_t op_type;
	uint64_t ns, count;
};

/* One process of a trace: what its records say. */
struct srv_proc {
	uint64_t pid;
	char name[64];                  /* its PROCESS record's, "" before one */
	struct cli_recent *w;           /* its last seconds: op shares, requests begun and ended */
	struct srv_hist h[CLI_REQ_FIGURES];
	uint64_t requests[3];           /* ended: done, cancelled, failed */
	uint64_t request_tokens[3];     /* of those: prompt, cached, generated */
	uint64_t steps[CLI_PHASES];     /* by phase (enum ggmlviz_phase) */
	struct srv_op ops[CLI_WIN_KEYS];
	size_t n_ops;
	uint64_t ops_over;              /* op timings of op types past CLI_WIN_KEYS */
	struct cli_mem_devices mem;     /* its tensor memory by device and part (memory/devices.c) */
};

/* A trace followed. */
struct srv_trace {
	const char *path;
	struct cli_follow f;
	bool open;                     /* f is open (a file shorter than a header waits) */
	struct srv_proc *procs[SRV_PROCS];
	size_t n_procs;
	uint64_t procs_over;           /* records of processes past SRV_PROCS, not counted */
	struct srv_proc *cur;          /* the process of the records being read */
	int records_state;             /* CLI_FOLLOW_WRITING, _ENDED or _CRASHED, from its records */
	uint64_t records;              /* records read since it was (re)opened */
	const struct srv_bounds *bounds;
	struct cli_names *names;       /* the command's: op names */
};

/*
 * Starts following path: 0; a file shorter than a header (a tracer just
 * made it) is waited for; else the reader's negative code (not a trace,
 * not readable: nothing is kept).
 */
int srv_trace_open(struct srv_trace *t, const char *path, const struct srv_bounds *b,
		   struct cli_names *names);
/*
 * Reads what is new, until it is all read or cli_mono_ns() passes
 * deadline_ns; 1 when there is more to read, 0 when all was read, or
 * -ENOMEM (what was read is kept).
 */
int srv_trace_advance(struct srv_trace *t, uint64_t deadline_ns);
/* The trace's state, CLI_FOLLOW_*. */
int srv_trace_state(const struct srv_trace *t);
void srv_trace_close(struct srv_trace *t);

/* ---- Prometheus' text exposition format (expose.c) ---- */

/* The Content-Type of what srv_expose() writes. */
#define SRV_EXPOSITION_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* Every metric of the traces, each family with its # HELP and # TYPE lines. */
void srv_expose(struct cli_out *o, struct srv_trace *const *traces, size_t n);
/* Whether a and b read the same as label values (bytes not UTF-8 replaced): one series. */
bool srv_same_label(const char *a, const char *b);

/* ---- A small HTTP/1.1 server (http.c) ---- */

#define SRV_CONNS 32 /* connections at once; a new one takes the place of the oldest idle one */

struct srv_conn;

/*
 * What the server answers a GET or HEAD of target (its path, without a
 * query) with: the status (200, 404, ...), the body in body and its
 * Content-Type in *type (HEAD: the body is made, not sent).
 */
typedef int (*srv_page)(void *arg, const char *target, struct cli_out *body, const char **type);

struct srv_http {
	int fd;              /* listening */
	char where[96];      /* the address it listens on, as HOST:PORT */
	struct srv_conn *conns[SRV_CONNS];
	size_t n_conns;
	uint64_t answered;   /* requests answered */
	uint64_t evicted;    /* idle connections let go for new ones */
};

/*
 * Listens on host_port ("127.0.0.1:9464", "[::1]:9464", ":9464" or
 * "*:9464" for every address; port 0: one the system picks); 0, or
 * CLI_EXIT_USAGE (host_port is no address) or CLI_EXIT_DAMAGED (the
 * system refused: the port is in use, the address is not this machine's)
 * after a message naming it.
 */
int srv_http_listen(struct srv_http *h, const char *host_port);
/*
 * Waits up to timeout_ms for connections and requests, and answers those
 * that came with page(arg, ...): GET and HEAD only, one request a
 * connection (Connection: close). 0, or -1 when the wait was interrupted
 * by a signal.
 */
int srv_http_poll(struct srv_http *h, int timeout_ms, srv_page page, void *arg);
void srv_http_close(struct srv_http *h);

#endif /* CLI_SERVE_H */
