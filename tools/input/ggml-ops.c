/*
 * The names of GGML's ops as the original ggml-viz writer numbered them
 * (GGML's enum ggml_op of mid-2025, before GGML_OP_ADD_ID was added): its
 * traces carry no OP_NAME records, so a reader must assume a numbering.
 * Used only for a trace that names none of its ops, and said so wherever
 * it is used (see names.c). Numbers past the table stay "op#N".
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "input/input.h"

static const char *const ops_2025[] = {
	"NONE", "DUP", "ADD", "ADD1", "ACC", "SUB", "MUL", "DIV", "SQR", "SQRT", "LOG", "SIN",
	"COS", "SUM", "SUM_ROWS", "MEAN", "ARGMAX", "COUNT_EQUAL", "REPEAT", "REPEAT_BACK",
	"CONCAT", "SILU_BACK", "NORM", "RMS_NORM", "RMS_NORM_BACK", "GROUP_NORM", "L2_NORM",
	"MUL_MAT", "MUL_MAT_ID", "OUT_PROD", "SCALE", "SET", "CPY", "CONT", "RESHAPE", "VIEW",
	"PERMUTE", "TRANSPOSE", "GET_ROWS", "GET_ROWS_BACK", "DIAG", "DIAG_MASK_INF",
	"DIAG_MASK_ZERO", "SOFT_MAX", "SOFT_MAX_BACK", "ROPE", "ROPE_BACK", "CLAMP",
	"CONV_TRANSPOSE_1D", "IM2COL", "IM2COL_BACK", "CONV_2D_DW", "CONV_TRANSPOSE_2D",
	"POOL_1D", "POOL_2D", "POOL_2D_BACK", "UPSCALE", "PAD", "PAD_REFLECT_1D", "ARANGE",
	"TIMESTEP_EMBEDDING", "ARGSORT", "LEAKY_RELU", "FLASH_ATTN_EXT", "FLASH_ATTN_BACK",
	"SSM_CONV", "SSM_SCAN", "WIN_PART", "WIN_UNPART", "GET_REL_POS", "ADD_REL_POS",
	"RWKV_WKV6", "GATED_LINEAR_ATTN", "RWKV_WKV7", "UNARY", "MAP_CUSTOM1", "MAP_CUSTOM2",
	"MAP_CUSTOM3", "CUSTOM", "CROSS_ENTROPY_LOSS", "CROSS_ENTROPY_LOSS_BACK",
	"OPT_STEP_ADAMW",
};

const char *cli_assumed_op_name(uint32_t op_type)
{
	return op_type < sizeof ops_2025 / sizeof ops_2025[0] ? ops_2025[op_type] : NULL;
}
