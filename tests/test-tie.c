/*
 * Tying a GPU run's kernels to its nodes (lib/reader/tie.c), GGML-free, on
 * kernel streams made of real kernel names: those of ggml-cuda's kernels
 * as nvcc 13.0 mangles them (ggml-cuda of the fetched release, compiled for
 * sm_90), and cuBLAS's as libcublas 13.0 names them.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "check-compat.h"
#include "reader/tie.h"

/* ggml-cuda */
#define RMS_NORM_FUSED "_Z12rms_norm_f32ILi256ELb1ELb0EEvPKfPfilllfS1_lll5uint3S3_S3_S3_S1_lllS3_S3_S3_S3_"
#define QUANTIZE "_ZL13quantize_q8_1PKfPvlllllj5uint3"
#define MMVQ "_Z13mul_mat_vec_qIL9ggml_type8ELi1ELb0ELb0ELb0EEvPKvS2_PKi31ggml_cuda_mm_fusion_args_devicePfj5uint3jjjS7_jjjS7_jjjj"
#define QUANTIZE_MMQ "_Z17quantize_mmq_q8_1IL18mmq_q8_1_ds_layout0ELb0EEvPKfPKiPvllllliii"
#define MMQ "_Z9mul_mat_qIL9ggml_type2ELi104ELb0EEvPKcPKiS4_S4_PfS5_PKf5uint3iiiiiS8_S8_iiiS8_S8_iiiS8_"
#define MMQ_FIXUP "_Z24mul_mat_q_stream_k_fixupIL9ggml_type2ELi104ELb0EEvPKiS2_PfS3_5uint3iiiS4_iS4_iS4_"
#define ROPE "_Z9rope_neoxILb0ELb0E6__halfS0_EvPKT1_PT2_iiiiiiiiiiiPKifff14rope_corr_dimsfPKfPKlib"
#define SET_ROWS "_Z10k_set_rowsI6__halfiS0_EvPKT_PKT0_PT1_llllllllllllll5uint3S9_S9_S9_S9_"
#define GET_ROWS "_Z16k_get_rows_floatI13__nv_bfloat166__halfEvPKT_PKiPT0_ll5uint3mmmmmmmmm"
#define ADD "_Z11k_bin_bcastIXadL_ZL6op_addffEE6__halfS0_S0_JPKS0_EEvPKT0_PKT1_PT2_jjj5uint3SB_SB_SB_SB_jjjjjjjjjjjDpT3_"
#define MUL "_Z11k_bin_bcastIXadL_ZL6op_mulffEE6__halfS0_S0_JPKS0_EEvPKT0_PKT1_PT2_jjj5uint3SB_SB_SB_SB_jjjjjjjjjjjDpT3_"
#define SWIGLU "_Z21unary_gated_op_kernelIXadL_ZL7op_silufEEfEvPKT0_S2_PS0_llll"
#define SOFT_MAX "_Z12soft_max_f32ILb1ELi0ELi0E6__halfEvPKfPKT2_S2_Pf15soft_max_params"
#define FA_MASK "_Z25flash_attn_mask_to_KV_maxILi1EEvPK7__half2Piill"
#define FA_VEC "_Z18flash_attn_ext_vecILi128ELi1EL9ggml_type1ELS0_1ELb0EEvPKcS2_S2_S2_S2_PKiPfP6float2ffffjfi5uint3iiiiiiiiiiiliiliiiiil"
#define FA_COMBINE "_Z26flash_attn_combine_resultsILi128EEvPKfPK6float2Pfi"
/* cuBLAS */
#define CUBLAS_GEMM "sm90_xmma_gemm_f16f16_f16f32_f32_nt_n_tilesize64x128x64_cgasize1x1x1_warpgroupsize1x1x1_aux_f16_aligna4_alignc4_dgelu_execute_split_k_kernel__5x_cublas"
#define CUBLAS_GEMV "_Z20gemv2T_kernel_64addrIffffLi128ELi16ELi4ELi4ELb1E18cublasGemvParamsExIl30cublasGemvTensorStridedBatchedIKfES3_S1_IfEfEEvT8_"

#define NONE GGMLVIZ__TIE_NONE
#define MAX 32

struct stream {
	struct ggmlviz__tie_node nodes[MAX];
	struct ggmlviz__tie_kernel kernels[MAX];
	uint32_t owner[MAX];
	size_t n, m, tied;
};

/* ops: the run's nodes' ops; names: its kernels, in launch order. */
static void tie(struct stream *s, const char *const *ops, const char *const *names)
{
	memset(s, 0, sizeof *s);
	for (; ops[s->n]; s->n++)
		s->nodes[s->n] = (struct ggmlviz__tie_node){ ops[s->n], strlen(ops[s->n]) };
	for (; names[s->m]; s->m++)
		s->kernels[s->m] = (struct ggmlviz__tie_kernel){ names[s->m], strlen(names[s->m]) };
	s->tied = ggmlviz__tie(s->nodes, s->n, s->kernels, s->m, s->owner);
}

static void expect(const struct stream *s, const uint32_t *want)
{
	for (size_t k = 0; k < s->m; k++)
		ck_assert_msg(s->owner[k] == want[k], "kernel %zu (%.30s): node %u, expected %u", k,
			      s->kernels[k].name, s->owner[k], want[k]);
}

/* Each MUL_MAT quantizes its activations, then multiplies: two kernels a node, in turn. */
START_TEST(quantize_and_matmul_pairs)
{
	static const char *const ops[] = { "MUL_MAT", "MUL_MAT", "MUL_MAT", NULL };
	static const char *const names[] = { QUANTIZE, MMVQ, QUANTIZE, MMVQ, QUANTIZE, MMVQ, NULL };
	static const uint32_t want[] = { 0, 0, 1, 1, 2, 2 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
	ck_assert_uint_eq(s.tied, 6);
}
END_TEST

/* A prompt's matmul: quantization, mul_mat_q, its stream-k fix-up; then cuBLAS's. */
START_TEST(mmq_and_cublas)
{
	static const char *const ops[] = { "MUL_MAT", "MUL_MAT", "MUL_MAT", NULL };
	static const char *const names[] = { QUANTIZE_MMQ, MMQ, MMQ_FIXUP, CUBLAS_GEMM, CUBLAS_GEMV,
					     NULL };
	static const uint32_t want[] = { 0, 0, 0, 1, 2 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
}
END_TEST

/* RMS_NORM, MUL and ADD fused in one rms_norm kernel: MUL and ADD get none. */
START_TEST(fused_norm)
{
	static const char *const ops[] = { "RMS_NORM", "MUL", "ADD", "MUL_MAT", NULL };
	static const char *const names[] = { RMS_NORM_FUSED, QUANTIZE, MMVQ, NULL };
	static const uint32_t want[] = { 0, 3, 3 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
}
END_TEST

/* The layer's tail: a node with no kernel (a CPY ggml-cuda skipped) in between. */
START_TEST(node_without_kernel)
{
	static const char *const ops[] = { "ROPE", "CPY", "SET_ROWS", "FLASH_ATTN_EXT", "ADD",
					   "GET_ROWS", "SWIGLU", "MUL", "SOFT_MAX", NULL };
	static const char *const names[] = { ROPE, SET_ROWS, FA_MASK, FA_VEC, FA_COMBINE, ADD,
					     GET_ROWS, SWIGLU, MUL, SOFT_MAX, NULL };
	static const uint32_t want[] = { 0, 2, 3, 3, 3, 4, 5, 6, 7, 8 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
	ck_assert_uint_eq(s.tied, 10);
}
END_TEST

/* A kernel no op of the run launches is not tied: named and counted, never guessed. */
START_TEST(unknown_kernel)
{
	static const char *const ops[] = { "RMS_NORM", "MUL_MAT", NULL };
	static const char *const names[] = { RMS_NORM_FUSED, "_Z15my_custom_kernelPf", MMVQ,
					     SOFT_MAX, NULL };
	static const uint32_t want[] = { 0, NONE, 1, NONE };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
	ck_assert_uint_eq(s.tied, 2);
}
END_TEST

/* A stream cut short: the last nodes get no kernel, the first keep theirs. */
START_TEST(stream_cut_short)
{
	static const char *const ops[] = { "RMS_NORM", "MUL_MAT", "ADD", "SOFT_MAX", NULL };
	static const char *const names[] = { RMS_NORM_FUSED, QUANTIZE, NULL };
	static const uint32_t want[] = { 0, 1 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
}
END_TEST

/* Concurrent streams: the V projection's kernels before the K projection's (ADD) done. */
START_TEST(out_of_order)
{
	static const char *const ops[] = { "MUL_MAT", "ADD", "MUL_MAT", NULL };
	static const char *const names[] = { QUANTIZE, MMVQ, QUANTIZE, MMVQ, ADD, NULL };
	static const uint32_t want[] = { 0, 0, 2, 2, 1 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
}
END_TEST

/* A copy of one type is a memcpy; mmvq clears its weight's padding first; a split's input copy is no node's. */
START_TEST(copies_and_sets)
{
	static const char *const ops[] = { "CPY", "MUL_MAT", "TOP_K", NULL };
	static const char *const names[] = { "[CUDA memcpy HtoD]", "[CUDA memcpy DtoD]",
					     "[CUDA memset]", QUANTIZE, MMVQ, NULL };
	static const uint32_t want[] = { NONE, 0, 1, 1, 1 };
	struct stream s;

	tie(&s, ops, names);
	expect(&s, want);
	ck_assert(ggmlviz__tie_can_launch("[CUDA memcpy DtoH]", 18, "MUL_MAT_ID", 10));
	ck_assert(!ggmlviz__tie_can_launch("[CUDA memcpy DtoH]", 18, "CPY", 3));
	ck_assert(!ggmlviz__tie_can_launch("[CUDA memset]", 13, "CPY", 3));
}
END_TEST

START_TEST(what_launches_what)
{
	ck_assert(ggmlviz__tie_can_launch(ADD, strlen(ADD), "ADD", 3));
	ck_assert(!ggmlviz__tie_can_launch(ADD, strlen(ADD), "MUL", 3));
	ck_assert(ggmlviz__tie_can_launch(MUL, strlen(MUL), "MUL", 3));
	ck_assert(ggmlviz__tie_can_launch(CUBLAS_GEMM, strlen(CUBLAS_GEMM), "MUL_MAT", 7));
	ck_assert(!ggmlviz__tie_can_launch("anything", 8, "MUL_MAT", 7));
	ck_assert(!ggmlviz__tie_can_launch(NULL, 0, "MUL_MAT", 7));
}
END_TEST

START_TEST(empty_runs)
{
	uint32_t owner[1] = { 7 };
	struct ggmlviz__tie_kernel k = { MMVQ, strlen(MMVQ) };

	ck_assert_uint_eq(ggmlviz__tie(NULL, 0, NULL, 0, owner), 0);
	ck_assert_uint_eq(ggmlviz__tie(NULL, 0, &k, 1, owner), 0);
	ck_assert_uint_eq(owner[0], NONE);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("tying kernels to nodes");
	TCase *c = tcase_create("tie");

	tcase_add_test(c, quantize_and_matmul_pairs);
	tcase_add_test(c, mmq_and_cublas);
	tcase_add_test(c, fused_norm);
	tcase_add_test(c, node_without_kernel);
	tcase_add_test(c, unknown_kernel);
	tcase_add_test(c, stream_cut_short);
	tcase_add_test(c, out_of_order);
	tcase_add_test(c, copies_and_sets);
	tcase_add_test(c, what_launches_what);
	tcase_add_test(c, empty_runs);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
