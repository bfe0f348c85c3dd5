/*
 * A server's connection tied to its client's, and the server's clock
 * against the client's (see rpc.h).
 *
 * Both ends number a connection's commands alike and hash a request's
 * payload alike, so the same command is the one at the same place with
 * the same command, bytes and hash. Its four times bound the offset theta
 * of the server's clock from the client's, as NTP's do (t1 the client's
 * send, t2 the server's receipt, t3 its reply, t4 the client's receipt):
 * t1 + theta <= t2 and t3 <= t4 + theta. The tightest bounds come from the
 * shortest round trips; the estimate is the middle of the interval they
 * leave, and its uncertainty half its width.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rpc/rpc.h"

/* Whether two records of one command agree; counts a hash compared in *hashed. */
static bool same_command(const struct cli_rpc_cmd *a, const struct cli_rpc_cmd *b,
			 uint64_t *hashed)
{
	if (a->cmd != b->cmd)
		return false;
	if (a->request_bytes && b->request_bytes && a->request_bytes != b->request_bytes)
		return false;
	if (!a->hash || !b->hash)
		return true;
	*hashed += a->hash == b->hash;
	return a->hash == b->hash;
}

/* Calls fn for each place both connections recorded, in order. */
static void each_shared(const struct cli_rpc_conn *s, const struct cli_rpc_conn *c,
			bool (*fn)(const struct cli_rpc_cmd *sk, const struct cli_rpc_cmd *ck, void *arg),
			void *arg)
{
	size_t i = 0, j = 0;

	while (i < s->n && j < c->n) {
		if (s->c[i].seq < c->c[j].seq)
			i++;
		else if (s->c[i].seq > c->c[j].seq)
			j++;
		else if (!fn(&s->c[i++], &c->c[j++], arg))
			return;
	}
}

static bool agree_one(const struct cli_rpc_cmd *sk, const struct cli_rpc_cmd *ck, void *arg)
{
	struct cli_rpc_agree *a = arg;

	a->compared++;
	a->differ = !same_command(sk, ck, &a->hashed);
	return !a->differ;
}

void cli_rpc_agree(const struct cli_rpc_conn *s, const struct cli_rpc_conn *c,
		   struct cli_rpc_agree *out)
{
	*out = (struct cli_rpc_agree){ 0, 0, false };
	each_shared(s, c, agree_one, out);
}

void cli_rpc_clock_init(struct cli_rpc_clock *k)
{
	*k = (struct cli_rpc_clock){ INT64_MIN, INT64_MAX, 0, 0, UINT64_MAX, 0, 0, 0, 0 };
}

/* The bounds one command gives, and its own estimate where its round trip is the tightest. */
static bool clock_one(const struct cli_rpc_cmd *sk, const struct cli_rpc_cmd *ck, void *arg)
{
	struct cli_rpc_clock *k = arg;
	int64_t t1 = (int64_t)ck->begin_ns, t2 = (int64_t)sk->begin_ns;
	int64_t t3 = (int64_t)sk->reply_ns, t4 = (int64_t)ck->end_ns;

	if (!t1 || !t2)
		return true;
	k->pairs++;
	if (t2 - t1 < k->high)
		k->high = t2 - t1;
	if (!t3 || !ck->ended || ck->status != GGMLVIZ_RPC_OK || !ck->reply_bytes)
		return true;
	k->replied++;
	if (t3 - t4 > k->low)
		k->low = t3 - t4;
	if (t4 - t1 >= t3 - t2 && (uint64_t)((t4 - t1) - (t3 - t2)) < k->best_rtt) {
		k->best_rtt = (uint64_t)((t4 - t1) - (t3 - t2));
		k->best_offset = ((t2 - t1) + (t3 - t4)) / 2;
	}
	return true;
}

void cli_rpc_clock_add(struct cli_rpc_clock *k, const struct cli_rpc_conn *s,
		       const struct cli_rpc_conn *c)
{
	each_shared(s, c, clock_one, k);
}

int cli_rpc_clock_solve(struct cli_rpc_clock *k)
{
	if (k->low == INT64_MIN || k->high == INT64_MAX)
		return -1;
	if (k->low <= k->high) {
		k->offset = k->low + (k->high - k->low) / 2;
		k->uncertainty = (uint64_t)(k->high - k->low) / 2;
		k->crossed = 0;
		return 0;
	}
	k->crossed = (uint64_t)(k->low - k->high);
	k->offset = k->best_offset;
	k->uncertainty = k->best_rtt / 2;
	return 0;
}

const char *cli_rpc_fmt_offset(int64_t offset, uint64_t uncertainty, char *buf, size_t size)
{
	uint64_t mag = offset < 0 ? (uint64_t)0 - (uint64_t)offset : (uint64_t)offset;

	snprintf(buf, size, "%c%" PRIu64 ".%03" PRIu64 " ms +- %" PRIu64 ".%03" PRIu64 " ms",
		 offset < 0 ? '-' : '+', mag / 1000000, mag / 1000 % 1000, uncertainty / 1000000,
		 uncertainty / 1000 % 1000);
	return buf;
}
