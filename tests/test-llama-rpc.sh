#!/bin/sh
# GGML's RPC backend traced on both sides: tests/llama-rpc.py (TAP), on the
# tools that scripts/build-llama-tools.sh --rpc built (LLAMA_TOOLS: their
# folder, which tests/run-all.sh gives; else third_party/llama-tools/build/bin).
# Skipped where ggml-rpc-server was not built.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
tools=${LLAMA_TOOLS:-$top_srcdir/third_party/llama-tools/build/bin}
if [ ! -x "$tools/ggml-rpc-server" ] || [ ! -x "$tools/llama-bench" ]; then
	echo "1..0 # SKIP llama.cpp's tools are not built here with GGML's RPC (scripts/build-llama-tools.sh --rpc)"
	exit 0
fi
LLAMA_TOOLS_DIR=$tools exec sh "$top_srcdir/tests/pytap.sh" llama-rpc.py llama-rpc
