#!/bin/sh
# whisper.cpp's own tools traced: tests/whisper-tools.py (TAP), on the tools
# that scripts/build-whisper-tools.sh built (WHISPER_TOOLS: their folder,
# which tests/run-all.sh gives; else third_party/whisper-tools/build/bin).
# Skipped where they were not built.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
tools=${WHISPER_TOOLS:-$top_srcdir/third_party/whisper-tools/build/bin}
if [ ! -x "$tools/whisper-cli" ] || [ ! -x "$tools/whisper-bench" ] || [ ! -x "$tools/whisper-server" ]; then
	echo "1..0 # SKIP whisper.cpp's tools are not built here (scripts/build-whisper-tools.sh)"
	exit 0
fi
LLAMA_TOOLS_DIR=$tools exec sh "$top_srcdir/tests/pytap.sh" whisper-tools.py whisper-tools
