// Forced into every C++ compilation of llama.cpp's tools, common library and
// examples by ggmlviz.cmake (-include), never into libllama's or GGML's own:
// each llama_decode(), llama_encode(), llama_init_from_model(),
// llama_model_load_from_file(), llama_free() and llama_model_free() call of
// that code, today's and any upstream adds, becomes a call of the wrapper in
// ggmlviz-llama-tools.cpp, which records the decode as a step of
// libggmlviz's trace (and a free, the frees of the buffers it recorded) when
// GGML_VIZ_OUTPUT asks for one, and is the plain call otherwise. Nothing at a call site is
// edited. Taking such a function's address is not caught here: the build's
// check (scripts/build-llama-tools.sh) fails on any object of the tools
// that still refers to llama_decode or llama_encode.
//
// SPDX-License-Identifier: MIT
#pragma once

#if defined(__cplusplus) && !defined(GGMLVIZ_LLAMA_TOOLS_IMPL) && defined(__has_include)
#if __has_include("llama.h")
#include "llama.h"

extern "C" {
// site: the calling function's __func__, which labels the step; an array that lives as long as
// the program, since a thread's last label is kept by its address
int32_t ggmlviz_tools_decode(const char * site, struct llama_context * ctx, struct llama_batch batch);
int32_t ggmlviz_tools_encode(const char * site, struct llama_context * ctx, struct llama_batch batch);
struct llama_context * ggmlviz_tools_init_from_model(struct llama_model * model,
                                                     struct llama_context_params params);
struct llama_model * ggmlviz_tools_model_load_from_file(const char * path,
                                                        struct llama_model_params params);
void ggmlviz_tools_free(struct llama_context * ctx);
void ggmlviz_tools_model_free(struct llama_model * model);
}

// variadic, so that a batch built in braces at the call site passes whole
#define llama_decode(...) ggmlviz_tools_decode(__func__, __VA_ARGS__)
#define llama_encode(...) ggmlviz_tools_encode(__func__, __VA_ARGS__)
#define llama_init_from_model(...) ggmlviz_tools_init_from_model(__VA_ARGS__)
#define llama_model_load_from_file(...) ggmlviz_tools_model_load_from_file(__VA_ARGS__)
#define llama_free(...) ggmlviz_tools_free(__VA_ARGS__)
#define llama_model_free(...) ggmlviz_tools_model_free(__VA_ARGS__)

#endif
#endif
