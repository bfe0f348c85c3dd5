#!/bin/sh
# llama.cpp's own tools traced: tests/llama-tools.py (TAP), on the tools that
# scripts/build-llama-tools.sh built (LLAMA_TOOLS: their folder, which
# tests/run-all.sh gives; else third_party/llama-tools/build/bin). Skipped
# where they were not built.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
tools=${LLAMA_TOOLS:-$top_srcdir/third_party/llama-tools/build/bin}
if [ ! -x "$tools/llama-server" ] || [ ! -x "$tools/llama-bench" ]; then
	echo "1..0 # SKIP llama.cpp's tools are not built here (scripts/build-llama-tools.sh)"
	exit 0
fi
LLAMA_TOOLS_DIR=$tools exec sh "$top_srcdir/tests/pytap.sh" llama-tools.py llama-tools
