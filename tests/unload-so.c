/*
 * A plugin that linked lib/libggmlviz.a (tests/test-unload.sh): the host
 * loads it, starts tracing through it, has its own threads emit through
 * it (marks, a run of nodes, shares of a CPU graph: every kind of state a
 * thread makes in the tracer), and unloads it, with or without stopping.
 * With UNLOAD_CUPTI naming the tests' stand-in libcupti, each thread also
 * runs a GPU run on "CUDA0" whose kernel CUPTI records: CUPTI then holds
 * the plugin's buffer callbacks, which must not outlive it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

int plugin_start(const char *path, int rolling);
int plugin_work(int thread);
int plugin_stop(void);

static char said[512];

static void keep(void *user, int level, const char *msg)
{
	(void)user;
	(void)level;
	snprintf(said, sizeof said, "%s", msg);
}

/* Starts tracing to path (rolling: ops held by step, summed); ggmlviz_start()'s result. */
int plugin_start(const char *path, int rolling)
{
	struct ggmlviz_config cfg;
	int rc;

	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.flush_interval_ms = 5;
	cfg.log_fn = keep;
	if (rolling)
		cfg.op_sample = 4;
	cfg.cupti_path = getenv("UNLOAD_CUPTI");
	if (cfg.cupti_path)
		cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_AT_START;
	rc = ggmlviz_start(&cfg);
	if (rc < 0)
		fprintf(stderr, "plugin_start: %d: %s\n", rc, said);
	return rc;
}

static void describe(void *user, const void *const *nodes, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	(void)user;
	(void)nodes;
	(void)n;
	out->op_type = (uint32_t)i + 1;
	out->ticks = 1; /* the backend computes it: a tick */
	out->layer = -1;
	out->name = "node";
}

static const char node_a, node_b, cuda0;
static char pools[64]; /* each thread its own pool of one worker */

/* UNLOAD_CUPTI: a GPU run of one node, its kernel launched through the stand-in. */
static void gpu_run(void)
{
	const char *path = getenv("UNLOAD_CUPTI");
	void *h = path ? dlopen(path, RTLD_NOW | RTLD_NOLOAD) : NULL;
	uint32_t (*launch)(const char *, uint64_t, uint32_t);

	if (!h)
		return;
	*(void **)&launch = dlsym(h, "cupti_standin_launch");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
	ggmlviz_nodes_ask(&node_a, &cuda0, describe, NULL);
	if (launch)
		launch("standin_kernel", 1000, 7);
	ggmlviz_nodes_flush();
	dlclose(h);
}

/* What one thread of the host does through the plugin: 100 marks, a step of two nodes, shares. */
int plugin_work(int thread)
{
	const void *nodes[2] = { &node_a, &node_b };
	const void *pool = &pools[thread % 64];

	for (int i = 0; i < 100; i++)
		ggmlviz_mark("work", (uint64_t)thread * 1000 + (uint64_t)i);
	ggmlviz_step_begin(&node_a, 1, 1, 0, NULL);
	ggmlviz_cpu_share_begin(pool, 0, 0);
	ggmlviz_nodes_ask(&node_a, NULL, describe, NULL);
	ggmlviz_cpu_share_end(pool, 0, 0);
	ggmlviz_nodes_tick();
	ggmlviz_cpu_share_next(pool, 0, 1); /* one thread: it begins where the one before ended */
	ggmlviz_nodes_ask(&node_b, NULL, describe, NULL);
	ggmlviz_cpu_share_end(pool, 0, 1);
	ggmlviz_nodes_tick();
	ggmlviz_cpu_graph_done(pool, 0, 1, nodes, 2, NULL);
	ggmlviz_nodes_flush();
	gpu_run();
	ggmlviz_step_end(&node_a, 1, 1, 0, 0, NULL);
	return 0;
}

int plugin_stop(void)
{
	return ggmlviz_stop();
}
