/*
 * ggml_transformer: a small llama-style transformer computed with GGML
 * through a scheduler, several steps, traced by libggmlviz's GGML adapter.
 *
 *     ggml_transformer [-l LAYERS] [-s STEPS] [-t THREADS] [-o TRACE]
 *     ggmlviz stats ggml_transformer.ggmlviz
 *
 * The tracing is these lines: start the tracer, install the adapter on the
 * scheduler (the one line a GGML program needs), compute each graph through
 * ggmlviz_ggml_sched_graph_compute() instead of
 * ggml_backend_sched_graph_compute(), stop.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>

#include "transformer.h"

/* where GGML's backends are loaded from: the build's GGML, else beside the program */
#ifdef GGMLVIZ_GGML_LIBDIR
#define GGML_LIBDIR_SAID GGMLVIZ_GGML_LIBDIR
#else
#define GGMLVIZ_GGML_LIBDIR NULL
#define GGML_LIBDIR_SAID "beside the program"
#endif

struct options {
	struct transformer_params model;
	int steps;
	int threads;
	const char *output;
	const char *libdir;
	int trace;
};

static void usage(void)
{
	printf(
		"usage: ggml_transformer [OPTION]...\n"
		"Computes a small llama-style transformer with GGML and traces it.\n"
		"\n"
		"  -l, --layers N       transformer blocks (default 4)\n"
		"  -s, --steps N        graph computations (default 8)\n"
		"  -t, --threads N      CPU threads (default 1)\n"
		"  -n, --tokens N       tokens per step (default 32)\n"
		"  -e, --embd N         embedding size, a multiple of the heads (default 256)\n"
		"      --heads N        attention heads (default 4)\n"
		"  -o, --output PATH    the trace (default ggml_transformer.ggmlviz; %%p = pid)\n"
		"      --no-trace       compute without tracing, to compare\n"
		"      --own-names      name the nodes t0, t1, ... as a program of its own may,\n"
		"                       not as llama.cpp names them\n"
		"      --ggml-libdir DIR  where GGML's libggml-cpu-*.so are\n"
		"                       (default %s)\n"
		"  -h, --help           this help\n"
		"\n"
		"Then: ggmlviz stats TRACE\n",
		GGML_LIBDIR_SAID);
}

/* A whole decimal number from min to max, or a message naming the option. */
static int parse_int(const char *option, const char *text, int min, int max, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || *end || v < min || v > max) {
		fprintf(stderr, "ggml_transformer: %s: '%s' is not a number from %d to %d\n",
			option, text, min, max);
		return -EINVAL;
	}
	*out = (int)v;
	return 0;
}

enum { OPT_HEADS = 256, OPT_NO_TRACE, OPT_LIBDIR, OPT_OWN_NAMES };

static const struct option long_options[] = {
	{ "layers", required_argument, NULL, 'l' },
	{ "steps", required_argument, NULL, 's' },
	{ "threads", required_argument, NULL, 't' },
	{ "tokens", required_argument, NULL, 'n' },
	{ "embd", required_argument, NULL, 'e' },
	{ "heads", required_argument, NULL, OPT_HEADS },
	{ "output", required_argument, NULL, 'o' },
	{ "no-trace", no_argument, NULL, OPT_NO_TRACE },
	{ "own-names", no_argument, NULL, OPT_OWN_NAMES },
	{ "ggml-libdir", required_argument, NULL, OPT_LIBDIR },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* One option: 0, 1 for --help, or -EINVAL. */
static int parse_option(struct options *o, int c, const char *arg)
{
	switch (c) {
	case 'l': return parse_int("--layers", arg, 1, 256, &o->model.n_layer);
	case 's': return parse_int("--steps", arg, 1, 1000000, &o->steps);
	case 't': return parse_int("--threads", arg, 1, 512, &o->threads);
	case 'n': return parse_int("--tokens", arg, 1, 4096, &o->model.n_tokens);
	case 'e': return parse_int("--embd", arg, 1, 16384, &o->model.n_embd);
	case OPT_HEADS: return parse_int("--heads", arg, 1, 256, &o->model.n_head);
	case 'o': o->output = arg; return 0;
	case OPT_NO_TRACE: o->trace = 0; return 0;
	case OPT_OWN_NAMES: o->model.own_names = true; return 0;
	case OPT_LIBDIR: o->libdir = arg; return 0;
	case 'h': return 1;
	default: return -EINVAL;
	}
}

static int parse_options(struct options *o, int argc, char **argv)
{
	int c, rc = 0;

	transformer_params_init(&o->model);
	o->steps = 8;
	o->threads = 1;
	o->output = "ggml_transformer.ggmlviz";
	o->libdir = GGMLVIZ_GGML_LIBDIR;
	o->trace = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, "l:s:t:n:e:o:h", long_options, NULL)) != -1)
		rc = parse_option(o, c, optarg);
	if (rc == 0 && optind < argc) {
		fprintf(stderr, "ggml_transformer: unexpected argument '%s'\n", argv[optind]);
		rc = -EINVAL;
	}
	if (rc == 0 && o->model.n_embd % o->model.n_head) {
		fprintf(stderr, "ggml_transformer: --embd %d is not a multiple of --heads %d\n",
			o->model.n_embd, o->model.n_head);
		rc = -EINVAL;
	}
	o->model.n_ff = 2 * o->model.n_embd;
	return rc;
}

static int start_tracing(const struct options *o)
{
	struct ggmlviz_config cfg;
	int rc;

	ggmlviz_config_init(&cfg);
	ggmlviz_config_from_env(&cfg); /* GGML_VIZ_* may adjust it */
	cfg.output = o->output;
	rc = ggmlviz_start(&cfg);
	if (rc < 0)
		fprintf(stderr, "ggml_transformer: cannot trace into %s: %s\n", o->output,
			ggmlviz_strerror(rc));
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int count_computing(struct ggml_cgraph *g)
{
	int n = 0;

	for (int i = 0; i < ggml_graph_n_nodes(g); i++)
		n += ggmlviz_ggml_node_computes(ggml_graph_node(g, i));
	return n;
}

/* The steps; the time per step in *ms. */
static int run_steps(const struct options *o, struct transformer *m, ggml_backend_sched_t sched,
		     double *ms)
{
	double t0 = now_ms();

	for (int step = 0; step < o->steps; step++) {
		enum ggml_status st = transformer_step(m, sched, (uint32_t)step,
						       ggmlviz_ggml_sched_graph_compute);
		if (st != GGML_STATUS_SUCCESS) {
			fprintf(stderr, "ggml_transformer: step %d failed: %s\n", step,
				ggml_status_to_string(st));
			return -EIO;
		}
	}
	*ms = (now_ms() - t0) / o->steps;
	return 0;
}

static void report(const struct options *o, struct transformer *m, double ms)
{
	struct ggmlviz_stats stats;

	printf("ggml_transformer: %d layers, %d tokens, %d embd, %d heads: %d steps of %d nodes "
	       "(%d computing) on CPU, %d thread%s, %.2f ms per step, result %016llx\n",
	       o->model.n_layer, o->model.n_tokens, o->model.n_embd, o->model.n_head, o->steps,
	       ggml_graph_n_nodes(m->graph), count_computing(m->graph), o->threads,
	       o->threads == 1 ? "" : "s", ms, (unsigned long long)transformer_checksum(m));
	if (!o->trace)
		return;
	ggmlviz_get_stats(&stats);
	printf("ggml_transformer: trace in %s: %llu events, %llu dropped; next: ggmlviz stats %s\n",
	       o->output, (unsigned long long)stats.written, (unsigned long long)stats.dropped,
	       o->output);
}

static int run(const struct options *o, ggml_backend_t backend)
{
	struct transformer m;
	ggml_backend_sched_t sched;
	double ms = 0;
	int rc = transformer_init(&m, &o->model, backend);

	if (rc < 0) {
		fprintf(stderr, "ggml_transformer: cannot build the model: %s\n", strerror(-rc));
		return rc;
	}
	sched = ggml_backend_sched_new(&backend, NULL, 1, transformer_graph_size(&o->model),
				       false, false);
	if (o->trace)
		rc = ggmlviz_ggml_trace_sched(sched, o->threads, NULL, NULL); /* the one line */
	if (rc == 0)
		rc = run_steps(o, &m, sched, &ms);
	if (o->trace)
		ggmlviz_ggml_untrace_sched(sched);
	if (o->trace && ggmlviz_stop() < 0)
		fprintf(stderr, "ggml_transformer: the trace %s is incomplete\n", o->output);
	if (rc == 0)
		report(o, &m, ms);
	ggml_backend_sched_free(sched);
	transformer_free(&m);
	return rc;
}

int main(int argc, char **argv)
{
	struct options o;
	ggml_backend_t backend;
	int rc = parse_options(&o, argc, argv);

	if (rc > 0)
		usage();
	if (rc < 0)
		fprintf(stderr, "Try 'ggml_transformer --help'.\n");
	if (rc)
		return rc > 0 ? EXIT_SUCCESS : 2;
	backend = transformer_cpu_backend(o.libdir, o.threads);
	if (!backend) {
		fprintf(stderr, "ggml_transformer: no GGML CPU backend (libggml-cpu-*.so) in %s; "
			"see --ggml-libdir\n", o.libdir ? o.libdir : "the program's folder");
		return EXIT_FAILURE;
	}
	rc = o.trace ? start_tracing(&o) : 0;
	if (rc == 0)
		rc = run(&o, backend);
	ggml_backend_free(backend);
	return rc < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
