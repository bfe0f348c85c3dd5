/*
 * The emit loop of bench_tracer --emit-only, built into a shared object
 * that linked the archive (bench/insns.sh): what recording costs code in a
 * plugin, a Python extension or libllama, where the tracer's thread-locals
 * are reached through the global offset table. Built with -DEMIT_SO_MAIN,
 * the program that calls it.
 *
 * SPDX-License-Identifier: MIT
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

int emit_so_run(const char *path, int pairs);

#ifndef EMIT_SO_MAIN
/* The same loop as bench_tracer's emit_pairs (bench/insns.sh counts it). */
__attribute__((noinline)) static void emit_pairs(int pairs)
{
	static const char label[] = "attn_output-1"; /* 13 bytes */

	for (int i = 0; i < pairs; i++) {
		const void *t = (const void *)(uintptr_t)(0x1000 + 64 * (i & 255));
		ggmlviz_op_begin(t, 23, 4096, NULL, label);
		ggmlviz_op_end(t, 23, 4096, NULL, label);
	}
}

/* A session, pairs to warm up, pairs more, the stop; 0, or an -errno. */
int emit_so_run(const char *path, int pairs)
{
	struct ggmlviz_config cfg;
	int rc;

	ggmlviz_config_init(&cfg);
	cfg.output = path;
	cfg.buffer_events = 1u << 18;
	rc = ggmlviz_start(&cfg);
	if (rc < 0)
		return rc;
	emit_pairs(pairs);
	emit_pairs(pairs);
	return ggmlviz_stop();
}
#else
int main(int argc, char **argv)
{
	int rc;

	if (argc != 3)
		return 2;
	rc = emit_so_run(argv[1], atoi(argv[2]));
	unlink(argv[1]);
	if (rc < 0)
		fprintf(stderr, "emit-so: %s\n", ggmlviz_strerror(rc));
	return rc < 0;
}
#endif
