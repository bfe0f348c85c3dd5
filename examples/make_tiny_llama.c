/*
 * make_tiny_llama: writes a tiny llama model (GGUF) that libllama loads,
 * for the quick start's demo and for trying the tracer without a download.
 *
 *   make_tiny_llama OUT.gguf [--layers N] [--embd N] [--heads N]
 *                   [--kv-heads N] [--ff N] [--vocab N] [--seed N]
 *                   [--type f32|f16|q8_0|q4_0|q4_K] [--arch llama|gemma]
 *                   [--experts N [--experts-used K]]
 *
 * --arch gemma writes llama.cpp's gemma (GELU, the output tied to the
 * token embedding); --experts N a llama whose feed-forward is a mixture of
 * N experts, K of them (default 2) used by each token (Mixtral's layout).
 *
 * --type quantizes the matrices with GGML's own functions (the default f32),
 * so that the MUL_MATs traced run the kernels of people's models; a matrix
 * whose rows are not whole blocks of the type stays f16.
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiny-llama.h"

static int usage(void)
{
	fputs("usage: make_tiny_llama OUT.gguf [--layers N] [--embd N] [--heads N] [--kv-heads N]\n"
	      "                       [--ff N] [--vocab N] [--seed N] [--type f32|f16|q8_0|q4_0|q4_K]\n"
	      "                       [--arch llama|gemma] [--experts N [--experts-used K]]\n",
	      stderr);
	return 2;
}

/* A whole number from 1 to 1000000 for option opt; 0 after a message if not. */
static int number(const char *opt, const char *s)
{
	char *end;
	long v = s ? strtol(s, &end, 10) : 0;

	if (!s || *end || v < 1 || v > 1000000) {
		fprintf(stderr, "make_tiny_llama: %s wants a number from 1 to 1000000, not '%s'\n",
			opt, s ? s : "");
		return 0;
	}
	return (int)v;
}

int main(int argc, char **argv)
{
	struct tiny_llama_params p;
	const char *out = NULL;

	tiny_llama_params_init(&p);
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int *field = !strcmp(a, "--layers") ? &p.n_layer : !strcmp(a, "--embd") ? &p.n_embd
			     : !strcmp(a, "--heads") ? &p.n_head : !strcmp(a, "--kv-heads") ? &p.n_head_kv
			     : !strcmp(a, "--ff") ? &p.n_ff : !strcmp(a, "--vocab") ? &p.n_vocab
			     : !strcmp(a, "--experts") ? &p.n_expert
			     : !strcmp(a, "--experts-used") ? &p.n_expert_used : NULL;

		if (!strcmp(a, "--arch")) {
			if (!v || tiny_llama_arch(v) < 0) {
				fprintf(stderr, "make_tiny_llama: --arch wants llama or gemma, not '%s'\n",
					v ? v : "");
				return 2;
			}
			p.arch = v;
			i++;
		} else if (!strcmp(a, "--type")) {
			if (!v || tiny_llama_type(v, &p.type) < 0) {
				fprintf(stderr, "make_tiny_llama: --type wants f32, f16, q8_0, q4_0 or "
					"q4_K, not '%s'\n", v ? v : "");
				return 2;
			}
			i++;
		} else if (field || !strcmp(a, "--seed")) {
			int n = number(a, v);
			if (!n)
				return 2;
			if (field)
				*field = n;
			else
				p.seed = (uint32_t)n;
			i++;
		} else if (a[0] == '-' || out) {
			return usage();
		} else {
			out = a;
		}
	}
	if (!out)
		return usage();
	if (p.n_embd % p.n_head || p.n_head % p.n_head_kv) {
		fprintf(stderr, "make_tiny_llama: --embd must be a multiple of --heads, and --heads "
			"of --kv-heads\n");
		return 2;
	}
	if (p.n_expert && !p.n_expert_used)
		p.n_expert_used = p.n_expert < 2 ? p.n_expert : 2;
	if (p.n_expert_used > p.n_expert || (p.n_expert && strcmp(p.arch, "llama") != 0) ||
	    p.n_expert == 1 || p.n_expert > 256) {
		fprintf(stderr, "make_tiny_llama: --experts wants 2 to 256 experts of a llama, and"
			" --experts-used no more of them\n");
		return 2;
	}
	if (tiny_llama_write(out, &p) < 0)
		return 1;
	printf("make_tiny_llama: %s: %s, %d layers, %d wide, %d heads (%d for keys and values), "
	       "%d tokens, %s", out, p.arch, p.n_layer, p.n_embd, p.n_head, p.n_head_kv, p.n_vocab,
	       ggml_type_name(p.type));
	if (p.n_expert)
		printf(", %d experts (%d used)", p.n_expert, p.n_expert_used);
	putchar('\n');
	return 0;
}
