/*
 * GGML's RPC commands in a trace (tools/rpc/): each connection's commands
 * as one side recorded them (collect.c), a server's connections tied to
 * their clients' and its clock's offset from theirs (clock.c), and where
 * each step's time went, by host and by command (hosts.c, hosts-print.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_RPC_H
#define CLI_RPC_H

#include <ggmlviz/reader.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output/output.h"

/* ---- Each connection's commands, as one side recorded them (collect.c) ---- */

/*
 * One command as one side saw it. Client: begin_ns just before its request
 * went out, end_ns when its reply arrived (or its request was sent).
 * Server: begin_ns when its command byte arrived, in_ns when its request
 * was read whole, reply_ns when its reply began, end_ns when the reply was
 * sent or its work done. Times on the trace's clock (0: not recorded).
 */
struct cli_rpc_cmd {
	uint64_t begin_ns, in_ns, reply_ns, end_ns;
	uint64_t request_bytes, reply_bytes;
	uint32_t seq, hash;
	uint8_t cmd, status, ended;
};

/* A connection as one process recorded it: its commands by place (cli_rpc_finish()). */
struct cli_rpc_conn {
	uint64_t id, pid;         /* its id in its process (after merge: its client's), the process */
	uint8_t side;             /* enum ggmlviz_rpc_side */
	uint32_t tid;             /* the thread that recorded it */
	char name[96];            /* META RPC_CONNECTION's label: the endpoint */
	struct cli_rpc_cmd *c;
	size_t n, cap;
};

/* A process of the trace that spoke RPC, and its clock's offset if merge wrote one. */
struct cli_rpc_proc {
	uint64_t pid;
	char name[64];            /* PROCESS's label */
	uint8_t side;             /* the side of its commands (a process is one or the other) */
	bool clocked;             /* META RPC_CLOCK read */
	int64_t offset_ns;        /* ... its offset taken off (server minus client) */
	uint64_t uncertainty_ns, client_pid;
	char clock_words[160];    /* ... its label */
};

struct cli_rpc {
	struct cli_rpc_conn *conns;
	size_t n, cap;
	struct cli_rpc_proc *procs;
	size_t n_procs, cap_procs;
	uint64_t pid;             /* of the records read last */
	uint64_t unpaired;        /* stages and ends of no open command */
};

/* An array grown to hold need items of size bytes (at least doubled, the new ones zeroed); 0 or -ENOMEM. */
int cli_rpc_grow(void **items, size_t *cap, size_t need, size_t size);
/* Everything RPC of one record (records of other types are ignored); 0 or -ENOMEM. */
int cli_rpc_add(struct cli_rpc *r, const struct ggmlviz_event *ev);
/* Once every record was added: each connection's commands in their order (by place). */
void cli_rpc_finish(struct cli_rpc *r);
/* The connection of that process and id, or NULL. */
struct cli_rpc_conn *cli_rpc_conn_of(const struct cli_rpc *r, uint64_t pid, uint64_t id);
/* The process of that pid, or NULL. */
const struct cli_rpc_proc *cli_rpc_proc_of(const struct cli_rpc *r, uint64_t pid);
/* Commands of that side, over every connection. */
uint64_t cli_rpc_commands(const struct cli_rpc *r, uint8_t side);
void cli_rpc_free(struct cli_rpc *r);

/* GGML's name of a command ("GRAPH_COMPUTE"), or "CMD_N" in buf. */
const char *cli_rpc_cmd_name(uint8_t cmd, char buf[16]);

/* ---- A server's connections tied to their clients', and its clock (clock.c) ---- */

/*
 * How the commands of a server's connection s agree with a client's c,
 * command by command (the same place on the connection): how many agree
 * with a hash on both sides, and whether any disagree (another
 * connection).
 */
struct cli_rpc_agree {
	uint64_t hashed, compared;
	bool differ;
};
void cli_rpc_agree(const struct cli_rpc_conn *s, const struct cli_rpc_conn *c,
		   struct cli_rpc_agree *out);

/*
 * A server's clock against its client's, from pairs of the same command:
 * theta (server minus client) lies in [low, high], each command bounding it
 * (the server received it after the client began sending it: theta <=
 * t2 - t1; it began its reply before the client had it: theta >= t3 - t4).
 * Where the bounds cross (drift, or misplaced records) the tightest round
 * trip's own estimate is kept, and crossed says by how much.
 */
struct cli_rpc_clock {
	int64_t low, high;        /* the bounds (INT64_MIN / INT64_MAX: none) */
	uint64_t pairs, replied;  /* commands paired; of those, with a reply on both sides */
	uint64_t best_rtt;        /* the tightest round trip, less the server's time (delta) */
	int64_t best_offset;      /* its own estimate */
	int64_t offset;           /* the estimate */
	uint64_t uncertainty;     /* +- */
	uint64_t crossed;         /* ns by which the bounds crossed; 0: they did not */
};
void cli_rpc_clock_init(struct cli_rpc_clock *k);
/* Adds the commands server connection s and client connection c share. */
void cli_rpc_clock_add(struct cli_rpc_clock *k, const struct cli_rpc_conn *s,
		       const struct cli_rpc_conn *c);
/* The estimate from what was added; -1 when no command bounds it both ways. */
int cli_rpc_clock_solve(struct cli_rpc_clock *k);
/* "+500.012 ms +- 0.041 ms" into buf. */
const char *cli_rpc_fmt_offset(int64_t offset, uint64_t uncertainty, char *buf, size_t size);

/* ---- Where each step's time went, by host (hosts.c) ---- */

#define CLI_RPC_HOSTS 16 /* hosts told apart (0: the client); past them the last holds the rest */

/* A host: the client (0), or a server's process (its connection's endpoint when no trace of it). */
struct cli_rpc_host {
	uint64_t pid;             /* 0: no trace of it */
	char name[96];            /* its endpoint, as the client named the connection */
	uint64_t min_round_trip_ns; /* its tightest round trip less the server's work (the link's floor) */
};

/* One host's share of one step. */
struct cli_rpc_cell {
	uint64_t inflight_ns;     /* its commands in flight on the client's clock (their union) */
	uint64_t compute_ns;      /* the server's work on them */
	uint64_t wire_ns;         /* inflight less the work inside it */
	uint64_t outside_ns;      /* of the work, what lies outside inflight (misaligned, or overlapped) */
	uint64_t bytes_out, bytes_in, commands, round_trips, failed;
};

/*
 * A client's step, and its figures: over its span, from its begin to the
 * end of the last command it sent (an RPC device's work goes on after
 * llama_decode() returns).
 */
struct cli_rpc_step {
	uint64_t seq, pid, begin_ns, end_ns;
	uint64_t span_end_ns;     /* its end, or its last command's if later */
	uint64_t next_ns;         /* where the next step of its process begins (UINT64_MAX: none) */
	uint32_t phase, n_tokens;
	uint64_t inflight_ns;     /* every host's commands in flight (their union) */
	uint64_t client_ns;       /* the span's time outside them */
	uint64_t client_ops_ns;   /* the client's own ops' time (their timings) */
	int64_t unaccounted_ns;   /* client + every host's compute and wire, less the span's time */
};

struct cli_rpc_hosts {
	struct cli_rpc rpc;
	struct cli_rpc_host hosts[CLI_RPC_HOSTS];
	size_t n_hosts;
	struct cli_rpc_step *steps; /* in time order */
	size_t n_steps, cap_steps;
	struct cli_rpc_cell *cells; /* each step's hosts' (cli_rpc_cells()); NULL: no host */
	size_t *conn_host;          /* each connection's host (clients') */
	const struct cli_rpc_conn **conn_server; /* each client connection's server side, or NULL */
};

/* Step i's cells, one a host (0, the client's, unused); NULL where no step sent a command. */
static inline struct cli_rpc_cell *cli_rpc_cells(const struct cli_rpc_hosts *h, size_t i)
{
	return h->cells ? &h->cells[i * h->n_hosts] : NULL;
}

/* How much of [a, b) the server's work on command j of its connection s, and those before, covers. */
uint64_t cli_rpc_work_in(const struct cli_rpc_conn *s, size_t j, uint64_t a, uint64_t b);
/* Reads path's steps and RPC commands into h; the command's exit status (said). */
int cli_rpc_hosts_read(const char *cmd, const char *path, struct cli_rpc_hosts *h);
void cli_rpc_hosts_free(struct cli_rpc_hosts *h);

/* stats --by host (hosts-print.c) and --by command (commands.c), as text or JSON. */
void cli_rpc_hosts_text(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h);
void cli_rpc_hosts_json(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h);
void cli_rpc_commands_text(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h);
void cli_rpc_commands_json(struct cli_out *o, const char *path, const struct cli_rpc_hosts *h);

/* What `ggmlviz info` says of them (info.c). */
void cli_rpc_info(struct cli_out *o, const struct cli_rpc *r);

/* ---- The traces merge is given, tied and aligned (align.c) ---- */

/* One input of merge, as GGML's RPC sees it. */
struct cli_rpc_input {
	struct cli_rpc rpc;
	bool server;              /* it holds a server's commands */
	/* a server's: */
	size_t server_conns, matched, ambiguous; /* its connections with commands; tied; tied to several */
	size_t unmatched_work;    /* connections not tied that asked more than queries (said) */
	struct cli_rpc_clock clock; /* its clock against its clients' */
	uint64_t client_pid;      /* the client of its last connection tied */
	size_t client_input;      /* ... and its input */
	uint64_t *map;            /* pairs: its connection's id, its client's */
	size_t n_map;
};

/*
 * Reads the RPC records of each of the n paths into ins (zeroed), ties
 * each server connection to the client connection it served, and solves
 * each server's clock. 0; -1 when a server trace cannot be merged aligned
 * (said: no client given, or none whose commands match).
 */
int cli_rpc_align(const char *cmd, struct cli_rpc_input *ins, const char *const *paths,
		  size_t n);
/* The id a server connection takes in the merged trace: its client's (or its own). */
uint64_t cli_rpc_map_conn(const struct cli_rpc_input *in, uint64_t id);
void cli_rpc_inputs_free(struct cli_rpc_input *ins, size_t n);

#endif /* CLI_RPC_H */
