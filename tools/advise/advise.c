/*
 * Every rule of the findings, in order (advise.h): the rules by what they
 * read (rules-cpu.c, rules-gpu.c, rules-model.c, rules-rpc.c, rules-trace.c), each on
 * the frame of rules.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "advise/advise.h"

const char *const cli_advise_ids[] = {
	"threads-over-cpus",   "cpus-taken", "run-start-share", "memory-bound-below-peak", "model-split",
	"gpu-fallback",	       "gpu-idle",	  "device-memory-near-full",
	"attention-grows-with-context", "server-queue-wait", "server-prompt-cache",
	"rpc-network-bound",   "rpc-round-trips",
	"trace-incomplete",    "trace-dropped",	  "trace-sampled", "trace-estimated",
	"trace-gpu-windows",   NULL
};

void cli_advise(const struct cli_facts *f, struct cli_advice *a)
{
	memset(a, 0, sizeof *a);
	cli_rules_cpu(f, a);
	cli_rules_gpu(f, a);
	cli_rules_model(f, a);
	cli_rules_rpc(f, a);
	cli_rules_trace(f, a);
}
