#!/bin/sh
# The ggmlviz command on a real llama.cpp trace: tests/tool-llama.py (TAP).
# Built only where configure found libllama.
#
# SPDX-License-Identifier: MIT
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
PYTHON3=${PYTHON3:-python3}
if ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - python3 is needed to check the outputs (apt-get install python3)"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-llama.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
"$PYTHON3" "$top_srcdir/tests/tool-llama.py" "$top_builddir" "$T"
