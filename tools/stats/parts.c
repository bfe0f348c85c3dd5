/*
 * The parts of a llama.cpp or whisper.cpp model (--by part): an op is placed by the name
 * llama.cpp's graph builder gave its tensor (its cb() names: "Qcur-3",
 * "ffn_moe_down-0", "cache_k_l3 (view)", "result_output"; see
 * src/llama-graph.cpp and src/models/ of llama.cpp), and, where the name
 * leaves it open, by its op: a FLASH_ATTN_EXT is attention whatever GGML
 * named it ("node_21"), and a node named after the KV cache writes it only
 * when it copies into it (SET_ROWS, CPY), else it reads it for attention;
 * "kqv_out" is attention's result, or (a MUL_MAT: llama.cpp's builders of
 * 2024, and examples/transformer.c) its output projection.
 * whisper.cpp names no node: its tools' build names them for a trace after
 * the weight that places them (contrib/whisper.cpp/ggmlviz-whisper-names.h:
 * "enc.attn.query-3", "dec.cross_attn-0", "enc.conv1"), each block's whole
 * in its part: its norm, projections, attention, cache writes and residual.
 * A name no rule knows is "(other)": counted, never guessed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "stats/stats.h"

const char *const cli_part_names[CLI_PARTS + 1] = {
	"embedding", "attention-projections", "attention", "attention-output", "kv-cache-write",
	"norm", "ffn", "moe-router", "moe-experts", "output", "conv-front-end",
	"encoder-self-attention", "decoder-self-attention", "cross-attention", "(other)", NULL
};

const char *cli_part_name(uint64_t id)
{
	return id < CLI_PARTS ? cli_part_names[id] : "(other)";
}

/* How a rule compares a base name (the name less its GGML suffixes and its "-N"). */
enum { EXACT, PREFIX, SUFFIX, WITHIN };

struct rule {
	const char *text;
	int how;
	int part_class; /* a part, or CLI_PART_CLASS_KV */
};

/*
 * First match wins: the MoE router's names before its experts' (all are
 * ffn_moe_*), the norms (ffn_moe_weights_norm aside) before ffn_*, and the
 * residual adds with the block they close: "ffn_inp" and "sa_out" (the
 * attention's output added to its input) with attention-output, "l_out"
 * (the feed-forward's, llama.cpp's layer output) with ffn.
 */
static const struct rule rules[] = {
	/* whisper.cpp's, as its tools' build names them: the stack, the block, its role */
	{ "enc.conv", PREFIX, CLI_PART_CONV },
	{ "enc.positional_embedding", EXACT, CLI_PART_CONV },
	{ "embd_conv", EXACT, CLI_PART_CONV }, /* whisper.cpp's own name of its output */
	{ "enc.attn", PREFIX, CLI_PART_ENC_ATTN },
	{ "dec.attn", PREFIX, CLI_PART_DEC_ATTN },
	{ "dec.cross_attn", PREFIX, CLI_PART_CROSS_ATTN },
	{ "enc.mlp", PREFIX, CLI_PART_FFN },
	{ "dec.mlp", PREFIX, CLI_PART_FFN },
	{ "enc.ln_post", EXACT, CLI_PART_NORM },
	{ "dec.ln", EXACT, CLI_PART_NORM },
	{ "dec.token_embedding", EXACT, CLI_PART_CLASS_TOKEN_EMBD },
	{ "dec.positional_embedding", EXACT, CLI_PART_EMBEDDING },
	/* llama.cpp's */
	{ "ffn_moe_logits", PREFIX, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_probs", PREFIX, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_argsort", EXACT, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_topk", EXACT, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_group_topk", EXACT, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_weights", PREFIX, CLI_PART_MOE_ROUTER },
	{ "ffn_moe_", PREFIX, CLI_PART_MOE_EXPERTS },
	{ "shexp", WITHIN, CLI_PART_MOE_EXPERTS },
	{ "shared_expert", WITHIN, CLI_PART_MOE_EXPERTS },
	{ "norm", EXACT, CLI_PART_NORM },
	{ "norm_w", EXACT, CLI_PART_NORM },
	{ "_norm", SUFFIX, CLI_PART_NORM },
	{ "cache_k_l", PREFIX, CLI_PART_CLASS_KV },
	{ "cache_v_l", PREFIX, CLI_PART_CLASS_KV },
	{ "k_cache_view", PREFIX, CLI_PART_CLASS_KV },
	{ "v_cache_view", PREFIX, CLI_PART_CLASS_KV },
	{ "Qcur", PREFIX, CLI_PART_ATTN_PROJ },
	{ "Kcur", PREFIX, CLI_PART_ATTN_PROJ },
	{ "Vcur", PREFIX, CLI_PART_ATTN_PROJ },
	{ "wqkv", PREFIX, CLI_PART_ATTN_PROJ },
	{ "q_pe", PREFIX, CLI_PART_ATTN_PROJ },
	{ "q_nope", PREFIX, CLI_PART_ATTN_PROJ },
	{ "k_pe", PREFIX, CLI_PART_ATTN_PROJ },
	{ "kv_cmpr", PREFIX, CLI_PART_ATTN_PROJ },
	{ "kq", EXACT, CLI_PART_ATTENTION },
	{ "kq_", PREFIX, CLI_PART_ATTENTION },
	{ "kqv", EXACT, CLI_PART_ATTENTION },
	{ "kqv_out", EXACT, CLI_PART_CLASS_KQV_OUT },
	{ "kqv_merged", PREFIX, CLI_PART_ATTENTION },
	{ "kqv_mla", EXACT, CLI_PART_ATTENTION },
	{ "fattn_mla", EXACT, CLI_PART_ATTENTION },
	{ "v_cont", EXACT, CLI_PART_ATTENTION },
	{ "attn_out", EXACT, CLI_PART_ATTN_OUT },
	{ "attn_output", EXACT, CLI_PART_ATTN_OUT },
	{ "kqv_wo", EXACT, CLI_PART_ATTN_OUT },
	{ "attn_gated", EXACT, CLI_PART_ATTN_OUT },
	{ "attn_residual", EXACT, CLI_PART_ATTN_OUT },
	{ "ffn_inp", EXACT, CLI_PART_ATTN_OUT },
	{ "sa_out", EXACT, CLI_PART_ATTN_OUT },
	{ "ffn_", PREFIX, CLI_PART_FFN },
	{ "l_out", EXACT, CLI_PART_FFN },
	{ "inp_embd", EXACT, CLI_PART_EMBEDDING },
	{ "embd", EXACT, CLI_PART_EMBEDDING },
	{ "inp_scaled", EXACT, CLI_PART_EMBEDDING },
	{ "result_output", EXACT, CLI_PART_OUTPUT },
	{ "result_embd_pooled", EXACT, CLI_PART_OUTPUT },
};

static bool matches(const struct rule *r, const char *s, size_t n)
{
	size_t k = strlen(r->text);

	switch (r->how) {
	case EXACT: return n == k && !memcmp(s, r->text, k);
	case PREFIX: return n >= k && !memcmp(s, r->text, k);
	case SUFFIX: return n >= k && !memcmp(s + n - k, r->text, k);
	default:
		for (size_t i = 0; i + k <= n; i++)
			if (!memcmp(s + i, r->text, k))
				return true;
		return false;
	}
}

/*
 * The base of one node's name: up to GGML's first suffix ("cache_k_l3
 * (view)", "x (copy of y)", "x (permuted)"), less llama.cpp's "-N" of the
 * layer; its length.
 */
static size_t base_of(const char *s, size_t n)
{
	const char *paren = memchr(s, '(', n);
	size_t len = paren ? (size_t)(paren - s) : n, digits = len;

	while (len && s[len - 1] == ' ')
		len--;
	digits = len;
	while (digits && s[digits - 1] >= '0' && s[digits - 1] <= '9')
		digits--;
	if (digits < len && digits > 1 && s[digits - 1] == '-')
		len = digits - 1;
	return len;
}

/* The class of one node's name (no " + " in it). */
static int class_of_one(const char *s, size_t n)
{
	size_t len = base_of(s, n);

	for (size_t i = 0; len && i < sizeof rules / sizeof rules[0]; i++)
		if (matches(&rules[i], s, len))
			return rules[i].part_class;
	return CLI_PART_CLASS_NONE;
}

int cli_part_class(const char *label, size_t len)
{
	/* a fused pair ("norm-0 + attn_norm-0") goes where its first node's name places it */
	while (label && len) {
		const char *plus = len >= 3 ? memmem(label, len, " + ", 3) : NULL;
		size_t one = plus ? (size_t)(plus - label) : len;
		int c = class_of_one(label, one);

		if (c != CLI_PART_CLASS_NONE)
			return c;
		if (!plus)
			break;
		len -= one + 3;
		label = plus + 3;
	}
	return CLI_PART_CLASS_NONE;
}

/* Whether op (a fused pair: its first) is one of GGML's copies into a tensor. */
static bool copies(const char *op)
{
	size_t n = strcspn(op, "+");

	return (n == 8 && !memcmp(op, "SET_ROWS", 8)) || (n == 3 && !memcmp(op, "CPY", 3)) ||
	       (n == 3 && !memcmp(op, "SET", 3));
}

/* Whether part is one of whisper.cpp's attentions, whose every op it holds. */
static bool whisper_attention(int part)
{
	return part == CLI_PART_ENC_ATTN || part == CLI_PART_DEC_ATTN || part == CLI_PART_CROSS_ATTN;
}

int cli_part_resolve(int part_class, const char *op)
{
	if (op && !strncmp(op, "FLASH_ATTN_EXT", 14) && (!op[14] || op[14] == '+') &&
	    !whisper_attention(part_class))
		return CLI_PART_ATTENTION;
	if (part_class == CLI_PART_CLASS_TOKEN_EMBD) /* whisper's output shares the embedding's weight */
		return op && !strcmp(op, "MUL_MAT") ? CLI_PART_OUTPUT : CLI_PART_EMBEDDING;
	if (part_class == CLI_PART_CLASS_KV && (!op || !op[0] || !strncmp(op, "op#", 3)))
		return CLI_PART_OTHER; /* an op no name says: whether it writes the cache is not known */
	if (part_class == CLI_PART_CLASS_KV)
		return copies(op) ? CLI_PART_KV_WRITE : CLI_PART_ATTENTION;
	if (part_class == CLI_PART_CLASS_KQV_OUT) /* llama.cpp of 2024 named the projection so */
		return op && !strcmp(op, "MUL_MAT") ? CLI_PART_ATTN_OUT : CLI_PART_ATTENTION;
	if (part_class < 0 || part_class >= CLI_PART_OTHER)
		return CLI_PART_OTHER;
	return part_class;
}

int cli_part_of(const char *label, size_t len, const char *op)
{
	return cli_part_resolve(cli_part_class(label, len), op);
}

/* The slot of tensor ptr among the latest ops' (a direct-mapped cache of their parts). */
static size_t seen_slot(uint64_t ptr)
{
	return (size_t)((ptr >> 4) ^ (ptr >> 12)) % 256;
}

int cli_part_place(struct cli_part_seen *seen, const struct ggmlviz_timing *t, int part_class,
		   const char *op)
{
	int part = cli_part_resolve(part_class, op);
	size_t src = seen_slot(t->src[1]), at = seen_slot(t->ptr);

	if (part == CLI_PART_OTHER && strcmp(op, "MUL_MAT") == 0 && t->src[1] &&
	    seen->s[src].ptr == t->src[1] && seen->s[src].part == CLI_PART_ATTENTION)
		part = CLI_PART_ATTN_OUT;
	if (t->ptr)
		seen->s[at].ptr = t->ptr, seen->s[at].part = part;
	return part;
}

uint64_t cli_part_key(struct cli_agg *a, const struct ggmlviz_timing *t)
{
	int part_class = cli_part_class(t->label, t->label_len), part;
	const char *op = a->reader ? ggmlviz_reader_op_name(a->reader, t->op_type) : NULL;
	uint64_t raw = (uint64_t)(uint32_t)(part_class + 2) << 32 | t->op_type;

	a->any_placed |= part_class != CLI_PART_CLASS_NONE;
	a->any_label |= t->label_len > 0;
	if (!op)
		return raw; /* placed when the groups are named */
	part = cli_part_place(&a->part_seen, t, part_class, op);
	return part == CLI_PART_OTHER ? raw : (uint64_t)part;
}
