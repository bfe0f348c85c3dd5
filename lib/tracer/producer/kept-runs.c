/*
 * The descriptions of a split graph's run, kept for its next run of the
 * same id, nodes and describer (see nodes.c): llama.cpp computes the same
 * split graphs at every token, and their nodes are described once. It
 * keeps what nodes.c described; nodes.c describes (a layer below it).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "tracer/base/base.h"
#include "tracer/producer/run.h"
#include "util/pages.h"

/* The kept descriptions of a run of the same graph, nodes and describer; NULL if none (run.h). */
struct kept *ggmlviz__kept_find(struct run *r)
{
	for (uint32_t k = 0; r->graph_id && !r->lost && k < KEPT_RUNS; k++) {
		struct kept *kp = &r->kept[k];

		if (kp->graph_id == r->graph_id && kp->describe == r->describe && kp->user == r->user &&
		    kp->n == r->n && !memcmp(kp->nodes, r->nodes, r->n * sizeof *r->nodes))
			return kp;
	}
	return NULL;
}

/* The slot a run of graph_id is kept in: its own, an empty one, else the least used. */
static struct kept *kept_slot(struct run *r)
{
	struct kept *best = &r->kept[0];

	for (uint32_t k = 0; k < KEPT_RUNS; k++) {
		struct kept *kp = &r->kept[k];

		if (kp->graph_id == r->graph_id || !kp->graph_id)
			return kp;
		if (kp->used < best->used)
			best = kp;
	}
	return best;
}

/*
 * NVTX level 2: room for the registered names of a kept run's ops, none
 * registered yet (a new set of nodes); none without it, or without memory.
 */
static void keep_nvtx_names(const struct run *r, struct kept *kp)
{
	void *p;

	if (!(r->nvtx & GGMLVIZ__NVTX_OPS)) {
		ggmlviz__pages_free(kp->nvtx_names);
		kp->nvtx_names = NULL;
		return;
	}
	p = ggmlviz__pages_resize(kp->nvtx_names, kp->cap * sizeof *kp->nvtx_names);
	if (!p) {
		ggmlviz__pages_free(kp->nvtx_names); /* its ops' ranges then carry their text */
		kp->nvtx_names = NULL;
		return;
	}
	kp->nvtx_names = p;
	memset(p, 0, kp->cap * sizeof *kp->nvtx_names);
}

/* The descriptions of a run just described, kept (run.h). */
struct kept *ggmlviz__keep(struct run *r, uint32_t expected)
{
	struct kept *kp = kept_slot(r);
	void *p;

	kp->graph_id = 0;
	if (kp->cap < r->n) {
		if (!(p = ggmlviz__pages_resize(kp->nodes, r->n * sizeof *kp->nodes)))
			return NULL;
		kp->nodes = p;
		if (!(p = ggmlviz__pages_resize(kp->desc, r->n * sizeof *kp->desc)))
			return NULL;
		kp->desc = p;
		if (!(p = ggmlviz__pages_resize(kp->ticking, r->n * sizeof *kp->ticking)))
			return NULL;
		kp->ticking = p;
		kp->cap = r->n;
	}
	memcpy(kp->nodes, r->nodes, r->n * sizeof *r->nodes);
	memcpy(kp->desc, r->desc, r->n * sizeof *r->desc);
	for (uint32_t i = 0, k = 0; i < r->n && k < expected; i++)
		if (r->desc[i].ticks)
			kp->ticking[k++] = i;
	kp->n = r->n;
	kp->expected = expected;
	kp->describe = r->describe;
	kp->user = r->user;
	kp->used = r->closed;
	kp->set = ++r->sets;
	kp->shares_set = 0;
	kp->written = (struct ggmlviz__written){ 0, NULL, 0 };
	keep_nvtx_names(r, kp);
	kp->ticked = r->n_ticks != 0;
	kp->ask_always = r->ask_always;
	kp->session = r->session;
	kp->graph_id = r->graph_id;
	return kp;
}

/* A kept run of r's graph, nodes and describer, taken for r (run.h). */
struct kept *ggmlviz__kept_reused(struct run *r)
{
	struct kept *kp = ggmlviz__kept_find(r);

	if (!kp)
		return NULL;
	kp->used = r->closed;
	kp->session = r->session;
	kp->ticked = r->n_ticks != 0;
	kp->ask_always = r->ask_always;
	return kp;
}

/* The kept run of the run's graph id, whose nodes ahead() fetches. */
struct kept *ggmlviz__kept_again(struct run *r)
{
	for (uint32_t k = 0; r->graph_id && k < KEPT_RUNS; k++)
		if (r->kept[k].graph_id == r->graph_id)
			return &r->kept[k];
	return NULL;
}
