/*
 * What stats --by part says besides its table (parts.c places the ops):
 * the parts by layer, what "(other)" holds, and, once, that a trace
 * whose names are none of llama.cpp's has every op in "(other)".
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "stats/stats.h"
#include "output/output.h"

/* The group of part p among a's, or NULL. */
static const struct cli_group *part_group(const struct cli_agg *a, int p)
{
	for (size_t i = 0; i < a->n; i++)
		if (a->sorted[i]->id == (uint64_t)p)
			return a->sorted[i];
	return NULL;
}

/* The layers any part has ops in (index: cli_layer_slot()), its count. */
static uint32_t layers_of(const struct cli_agg *a)
{
	uint32_t n = 0;

	for (int p = 0; p < CLI_PARTS; p++) {
		const struct cli_group *g = part_group(a, p);
		if (g && g->n_layers > n)
			n = g->n_layers;
	}
	return n;
}

/* A part's time in layer index i. */
static uint64_t in_layer(const struct cli_group *g, uint32_t i)
{
	return g && i < g->n_layers ? g->layer_ns[i] : 0;
}

/* The i-th layer index in the order of the rows: none, then each stack's layers in turn. */
static uint32_t row_slot(uint32_t i, uint32_t n_slots)
{
	uint32_t per = (n_slots + 1) / 3; /* slots 1 + 3 * layer + stack below n_slots */

	return i == 0 ? 0 : 1 + 3 * ((i - 1) % per) + (i - 1) / per;
}

/*
 * The parts by layer: a row per layer ("(none)": outside every block), a
 * column per part that has ops, each cell its time (per token with
 * tokens: those of --phase).
 */
static void layer_table(struct cli_out *o, const struct cli_agg *a, uint64_t tokens)
{
	const struct cli_group *cols[CLI_PARTS];
	uint32_t n_layers = layers_of(a);
	size_t n = 0;
	struct cli_table t;
	char b[32];

	for (int p = 0; p < CLI_PARTS; p++)
		if ((cols[n] = part_group(a, p)) && cols[n]->n_layers)
			n++;
	if (!n || n_layers < 2)
		return;
	cli_out_printf(o, "by layer%s:\n", tokens ? ", per token" : "");
	cli_table_init(&t, n + 1);
	cli_table_add(&t, "LAYER");
	for (size_t c = 0; c < n; c++)
		cli_table_add(&t, "%s", cli_part_names[cols[c]->id]);
	for (uint32_t r = 0; r < 1 + 3 * ((n_layers + 1) / 3); r++) {
		uint32_t i = row_slot(r, n_layers);
		bool any = false;
		for (size_t c = 0; c < n; c++)
			any |= in_layer(cols[c], i) != 0;
		if (!any)
			continue;
		cli_table_add(&t, "%s", cli_layer_name(cli_layer_of_slot(i), b, sizeof b));
		for (size_t c = 0; c < n; c++) {
			uint64_t ns = in_layer(cols[c], i);
			if (!ns)
				cli_table_add(&t, "-");
			else
				cli_table_add(&t, "%s", cli_fmt_ns(tokens ? (double)ns / (double)tokens
									  : (double)ns, b));
		}
	}
	cli_table_print(&t, o, "  ");
	cli_table_free(&t);
}

void cli_parts_text(struct cli_out *o, const struct cli_agg *a, uint64_t tokens)
{
	char b[32];

	if (!a->ops)
		return;
	if (!a->any_label) {
		cli_out_str(o, "(no op of this trace has a tensor name (the original ggml-viz wrote"
			       " none): every op is (other); --by part places ops by the names"
			       " llama.cpp's graph builder gives)\n");
		return;
	}
	if (!a->any_placed) {
		cli_out_str(o, "(no op of this trace has a name that llama.cpp's graph builder gives"
			       " (Qcur-0, ffn_up-0, result_output, ...): every op is (other); --by"
			       " part places the ops of llama.cpp's models)\n");
		return;
	}
	layer_table(o, a, tokens);
	if (a->other_ops) {
		cli_out_printf(o, "((other): %" PRIu64 " op%s whose name places them in no part, never"
			       " guessed: ", a->other_ops, cli_s(a->other_ops));
		for (int k = 0; k < CLI_PART_OTHERS && a->others[k].count; k++) {
			const struct cli_part_other *x = &a->others[k];

			cli_out_str(o, k ? ", " : "");
			cli_text_str(o, x->op, strlen(x->op));
			cli_out_printf(o, " %" PRIu64 " (%s%s", x->count, cli_fmt_ns((double)x->ns, b),
				       x->example[0] ? ", such as " : "");
			cli_text_str(o, x->example, strlen(x->example));
			cli_out_char(o, ')');
		}
		cli_out_str(o, ")\n");
	}
	if (part_group(a, CLI_PART_CONV) || part_group(a, CLI_PART_ENC_ATTN) ||
	    part_group(a, CLI_PART_DEC_ATTN) || part_group(a, CLI_PART_CROSS_ATTN)) {
		cli_out_str(o, "(whisper.cpp's parts by the names its tools' build gives its nodes,"
			       " after the weights that place them: each attention and ffn whole, its"
			       " norm, projections, attention, cache writes and residual; the"
			       " cross-attention's keys and values of the audio are computed in the"
			       " encode step)\n");
		return;
	}
	cli_out_str(o, "(parts by the tensor names of llama.cpp's graph builder and the op: a"
		       " FLASH_ATTN_EXT is attention, a copy into the KV cache kv-cache-write, an"
		       " unnamed MUL_MAT of attention's output attention-output; the residual adds"
		       " go with the block they close: ffn_inp with attention-output, l_out with"
		       " ffn)\n");
}

void cli_parts_json(struct cli_out *o, const struct cli_agg *a)
{
	uint32_t n_layers = layers_of(a);

	cli_out_printf(o, ",\"parts_named\":%s,\"tensor_names\":%s,\"part_names\":[",
		       a->any_placed ? "true" : "false", a->any_label ? "true" : "false");
	for (int p = 0; p < CLI_PARTS; p++)
		cli_out_printf(o, "%s\"%s\"", p ? "," : "", cli_part_names[p]);
	cli_out_str(o, "],\"by_layer\":[");
	for (uint32_t r = 0, rows = 0; r < 1 + 3 * ((n_layers + 1) / 3); r++) {
		uint32_t i = row_slot(r, n_layers);
		uint64_t key = cli_layer_of_slot(i), any = 0;

		for (int p = 0; p < CLI_PARTS; p++)
			any |= in_layer(part_group(a, p), i);
		if (i && !any && key >> 32)
			continue; /* every layer of one stack, as before stacks; another's where it has ops */
		cli_out_str(o, rows++ ? ",{\"layer\":" : "{\"layer\":");
		if (i)
			cli_out_u64(o, (key & 0xffffffffu) - 1);
		else
			cli_out_str(o, "null");
		if (key >> 32)
			cli_out_printf(o, ",\"stack\":\"%s\"", key >> 32 == 1 ? "encoder" : "decoder");
		for (int p = 0; p < CLI_PARTS; p++) {
			uint64_t ns = in_layer(part_group(a, p), i);
			if (ns)
				cli_out_printf(o, ",\"%s\":%" PRIu64, cli_part_names[p], ns);
		}
		cli_out_char(o, '}');
	}
	cli_out_printf(o, "],\"other\":{\"ops\":%" PRIu64 ",\"by_op\":[", a->other_ops);
	for (int k = 0; k < CLI_PART_OTHERS && a->others[k].count; k++) {
		cli_out_str(o, k ? ",{\"op\":" : "{\"op\":");
		cli_json_cstr(o, a->others[k].op);
		cli_out_printf(o, ",\"count\":%" PRIu64 ",\"total_ns\":%" PRIu64 ",\"example\":",
			       a->others[k].count, a->others[k].ns);
		cli_json_cstr(o, a->others[k].example);
		cli_out_char(o, '}');
	}
	cli_out_str(o, "]}");
}
