#!/bin/sh
# The ggmlviz command on GPU op times, without a GPU: tests/tool-gpu.py (TAP)
# on tests/gen-gpu's trace (the tracer with the tests' stand-in for CUPTI).
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
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-gpu.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
"$PYTHON3" "$top_srcdir/tests/tool-gpu.py" "$top_builddir" "$T"
