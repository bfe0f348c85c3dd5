/*
 * Each backend's runs of nodes and how their ops were timed (see stats.h):
 * stats, info and the report say it the same way, so that nobody reads a
 * run's time as an op's.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "input/input.h"
#include "output/output.h"
#include "stats/stats.h"

struct cli_split_sum *cli_backends_of(struct cli_backends *b, uint64_t backend)
{
	struct cli_split_sum *s = NULL;

	for (size_t i = 0; i < b->n && !s; i++)
		if (b->s[i].backend == backend)
			s = &b->s[i];
	if (!s && b->n == CLI_MAX_BACKENDS)
		return NULL; /* more backends than any machine has: the rest are left out */
	if (!s) {
		s = &b->s[b->n++];
		s->backend = backend;
	}
	return s;
}

void cli_backends_add(struct cli_backends *b, const struct ggmlviz_timing *t)
{
	struct cli_split_sum *s;

	if (t->kind == GGMLVIZ_TIMING_SHARE) { /* a CPU worker's, of no backend the record names */
		b->shares++, b->share_ns += t->duration_ns, b->share_wait_ns += t->value;
		return;
	}
	if (t->kind != GGMLVIZ_TIMING_SPLIT && t->kind != GGMLVIZ_TIMING_OP &&
	    t->kind != GGMLVIZ_TIMING_OP_SUMMARY)
		return;
	if (!(s = cli_backends_of(b, t->backend_ptr)))
		return;
	if (t->kind == GGMLVIZ_TIMING_OP_SUMMARY) {
		s->summed += t->n_nodes;
		return;
	}
	if (t->kind == GGMLVIZ_TIMING_OP && t->op_type == CLI_OP_RUN_START)
		return; /* a run's start, told apart from its first op: not an op */
	if (t->kind == GGMLVIZ_TIMING_OP) {
		s->ops[t->method <= GGMLVIZ_OP_METHOD_MEASURED ? t->method : 0]++;
		s->gpu_ns += t->method == GGMLVIZ_OP_METHOD_GPU ? t->duration_ns : 0;
		return;
	}
	s->count++;
	s->ns += t->duration_ns;
	s->nodes += t->n_nodes;
	s->timed += t->n_timed;
	s->mismatched += t->ticks && t->ticks != t->ticks_expected;
}

void cli_backends_name(struct cli_backends *b, const struct cli_names *n,
		       const struct ggmlviz_reader *r)
{
	char buf[24];

	for (size_t i = 0; i < b->n; i++)
		snprintf(b->s[i].name, sizeof b->s[i].name, "%s",
			 cli_backend_name(n, r, b->s[i].backend, buf));
}

/* How a backend's ops were timed, in words, after its runs' figures. */
static void how_timed(struct cli_out *o, const struct cli_backends *b, const struct cli_split_sum *s)
{
	static const char *const how[] = {
		[GGMLVIZ_OP_METHOD_TICK] = "by the backend's ticks",
		[GGMLVIZ_OP_METHOD_GPU] = "on the GPU (its kernels, or the backend's timestamps)",
		[GGMLVIZ_OP_METHOD_SYNC] = "synchronized one by one (the run changed)",
		[GGMLVIZ_OP_METHOD_UNKNOWN] = "by a method the trace does not say",
		[GGMLVIZ_OP_METHOD_MEASURED] = ("measured, every worker thread's share (GGML built "
						"with libggmlviz's edit)"),
	};
	static const int order[] = { GGMLVIZ_OP_METHOD_MEASURED, GGMLVIZ_OP_METHOD_TICK,
				     GGMLVIZ_OP_METHOD_GPU,
				     GGMLVIZ_OP_METHOD_SYNC, GGMLVIZ_OP_METHOD_UNKNOWN };
	const char *sep = ": ";
	char buf[32];

	for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
		if (!s->ops[order[i]])
			continue;
		cli_out_printf(o, "%s%llu ops timed %s", sep, (unsigned long long)s->ops[order[i]],
			       how[order[i]]);
		if (order[i] == GGMLVIZ_OP_METHOD_GPU)
			cli_out_printf(o, ": %s", cli_fmt_ns((double)s->gpu_ns, buf));
		if (order[i] == GGMLVIZ_OP_METHOD_MEASURED && b->shares) {
			char w[32];
			cli_out_printf(o, " (%llu shares: %s computing, %s waiting at the barriers)",
				       (unsigned long long)b->shares, cli_fmt_ns((double)b->share_ns, buf),
				       cli_fmt_ns((double)b->share_wait_ns, w));
		}
		sep = ", ";
	}
	if (s->summed)
		cli_out_printf(o, "%s%llu ops timed by the backend's ticks and summed by op type in"
			       " the steps not kept op by op", sep, (unsigned long long)s->summed);
	else if (*sep == ':')
		cli_out_str(o, ": runs only, each timed as a whole (no op timing on this backend"
			       " in this trace)");
	if (s->mismatched)
		cli_out_printf(o, "; %llu runs whose ticks did not match their nodes, "
			       "timed as a whole", (unsigned long long)s->mismatched);
}

/* Whether a backend (the CPU, or another) ran runs that no op timing covers. */
static bool runs_only(const struct cli_backends *b, bool cpu)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct cli_split_sum *s = &b->s[i];
		if (s->count && !s->ops[0] && !s->ops[1] && !s->ops[2] && !s->ops[3] && !s->ops[4] &&
		    !s->summed &&
		    (strcmp(s->name, "CPU") == 0) == cpu)
			return true;
	}
	return false;
}

/* Whether the trace has runs of nodes (a trace of ops alone has none). */
static bool any_runs(const struct cli_backends *b)
{
	for (size_t i = 0; i < b->n; i++)
		if (b->s[i].count)
			return true;
	return false;
}

void cli_backends_text(struct cli_out *o, const struct cli_backends *b, const char *indent)
{
	char buf[32];

	if (!any_runs(b))
		return;
	cli_out_printf(o, "%sruns of nodes (splits), by backend, and how their ops were timed:\n",
		       indent);
	for (size_t i = 0; i < b->n; i++) {
		const struct cli_split_sum *s = &b->s[i];
		if (!s->count)
			continue; /* ops of a backend that ran no run: not a GGML scheduler's */
		cli_out_printf(o, "%s  %-12s %llu runs, %s, %llu nodes", indent, s->name,
			       (unsigned long long)s->count, cli_fmt_ns((double)s->ns, buf),
			       (unsigned long long)s->nodes);
		how_timed(o, b, s);
		cli_out_char(o, '\n');
	}
	for (size_t i = 0; i < b->n; i++)
		if (b->s[i].count && b->s[i].ops[GGMLVIZ_OP_METHOD_GPU]) {
			cli_out_printf(o, "%s(a GPU run's time is the host's: its launches, and, where"
				       " GGML's scheduler waits for the GPU after each run while an eval"
				       " callback is set (a GGML without libggmlviz's edit), its kernels"
				       " and the gaps between them)\n", indent);
			break;
		}
	if (runs_only(b, true))
		cli_out_printf(o, "%s(CPU runs without op times: the CPU backend never called the"
			       " adapter's abort callback; pass the scheduler as the eval callback's"
			       " user_data, or call ggmlviz_ggml_trace_sched(), or in llama.cpp"
			       " ggmlviz_llama_context_params(), and every node is timed)\n", indent);
	if (runs_only(b, false))
		cli_out_printf(o, "%s(a run's time is not any op's: on CUDA, ops are timed by their"
			       " kernels where CUPTI is found, on Vulkan by its timestamps in llama.cpp's"
			       " tools built by scripts/build-llama-tools.sh --vulkan;"
			       " GGML_VIZ_OP_TIMING=sync times every"
			       " node on any backend by synchronizing after it, which changes the"
			       " run)\n", indent);
}

void cli_backends_json(struct cli_out *o, const struct cli_backends *b)
{
	bool first = true;

	cli_out_str(o, ",\"splits\":[");
	for (size_t i = 0; i < b->n; i++) {
		const struct cli_split_sum *s = &b->s[i];
		if (!s->count)
			continue;
		cli_out_str(o, first ? "{\"backend\":" : ",{\"backend\":");
		first = false;
		cli_json_cstr(o, s->name);
		cli_out_printf(o, ",\"runs\":%llu,\"ns\":%llu,\"nodes\":%llu,\"timed\":%llu,"
			       "\"mismatched\":%llu,\"ops_tick\":%llu,\"ops_gpu\":%llu,"
			       "\"ops_sync\":%llu,\"ops_unknown\":%llu,\"gpu_ns\":%llu,"
			       "\"ops_summed\":%llu,\"ops_measured\":%llu}",
			       (unsigned long long)s->count,
			       (unsigned long long)s->ns, (unsigned long long)s->nodes,
			       (unsigned long long)s->timed, (unsigned long long)s->mismatched,
			       (unsigned long long)s->ops[GGMLVIZ_OP_METHOD_TICK],
			       (unsigned long long)s->ops[GGMLVIZ_OP_METHOD_GPU],
			       (unsigned long long)s->ops[GGMLVIZ_OP_METHOD_SYNC],
			       (unsigned long long)s->ops[GGMLVIZ_OP_METHOD_UNKNOWN],
			       (unsigned long long)s->gpu_ns, (unsigned long long)s->summed,
			       (unsigned long long)s->ops[GGMLVIZ_OP_METHOD_MEASURED]);
	}
	cli_out_char(o, ']');
	cli_out_printf(o, ",\"worker_shares\":{\"count\":%llu,\"ns\":%llu,\"wait_ns\":%llu}",
		       (unsigned long long)b->shares, (unsigned long long)b->share_ns,
		       (unsigned long long)b->share_wait_ns);
}
