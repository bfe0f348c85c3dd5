/*
 * Each RPC connection's commands, as the process that recorded them saw
 * them (see rpc.h): RPC_BEGIN opens a command, RPC_STAGE and RPC_END
 * complete the open one of the same place; the PROCESS, RPC_CONNECTION and
 * RPC_CLOCK records name what they belong to.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rpc/rpc.h"

const char *cli_rpc_cmd_name(uint8_t cmd, char buf[16])
{
	static const char *const names[] = {
		"ALLOC_BUFFER", "GET_ALIGNMENT", "GET_MAX_SIZE", "BUFFER_GET_BASE", "FREE_BUFFER",
		"BUFFER_CLEAR", "SET_TENSOR", "SET_TENSOR_HASH", "GET_TENSOR", "COPY_TENSOR",
		"GRAPH_COMPUTE", "GET_DEVICE_MEMORY", "INIT_TENSOR", "GET_ALLOC_SIZE", "HELLO",
		"DEVICE_COUNT", "GRAPH_RECOMPUTE", "MEMSET_TENSOR",
	};

	if (cmd < sizeof names / sizeof names[0])
		return names[cmd];
	snprintf(buf, 16, "CMD_%u", cmd);
	return buf;
}

int cli_rpc_grow(void **items, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 8;
	void *p;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	if (!(p = realloc(*items, n * size)))
		return -ENOMEM;
	memset((char *)p + *cap * size, 0, (n - *cap) * size);
	*items = p, *cap = n;
	return 0;
}

static void copy_label(char *dst, size_t size, const struct ggmlviz_event *ev)
{
	size_t n = ev->label && ev->label_len < size ? ev->label_len : size - 1;

	memcpy(dst, ev->label ? ev->label : "", ev->label ? n : 0);
	dst[ev->label ? n : 0] = '\0';
}

static struct cli_rpc_proc *proc_get(struct cli_rpc *r, uint64_t pid)
{
	struct cli_rpc_proc *p;

	for (size_t i = 0; i < r->n_procs; i++)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	if (cli_rpc_grow((void **)&r->procs, &r->cap_procs, r->n_procs + 1, sizeof *p) < 0)
		return NULL;
	p = &r->procs[r->n_procs++];
	p->pid = pid;
	return p;
}

const struct cli_rpc_proc *cli_rpc_proc_of(const struct cli_rpc *r, uint64_t pid)
{
	for (size_t i = 0; i < r->n_procs; i++)
		if (r->procs[i].pid == pid)
			return &r->procs[i];
	return NULL;
}

struct cli_rpc_conn *cli_rpc_conn_of(const struct cli_rpc *r, uint64_t pid, uint64_t id)
{
	for (size_t i = r->n; i-- > 0;)
		if (r->conns[i].id == id && r->conns[i].pid == pid)
			return &r->conns[i];
	return NULL;
}

static struct cli_rpc_conn *conn_get(struct cli_rpc *r, uint64_t id)
{
	struct cli_rpc_conn *c = cli_rpc_conn_of(r, r->pid, id);

	if (c)
		return c;
	if (cli_rpc_grow((void **)&r->conns, &r->cap, r->n + 1, sizeof *c) < 0)
		return NULL;
	c = &r->conns[r->n++];
	c->id = id, c->pid = r->pid;
	return c;
}

static void on_meta(struct cli_rpc *r, const struct ggmlviz_event *ev)
{
	struct cli_rpc_proc *p;
	struct cli_rpc_conn *c;

	switch (ev->data.meta.kind) {
	case GGMLVIZ_META_PROCESS:
		r->pid = ev->data.meta.key;
		if ((p = proc_get(r, r->pid)))
			copy_label(p->name, sizeof p->name, ev);
		break;
	case GGMLVIZ_META_RPC_CONNECTION:
		if ((c = conn_get(r, ev->data.meta.key)))
			copy_label(c->name, sizeof c->name, ev);
		break;
	case GGMLVIZ_META_RPC_CLOCK:
		if (!(p = proc_get(r, r->pid)))
			break;
		p->clocked = true;
		p->client_pid = ev->data.meta.key;
		p->offset_ns = (int64_t)ev->data.meta.value;
		p->uncertainty_ns = ev->data.meta.value2;
		copy_label(p->clock_words, sizeof p->clock_words, ev);
		break;
	default:
		break;
	}
}

static int begin(struct cli_rpc *r, struct cli_rpc_conn *c, const struct ggmlviz_event *ev)
{
	struct cli_rpc_cmd *k;
	struct cli_rpc_proc *p = proc_get(r, r->pid);

	if (!p)
		return -ENOMEM;
	p->side = ev->data.rpc.side;
	if (cli_rpc_grow((void **)&c->c, &c->cap, c->n + 1, sizeof *k) < 0)
		return -ENOMEM;
	c->side = ev->data.rpc.side;
	c->tid = ev->thread_id;
	k = &c->c[c->n++];
	k->begin_ns = ev->timestamp_ns;
	k->seq = ev->data.rpc.seq;
	k->cmd = ev->data.rpc.cmd;
	k->request_bytes = ev->data.rpc.request_bytes;
	k->hash = ev->data.rpc.request_hash;
	return 0;
}

/*
 * The open command of c at that place, or NULL (counted). A client sends
 * its HELLO on the thread that connects and the rest on the connection's
 * own, whose records may come first in the file: the last few are looked at.
 */
static struct cli_rpc_cmd *open_cmd(struct cli_rpc *r, struct cli_rpc_conn *c, uint32_t seq)
{
	for (size_t i = c->n, k = 0; i-- > 0 && k < 8; k++)
		if (c->c[i].seq == seq && !c->c[i].ended)
			return &c->c[i];
	r->unpaired++;
	return NULL;
}

static void stage(struct cli_rpc *r, struct cli_rpc_conn *c, const struct ggmlviz_event *ev)
{
	struct cli_rpc_cmd *k = open_cmd(r, c, ev->data.rpc.seq);

	if (!k)
		return;
	if (ev->data.rpc.status == GGMLVIZ_RPC_REQUEST_IN) {
		k->in_ns = ev->timestamp_ns;
		k->request_bytes = ev->data.rpc.request_bytes;
		k->hash = ev->data.rpc.request_hash;
	} else if (ev->data.rpc.status == GGMLVIZ_RPC_REPLY) {
		k->reply_ns = ev->timestamp_ns;
	}
}

static void end(struct cli_rpc *r, struct cli_rpc_conn *c, const struct ggmlviz_event *ev)
{
	struct cli_rpc_cmd *k = open_cmd(r, c, ev->data.rpc.seq);

	if (!k)
		return;
	k->end_ns = ev->timestamp_ns;
	k->ended = 1;
	k->status = ev->data.rpc.status;
	k->reply_bytes = ev->data.rpc.reply_bytes;
	if (ev->data.rpc.request_bytes)
		k->request_bytes = ev->data.rpc.request_bytes;
}

int cli_rpc_add(struct cli_rpc *r, const struct ggmlviz_event *ev)
{
	struct cli_rpc_conn *c;

	if (ev->type == GGMLVIZ_EVENT_META) {
		on_meta(r, ev);
		return 0;
	}
	if (ev->type != GGMLVIZ_EVENT_RPC_BEGIN && ev->type != GGMLVIZ_EVENT_RPC_STAGE &&
	    ev->type != GGMLVIZ_EVENT_RPC_END)
		return 0;
	if (!(c = conn_get(r, ev->data.rpc.conn)))
		return -ENOMEM;
	if (ev->type == GGMLVIZ_EVENT_RPC_BEGIN)
		return begin(r, c, ev);
	if (ev->type == GGMLVIZ_EVENT_RPC_STAGE)
		stage(r, c, ev);
	else
		end(r, c, ev);
	return 0;
}

static int by_seq(const void *a, const void *b)
{
	const struct cli_rpc_cmd *x = a, *y = b;

	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->begin_ns > y->begin_ns) - (x->begin_ns < y->begin_ns);
}

void cli_rpc_finish(struct cli_rpc *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->conns[i].n)
			qsort(r->conns[i].c, r->conns[i].n, sizeof *r->conns[i].c, by_seq);
}

uint64_t cli_rpc_commands(const struct cli_rpc *r, uint8_t side)
{
	uint64_t n = 0;

	for (size_t i = 0; i < r->n; i++)
		n += r->conns[i].side == side ? r->conns[i].n : 0;
	return n;
}

void cli_rpc_free(struct cli_rpc *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->conns[i].c);
	free(r->conns);
	free(r->procs);
	memset(r, 0, sizeof *r);
}
