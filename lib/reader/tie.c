/*
 * Tying a GPU run's kernels to its nodes (see tie.h).
 *
 * A table says, for each kernel name GGML's CUDA backend (and cuBLAS,
 * which it calls for large matrix products) launches, which ops launch it
 * and in what role: before the op's main kernel (activation quantization,
 * a conversion), the main kernel, or after it (a fix-up, a reduction). The
 * kernels then go to the nodes in order: each to the first node from the
 * current one whose op launches it in a role still open there.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "reader/tie.h"

enum role { PRE, MAIN, POST };

struct row {
	const char *name;  /* the kernel's name holds this */
	const char *qual;  /* and this, when not NULL (a template argument: "op_add") */
	enum role role;
	const char *ops;   /* the ops that launch it, each followed by a space */
};

/* First match wins: specific rows before general ones. */
static const struct row table[] = {
	/*
	 * memory copies and sets (CUPTI's MEMCPY and MEMSET records, named as
	 * Nsight Systems names them): a contiguous copy of one type is a
	 * cudaMemcpyAsync; mmq and mmvq clear a weight's padding, MUL_MAT_ID
	 * copies its ids to the host and back. A split's input copies are no
	 * node's: they stay the run's, untied.
	 */
	{ "[CUDA memcpy DtoD]", NULL, MAIN, "CPY DUP CONT CONCAT " },
	{ "[CUDA memcpy DtoD]", NULL, PRE, "ARGSORT SOLVE_TRI " },
	{ "[CUDA memcpy DtoD]", NULL, POST, "TOP_K " },
	{ "[CUDA memcpy", NULL, PRE, "MUL_MAT_ID " },
	{ "[CUDA memset]", NULL, PRE, "MUL_MAT MUL_MAT_ID COUNT_EQUAL " },
	/* matrix products: ggml-cuda's own kernels, then cuBLAS's */
	{ "quantize_q8_1", NULL, PRE, "MUL_MAT MUL_MAT_ID " },
	{ "quantize_mmq", NULL, PRE, "MUL_MAT MUL_MAT_ID " },
	{ "k_compute_batched_ptrs", NULL, PRE, "MUL_MAT MUL_MAT_ID " },
	{ "mm_ids_helper", NULL, PRE, "MUL_MAT_ID " },
	{ "convert_unary", NULL, PRE, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "convert_unary", NULL, MAIN, "CPY DUP CONT " },
	{ "dequantize_block", NULL, PRE, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "dequantize_block", NULL, MAIN, "GET_ROWS CPY DUP CONT " },
	{ "stream_k_fixup", "mul_mat", POST, "MUL_MAT MUL_MAT_ID " },
	{ "mul_mat", NULL, MAIN, "MUL_MAT MUL_MAT_ID " },
	{ "splitKreduce", NULL, POST, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "gemm", NULL, MAIN, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "gemv", NULL, MAIN, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "nvjet", NULL, MAIN, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "cutlass", NULL, MAIN, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "xmma", NULL, MAIN, "MUL_MAT MUL_MAT_ID OUT_PROD " },
	{ "moe_weighted_reduction", NULL, POST, "MUL_MAT_ID " },
	/* attention */
	{ "flash_attn_mask_to", NULL, PRE, "FLASH_ATTN_EXT " },
	{ "flash_attn_combine_results", NULL, POST, "FLASH_ATTN_EXT " },
	{ "flash_attn_stream_k_fixup", NULL, POST, "FLASH_ATTN_EXT " },
	{ "flash_attn", NULL, MAIN, "FLASH_ATTN_EXT " },
	{ "soft_max", NULL, MAIN, "SOFT_MAX " },
	{ "topk_moe", NULL, MAIN, "SOFT_MAX ARGSORT TOP_K " },
	{ "k_argsort", NULL, MAIN, "ARGSORT " },
	/* norms and positions */
	{ "rms_norm", NULL, MAIN, "RMS_NORM " },
	{ "l2_norm", NULL, MAIN, "L2_NORM " },
	{ "group_norm", NULL, MAIN, "GROUP_NORM " },
	{ "norm_f32", NULL, MAIN, "NORM " },
	{ "rope", NULL, MAIN, "ROPE " },
	/* rows and copies */
	{ "k_get_rows", NULL, MAIN, "GET_ROWS " },
	{ "k_set_rows", NULL, MAIN, "SET_ROWS " },
	{ "cpy", NULL, MAIN, "CPY DUP CONT " },
	/* element-wise: the op is a template argument of the kernel */
	{ "k_bin_bcast", "op_add", MAIN, "ADD ADD1 " },
	{ "k_bin_bcast", "op_sub", MAIN, "SUB " },
	{ "k_bin_bcast", "op_mul", MAIN, "MUL " },
	{ "k_bin_bcast", "op_div", MAIN, "DIV " },
	{ "k_bin_bcast", NULL, MAIN, "ADD SUB MUL DIV " },
	{ "add_id_kernel", NULL, MAIN, "ADD_ID " },
	{ "unary_gated_op_kernel", "op_silu", MAIN, "SWIGLU " },
	{ "unary_gated_op_kernel", "op_gelu_erf", MAIN, "GEGLU_ERF " },
	{ "unary_gated_op_kernel", "op_gelu_quick", MAIN, "GEGLU_QUICK " },
	{ "unary_gated_op_kernel", "op_gelu", MAIN, "GEGLU " },
	{ "unary_gated_op_kernel", "op_relu", MAIN, "REGLU " },
	{ "swiglu_oai", NULL, MAIN, "SWIGLU_OAI " },
	{ "swiglu", NULL, MAIN, "SWIGLU " },
	{ "unary_op_kernel", "op_silu", MAIN, "SILU " },
	{ "unary_op_kernel", "op_gelu_erf", MAIN, "GELU_ERF " },
	{ "unary_op_kernel", "op_gelu_quick", MAIN, "GELU_QUICK " },
	{ "unary_op_kernel", "op_gelu", MAIN, "GELU " },
	{ "unary_op_kernel", "op_relu", MAIN, "RELU " },
	{ "unary_op_kernel", "op_sigmoid", MAIN, "SIGMOID " },
	{ "unary_op_kernel", "op_tanh", MAIN, "TANH " },
	{ "unary_op_kernel", NULL, MAIN,
	  "ABS SGN NEG STEP TANH ELU RELU SIGMOID GELU GELU_QUICK SILU HARDSWISH HARDSIGMOID EXP "
	  "GELU_ERF XIELU FLOOR CEIL ROUND TRUNC SOFTPLUS EXPM1 LOG " },
	{ "scale_f32", NULL, MAIN, "SCALE " },
	{ "op_clamp", NULL, MAIN, "CLAMP " },
	{ "diag_mask_inf", NULL, MAIN, "DIAG_MASK_INF " },
	{ "reduce_rows", NULL, MAIN, "SUM_ROWS MEAN " },
	{ "k_repeat_back", NULL, MAIN, "REPEAT_BACK " },
	{ "concat", NULL, MAIN, "CONCAT " },
	{ "pad_f32", NULL, MAIN, "PAD " },
	{ "arange", NULL, MAIN, "ARANGE " },
	{ "im2col", NULL, MAIN, "IM2COL " },
	{ "acc_f32", NULL, MAIN, "ACC " },
	{ "upscale", NULL, MAIN, "UPSCALE " },
	{ "argmax", NULL, MAIN, "ARGMAX " },
	{ "cumsum", NULL, MAIN, "CUMSUM " },
	{ "ssm_conv", NULL, MAIN, "SSM_CONV " },
	{ "rwkv_wkv", NULL, MAIN, "RWKV_WKV6 RWKV_WKV7 " },
	{ "gated_linear_attn", NULL, MAIN, "GATED_LINEAR_ATTN " },
	{ "conv2d", NULL, MAIN, "CONV_2D CONV_2D_DW CONV_TRANSPOSE_2D " },
	{ "pool2d", NULL, MAIN, "POOL_2D " },
};

/* Nodes a kernel may skip forward over (views launch nothing, fused nodes nothing). */
#define WINDOW 64
/* Nodes a kernel may go back over (concurrent streams launch out of graph order). */
#define BACK 16

static int contains(const char *s, size_t len, const char *what)
{
	size_t n = strlen(what);

	for (size_t i = 0; i + n <= len; i++)
		if (s[i] == what[0] && memcmp(s + i, what, n) == 0)
			return 1;
	return 0;
}

/* Whether op (op_len bytes) is one of ops ("A B C "). */
static int listed(const char *ops, const char *op, size_t op_len)
{
	for (const char *p = ops; *p;) {
		const char *end = strchr(p, ' ');

		if ((size_t)(end - p) == op_len && memcmp(p, op, op_len) == 0)
			return 1;
		p = end + 1;
	}
	return 0;
}

/* Whether rows a and b are about the same kernels (the same name and qualifier). */
static int same_kernels(const struct row *a, const struct row *b)
{
	return strcmp(a->name, b->name) == 0 &&
	       (a->qual == b->qual || (a->qual && b->qual && strcmp(a->qual, b->qual) == 0));
}

/* Whether row r describes kernel k. */
static int describes(const struct row *r, const struct ggmlviz__tie_kernel *k)
{
	return contains(k->name, k->len, r->name) && (!r->qual || contains(k->name, k->len, r->qual));
}

/*
 * The role of a kernel for a node's op, or -1 when that op does not launch
 * it. The first row that describes the kernel classifies it: only the rows
 * of that same name and qualifier say which ops launch it, in what role
 * (k_bin_bcast<op_add> is an ADD's, never a MUL's).
 */
static int role_of(const struct ggmlviz__tie_kernel *k, const struct ggmlviz__tie_node *node)
{
	const struct row *first = NULL;

	if (!node->op || !k->name)
		return -1;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
		const struct row *r = &table[i];

		if (first && !same_kernels(r, first))
			continue;
		if (!first && !describes(r, k))
			continue;
		first = r;
		if (listed(r->ops, node->op, node->op_len))
			return (int)r->role;
	}
	return -1;
}

int ggmlviz__tie_can_launch(const char *kernel, size_t len, const char *op, size_t op_len)
{
	struct ggmlviz__tie_kernel k = { kernel, len };
	struct ggmlviz__tie_node node = { op, op_len };

	return role_of(&k, &node) >= 0;
}

/* Whether node j may take a kernel of that role now (main_seen: it has had its main). */
static int open_for(int role, uint8_t main_seen)
{
	return role == POST ? main_seen : !main_seen;
}

/* The node kernel k goes to, searching [from, to) forward or backward; n when none. */
static size_t find(const struct ggmlviz__tie_node *nodes, const struct ggmlviz__tie_kernel *k,
		   const uint8_t *main_seen, size_t from, size_t to, int forward, int *role)
{
	for (size_t step = 0; step < to - from; step++) {
		size_t j = forward ? from + step : to - 1 - step;

		*role = role_of(k, &nodes[j]);
		if (*role >= 0 && open_for(*role, main_seen[j]) && (forward || *role != POST))
			return j;
	}
	return (size_t)-1;
}

size_t ggmlviz__tie(const struct ggmlviz__tie_node *nodes, size_t n,
		    const struct ggmlviz__tie_kernel *kernels, size_t m, uint32_t *owner)
{
	uint8_t main_seen[4096];
	size_t cur = 0, tied = 0;

	if (n > sizeof main_seen)
		n = sizeof main_seen; /* a run of more nodes than any model's: its tail stays untied */
	memset(main_seen, 0, n);
	for (size_t k = 0; k < m; k++) {
		int role = -1;
		size_t j = n ? find(nodes, &kernels[k], main_seen, cur,
				    cur + WINDOW < n ? cur + WINDOW : n, 1, &role) : (size_t)-1;

		if (j == (size_t)-1 && cur > 0)
			j = find(nodes, &kernels[k], main_seen, cur > BACK ? cur - BACK : 0, cur, 0,
				 &role);
		owner[k] = j == (size_t)-1 ? GGMLVIZ__TIE_NONE : (uint32_t)j;
		if (j == (size_t)-1)
			continue;
		tied++;
		main_seen[j] |= role == MAIN;
		if (j > cur)
			cur = j;
	}
	return tied;
}
