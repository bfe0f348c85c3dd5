#!/bin/sh
# llama.cpp's tools built for GGML's Vulkan backend, traced on Mesa's
# software device: tests/llama-tools-vulkan.py (TAP), on the tools that
# scripts/build-llama-tools.sh --vulkan built (LLAMA_TOOLS_VULKAN: their
# folder, which tests/run-all.sh gives; else
# third_party/llama-tools-vulkan/build/bin). Skipped where they were not
# built.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
tools=${LLAMA_TOOLS_VULKAN:-$top_srcdir/third_party/llama-tools-vulkan/build/bin}
if [ ! -x "$tools/llama-server" ] || [ ! -x "$tools/llama-bench" ]; then
	echo "1..0 # SKIP llama.cpp's tools are not built for Vulkan here (scripts/build-llama-tools.sh --vulkan)"
	exit 0
fi
LLAMA_TOOLS_DIR=$tools exec sh "$top_srcdir/tests/pytap.sh" llama-tools-vulkan.py llama-tools-vulkan
