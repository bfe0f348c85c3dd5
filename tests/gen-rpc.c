/*
 * gen-rpc: writes the traces of a client of GGML's RPC protocol and of its
 * two servers, A and B, whose every time is known, each server on a clock
 * of its own, so that tests/tool-rpc.py can check what ggmlviz merge and
 * stats --by host and --by command make of them.
 *
 *     gen-rpc DIR [--steps N] [--skew-a NS] [--skew-b NS] [--delay-us D]
 *                 [--seed S] [--fail] [--restart]
 *
 * writes DIR/client.ggmlviz, DIR/server-a.ggmlviz, DIR/server-b.ggmlviz
 * (and with --restart DIR/server-a2.ggmlviz), and on stdout the model's
 * figures as key=value lines.
 *
 * The model, in true time (ns), each server's records at true time plus
 * its skew (--skew-a, --skew-b; 0 by default); every message takes D us
 * (--delay-us, default 200) one way, plus 1 ns a byte:
 *
 *   each connection: HELLO (seq 0) and GET_ALIGNMENT (seq 1, a reply),
 *     before the client's trace began: only the servers recorded them;
 *   each step (N, default 8; a generation step of 1 token), on the
 *     client's main thread: STEP_BEGIN, the client's own op GET_ROWS
 *     "inp_embd" (50 us), then for A and then B, on the client's
 *     dispatcher thread of that connection: SET_TENSOR (4 KiB, no
 *     reply), GRAPH_COMPUTE (the first step) or GRAPH_RECOMPUTE (no
 *     reply), GET_TENSOR (a reply of 4 KiB); each server serves them in
 *     order: SET_TENSOR's request read whole after its bytes arrive, 2 us
 *     of work; the graph: 1 us, then 4 ops of 100 us (MUL_MAT "Qcur-L",
 *     L the layer: A 0 and 1, B 2 and 3) one after another, on its main
 *     thread; GET_TENSOR: read when the graph is done, 5 us of work, its
 *     reply sent 1 us later. STEP_END 20 us after B's GET_TENSOR reply
 *     arrived. Requests hash to a function of --seed, the server and the
 *     place (another seed: another run).
 *   --fail: the last step's GET_TENSOR to B fails: the client's command
 *     ends FAILED (no reply), B's ends FAILED when the connection drops;
 *     the client's trace then ends with a CRASH record (GGML aborts).
 *   --restart: A restarts between step N/2 and the next: its first
 *     process (pid 201) ends, a second (pid 202, DIR/server-a2.ggmlviz, on
 *     the same clock) serves the client's new connection (HELLO again, its
 *     places from 0).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

#define US 1000ull
#define T0 1700000000000000000ull
#define OP_US 100
#define OPS 4

struct file {
	FILE *f;
	int64_t skew;
	uint64_t pid, records;
};

struct conn {
	struct file *client, *server;
	uint64_t id;
	uint32_t tid, seq, host;
	uint64_t server_free; /* true time the server is done with what it was sent */
};

struct model {
	uint64_t steps, delay, seed;
	int64_t skew_a, skew_b;
	int fail, restart;
	struct file client, a, a2, b;
	uint64_t ops_ns[2], wire_ns;
};

static void emit(struct file *f, uint64_t true_ns, uint32_t tid, struct ggmlviz_event *ev,
		 const char *label)
{
	uint8_t buf[512];
	int n;

	ev->timestamp_ns = (uint64_t)((int64_t)true_ns + f->skew);
	ev->thread_id = tid;
	ev->label = label;
	ev->label_len = label ? (uint32_t)strlen(label) : 0;
	n = ggmlviz_encode_record(ev, buf, sizeof buf);
	if (n > 0 && fwrite(buf, 1, (size_t)n, f->f) == (size_t)n)
		f->records++;
}

static void meta(struct file *f, uint64_t t, uint32_t tid, uint32_t kind, uint64_t key,
		 const char *label)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_META };

	ev.data.meta.kind = kind, ev.data.meta.key = key;
	emit(f, t, tid, &ev, label);
}

static int open_file(struct file *f, const char *dir, const char *name, uint64_t pid,
		     int64_t skew, const char *process)
{
	char path[4096];
	uint8_t header[GGMLVIZ_HEADER_SIZE];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f->f = fopen(path, "wb")))
		return -1;
	f->skew = skew, f->pid = pid;
	ggmlviz_encode_header(header, sizeof header);
	fwrite(header, 1, sizeof header, f->f);
	meta(f, T0, (uint32_t)pid, GGMLVIZ_META_PROCESS, pid, process);
	meta(f, T0, (uint32_t)pid, GGMLVIZ_META_OP_NAME, 26, "MUL_MAT");
	meta(f, T0, (uint32_t)pid, GGMLVIZ_META_OP_NAME, 39, "GET_ROWS");
	return 0;
}

static void close_file(struct file *f, uint64_t t, int crashed)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_META };

	if (!f->f)
		return;
	ev.data.meta.kind = crashed ? GGMLVIZ_META_CRASH : GGMLVIZ_META_TRACE_END;
	ev.data.meta.key = crashed ? 6 : 0;
	ev.data.meta.value = f->records;
	emit(f, t, (uint32_t)f->pid, &ev, crashed ? "SIGABRT" : NULL);
	fclose(f->f);
	f->f = NULL;
}

static uint32_t hash_of(const struct model *m, const struct conn *c, uint32_t seq)
{
	uint64_t x = m->seed * 0x9e3779b97f4a7c15ull ^ (uint64_t)c->host << 40 ^ c->id << 20 ^ seq;

	x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29;
	return (uint32_t)x | 1u;
}

static void rpc(struct file *f, uint64_t t, uint32_t tid, uint8_t type, const struct conn *c,
		uint32_t seq, uint8_t cmd, uint8_t side, uint8_t status, uint64_t req, uint64_t rep,
		uint32_t hash)
{
	struct ggmlviz_event ev = { .type = type };

	ev.data.rpc.conn = c->id, ev.data.rpc.seq = seq, ev.data.rpc.cmd = cmd;
	ev.data.rpc.side = side, ev.data.rpc.status = status;
	ev.data.rpc.request_bytes = req, ev.data.rpc.reply_bytes = rep, ev.data.rpc.request_hash = hash;
	emit(f, t, tid, &ev, NULL);
}

static void op(struct file *f, uint64_t b, uint64_t e, uint32_t tid, uint64_t tensor, uint32_t type,
	       const char *name)
{
	struct ggmlviz_event ev = { .type = GGMLVIZ_EVENT_OP_COMPUTE_BEGIN };

	ev.data.op.tensor_ptr = tensor, ev.data.op.op_type = type, ev.data.op.op_size = 4096;
	emit(f, b, tid, &ev, name);
	ev.type = GGMLVIZ_EVENT_OP_COMPUTE_END;
	emit(f, e, tid, &ev, name);
}

/*
 * One command sent at true time t by the client (recorded when traced) and
 * served in order by the server (work_ns of work, or the graph's ops); its
 * client's end (true time) is returned, 0 when it failed.
 */
struct cmd {
	uint8_t cmd;
	uint64_t payload, reply, work_ns;
	int graph, traced, fail;
};

static uint64_t command(struct model *m, struct conn *c, uint64_t t, const struct cmd *k)
{
	uint32_t seq = c->seq++, hash = k->cmd == 14 ? 0 : hash_of(m, c, seq);
	uint64_t req = 9 + k->payload, rep = k->reply ? 8 + k->reply : 0;
	uint64_t sent = t + req, arrive = t + m->delay, s_begin, s_in, s_done;
	uint32_t st = (uint32_t)c->server->pid;

	if (k->traced)
		rpc(c->client, t, c->tid, GGMLVIZ_EVENT_RPC_BEGIN, c, seq, k->cmd, 1, 0, req, 0, hash);
	s_begin = arrive > c->server_free ? arrive : c->server_free;
	s_in = s_begin + req;
	rpc(c->server, s_begin, st, GGMLVIZ_EVENT_RPC_BEGIN, c, seq, k->cmd, 2, 0, 0, 0, 0);
	rpc(c->server, s_in, st, GGMLVIZ_EVENT_RPC_STAGE, c, seq, k->cmd, 2, GGMLVIZ_RPC_REQUEST_IN, req,
	    0, k->cmd == 14 ? 0 : hash);
	s_done = s_in + US;
	for (int i = 0; k->graph && i < OPS; i++, s_done += OP_US * US) {
		char name[32];
		uint32_t layer = 2 * c->host + (uint32_t)i / 2;

		snprintf(name, sizeof name, "Qcur-%u", layer);
		op(c->server, s_done, s_done + OP_US * US, st, 0x5000 + 64 * (uint64_t)i, 26, name);
	}
	s_done += k->work_ns;
	if (k->fail) {
		rpc(c->client, sent + m->delay, c->tid, GGMLVIZ_EVENT_RPC_END, c, seq, k->cmd, 1,
		    GGMLVIZ_RPC_FAILED, req, 0, 0);
		rpc(c->server, s_done, st, GGMLVIZ_EVENT_RPC_END, c, seq, k->cmd, 2, GGMLVIZ_RPC_FAILED,
		    req, 0, 0);
		return 0;
	}
	if (rep)
		rpc(c->server, s_done, st, GGMLVIZ_EVENT_RPC_STAGE, c, seq, k->cmd, 2, GGMLVIZ_RPC_REPLY,
		    req, 0, 0);
	c->server_free = s_done + (rep ? US : 0);
	rpc(c->server, c->server_free, st, GGMLVIZ_EVENT_RPC_END, c, seq, k->cmd, 2, 0, req, rep, 0);
	if (!rep) {
		if (k->traced)
			rpc(c->client, sent, c->tid, GGMLVIZ_EVENT_RPC_END, c, seq, k->cmd, 1, 0, req, 0, 0);
		return sent;
	}
	if (k->traced)
		rpc(c->client, s_done + m->delay + rep, c->tid, GGMLVIZ_EVENT_RPC_END, c, seq, k->cmd, 1, 0,
		    req, rep, 0);
	return s_done + m->delay + rep;
}

/* A connection opened at true time t: HELLO and GET_ALIGNMENT, which only the server records. */
static uint64_t connect(struct model *m, struct conn *c, uint64_t t)
{
	static const struct cmd hello = { 14, 24, 28, 2 * US, 0, 0, 0 };
	static const struct cmd align = { 1, 4, 8, 2 * US, 0, 0, 0 };
	char name[64];

	c->seq = 0;
	c->server_free = 0;
	snprintf(name, sizeof name, "serving 127.0.0.1:5005%u", c->host);
	meta(c->server, t, (uint32_t)c->server->pid, GGMLVIZ_META_RPC_CONNECTION, c->id, name);
	t = command(m, c, t, &hello);
	return command(m, c, t + 10 * US, &align);
}

/* Host c's part of a step from true time t; the time its GET_TENSOR's reply arrived. */
static uint64_t host_step(struct model *m, struct conn *c, uint64_t t, uint64_t step, int fail)
{
	const struct cmd set = { 6, 4096, 0, 2 * US, 0, 1, 0 };
	const struct cmd graph = { step ? 16 : 10, step ? 4 : 20000, 0, 0, 1, 1, 0 };
	const struct cmd get = { 8, 300, 4096, 5 * US, 0, 1, fail };

	t = command(m, c, t, &set);
	t = command(m, c, t + US, &graph);
	return command(m, c, t + US, &get);
}

static void client_names(struct model *m, const struct conn *c, uint64_t t)
{
	char name[64];

	snprintf(name, sizeof name, "127.0.0.1:5005%u", c->host);
	meta(&m->client, t, c->tid, GGMLVIZ_META_RPC_CONNECTION, c->id, name);
}

static int run(struct model *m, const char *dir)
{
	struct conn a = { &m->client, &m->a, 0x1000001, 102, 0, 0, 0 };
	struct conn b = { &m->client, &m->b, 0x1000002, 103, 0, 1, 0 };
	struct ggmlviz_event step = { .type = GGMLVIZ_EVENT_STEP_BEGIN };
	uint64_t t = T0 + 1000 * US, end = 0;

	t = connect(m, &a, t), t = connect(m, &b, t);
	client_names(m, &a, t), client_names(m, &b, t);
	step.data.step.ctx = 0xC0, step.data.step.n_tokens = 1, step.data.step.n_outputs = 1;
	step.data.step.phase = GGMLVIZ_PHASE_GENERATION;
	for (uint64_t s = 0; s < m->steps; s++) {
		int fail = m->fail && s + 1 == m->steps;

		if (m->restart && s == m->steps / 2) {
			close_file(&m->a, t, 0);
			if (open_file(&m->a2, dir, "server-a2.ggmlviz", 202, m->skew_a, "ggml-rpc-server") < 0)
				return -1;
			a.server = &m->a2, a.id = 0x1000003;
			t = connect(m, &a, t + 100 * US);
			client_names(m, &a, t);
		}
		step.type = GGMLVIZ_EVENT_STEP_BEGIN;
		emit(&m->client, t, 100, &step, "decode");
		op(&m->client, t + US, t + 51 * US, 100, 0x7000, 39, "inp_embd");
		end = host_step(m, &a, t + 52 * US, s, 0);
		end = host_step(m, &b, end + US, s, fail);
		if (!end)
			break; /* the client aborts: its trace ends with the crash */
		step.type = GGMLVIZ_EVENT_STEP_END;
		emit(&m->client, end + 20 * US, 100, &step, "decode");
		t = end + 1000 * US;
	}
	close_file(&m->client, t, m->fail), close_file(&m->a, t, 0), close_file(&m->a2, t, 0);
	close_file(&m->b, t, 0);
	printf("steps=%" PRIu64 "\nskew_a=%" PRId64 "\nskew_b=%" PRId64 "\ndelay_ns=%" PRIu64
	       "\nops_per_host_ns=%llu\n", m->steps, m->skew_a, m->skew_b, m->delay,
	       (unsigned long long)OPS * OP_US * US);
	return 0;
}

int main(int argc, char **argv)
{
	struct model m = { .steps = 8, .delay = 200 * US, .seed = 1 };
	const char *dir = argc > 1 ? argv[1] : NULL;

	for (int i = 2; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : "0";

		if (!strcmp(argv[i], "--fail"))
			m.fail = 1;
		else if (!strcmp(argv[i], "--restart"))
			m.restart = 1;
		else if (!strcmp(argv[i], "--steps") && ++i)
			m.steps = strtoull(v, NULL, 10);
		else if (!strcmp(argv[i], "--skew-a") && ++i)
			m.skew_a = strtoll(v, NULL, 10);
		else if (!strcmp(argv[i], "--skew-b") && ++i)
			m.skew_b = strtoll(v, NULL, 10);
		else if (!strcmp(argv[i], "--delay-us") && ++i)
			m.delay = strtoull(v, NULL, 10) * US;
		else if (!strcmp(argv[i], "--seed") && ++i)
			m.seed = strtoull(v, NULL, 10);
		else
			dir = NULL;
	}
	if (!dir || !m.steps) {
		fprintf(stderr, "usage: gen-rpc DIR [--steps N] [--skew-a NS] [--skew-b NS] [--delay-us D]"
				" [--seed S] [--fail] [--restart]\n");
		return 2;
	}
	if (open_file(&m.client, dir, "client.ggmlviz", 100, 0, "llama-bench") < 0 ||
	    open_file(&m.a, dir, "server-a.ggmlviz", 201, m.skew_a, "ggml-rpc-server") < 0 ||
	    open_file(&m.b, dir, "server-b.ggmlviz", 301, m.skew_b, "ggml-rpc-server") < 0 ||
	    run(&m, dir) < 0) {
		perror(dir);
		return 1;
	}
	return 0;
}
