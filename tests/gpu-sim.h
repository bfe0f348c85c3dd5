/*
 * CUPTI's place, for the tests of the GPU path without a GPU (gpu-sim.c):
 * the node engine's run hooks, the kernels' sink fed as CUPTI's glue feeds
 * it, the GPU's clock (the host's, from another epoch), and real ggml-cuda
 * kernel names (nvcc 13.0, the fetched release, sm_90).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GPU_SIM_H
#define GGMLVIZ_GPU_SIM_H

#include <stddef.h>
#include <stdint.h>

#define GS_RMS_NORM_FUSED "_Z12rms_norm_f32ILi256ELb1ELb0EEvPKfPfilllfS1_lll5uint3S3_S3_S3_S1_lllS3_S3_S3_S3_"
#define GS_QUANTIZE "_ZL13quantize_q8_1PKfPvlllllj5uint3"
#define GS_MMVQ "_Z13mul_mat_vec_qIL9ggml_type8ELi1ELb0ELb0ELb0EEvPKvS2_PKi31ggml_cuda_mm_fusion_args_devicePfj5uint3jjjS7_jjjS7_jjjj"
#define GS_ROPE "_Z9rope_neoxILb0ELb0E6__halfS0_EvPKT1_PT2_iiiiiiiiiiiPKifff14rope_corr_dimsfPKfPKlib"
#define GS_ADD "_Z11k_bin_bcastIXadL_ZL6op_addffEE6__halfS0_S0_JPKS0_EEvPKT0_PKT1_PT2_jjj5uint3SB_SB_SB_SB_jjjjjjjjjjjDpT3_"

/* A node of a GPU run, as the test describes it to the node engine. */
struct gs_node {
	uint32_t op;
	const char *op_name, *name;
	int32_t layer;
};

/*
 * Describes node i of a run of struct gs_node (ggmlviz_node_describe_fn):
 * a computing node of a GPU backend, which gives no tick.
 */
struct ggmlviz_node_desc;
void gs_describe(void *user, const void *const *nodes, size_t n, size_t i,
		 struct ggmlviz_node_desc *out);

/* A kernel the run launches, and how long it runs on the GPU (ns). */
struct gs_kernel {
	const char *name;
	uint64_t ns;
};

/* What a run's kernels were: their names and starts on the trace's clock. */
struct gs_ran {
	const char *name;
	uint64_t trace_ns;
};

/*
 * Before ggmlviz_start(): the sessions started from now on record kernels
 * through this stand-in (the run hooks, the sink reset, a first clock
 * point; META GPU says so). gs_remove() puts CUPTI back, once stopped.
 */
void gs_install(void);
void gs_remove(void);
/* Called by the stand-in's stop (on the stopping thread, the GPU's lock held), when set. */
extern void (*gs_on_stop)(void);

/*
 * One GPU run of backend's nodes (at most 64 kernels), inside the step the
 * caller has open: asked, launched (each kernel a launch), run by the GPU
 * back to back from its launch (or from the end of the stream's earlier
 * work), waited for (as GGML's scheduler synchronizes after each run while
 * an eval callback is set), ended; then its kernels reach the sink, as
 * CUPTI delivers a buffer. late: the kernels reach the sink before the
 * runs of their launches.
 * ran (m entries, may be NULL) says where each kernel lies on the trace's
 * clock. Returns the run's id.
 */
uint64_t gs_run(const struct gs_node *nodes, size_t n, const void *backend,
		const struct gs_kernel *kernels, size_t m, int late, struct gs_ran *ran);

/*
 * Programmatic dependent launch, as ggml-cuda uses it on Hopper: from the
 * second kernel of a gs_run() on, each starts this many ns before the one
 * before it ends and waits inside for it, so CUPTI's record of it is that
 * much longer (0, the default: back to back).
 */
extern uint64_t gs_pdl_ns;

/*
 * Sampled windows (GGML_VIZ_GPU_SAMPLE): what CUPTI's thread would do
 * when asked, done now (detach, or attach with a clock point); a program
 * calls it between steps. gs_run() then launches nothing recorded outside
 * the windows: its run is untagged, and CUPTI detached records nothing.
 */
void gs_serve_windows(void);

/* A kernel of launch `correlation`, now on the GPU's clock, 1 us long. */
void gs_kernel_now(const char *name, uint32_t correlation);

/* The launch `correlation` was made in run `run_id`. */
void gs_correlate(uint32_t correlation, uint64_t run_id);


#endif /* GGMLVIZ_GPU_SIM_H */
