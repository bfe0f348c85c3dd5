#!/bin/sh
# llama-server fleets: two traced servers scraped by a real Prometheus
# through ggmlviz serve, their merged trace as OTLP, a second SIGINT while
# stopping, and a short soak (bench/soak-server.py): tests/llama-fleet.py
# (TAP), on the tools that scripts/build-llama-tools.sh built (LLAMA_TOOLS:
# their folder; else third_party/llama-tools/build/bin). Skipped where they
# were not built; Prometheus' checks skipped where it is not installed.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
tools=${LLAMA_TOOLS:-$top_srcdir/third_party/llama-tools/build/bin}
if [ ! -x "$tools/llama-server" ]; then
	echo "1..0 # SKIP llama.cpp's tools are not built here (scripts/build-llama-tools.sh)"
	exit 0
fi
LLAMA_TOOLS_DIR=$tools exec sh "$top_srcdir/tests/pytap.sh" llama-fleet.py llama-fleet
