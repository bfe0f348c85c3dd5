/*
 * bench_llama's figures on a GPU (llama-gpu.c), from traces of one round:
 * how much of the GPU's busy time the ops' kernel times account for, and
 * each op's time as its kernels give it against GGML_VIZ_OP_TIMING=sync.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_BENCH_LLAMA_GPU_H
#define GGMLVIZ_BENCH_LLAMA_GPU_H

/*
 * From a trace in the default mode: kernels recorded, tied and untied;
 * the ops timed by kernels and their summed time against the GPU's busy
 * time (the union of its kernels' spans); or why there are no kernels.
 */
void gpu_figures(const char *trace_path);

/*
 * Per op (by name, the top `top` by default-mode time): count and mean
 * time in the default mode's trace (kernel times, or none where kernels
 * are not recorded) and in the sync mode's, and their ratio.
 */
void gpu_sync_table(const char *default_path, const char *sync_path, int top);

#endif /* GGMLVIZ_BENCH_LLAMA_GPU_H */
