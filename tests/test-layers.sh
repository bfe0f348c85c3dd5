#!/bin/sh
# lib/ and tools/ are layers that only look down: tests/test-layers.py on
# this build's archives (TAP). Needs python3, which configure looks for.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
if [ -z "${PYTHON3:-}" ] || ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - python3 is needed (configure found none: apt-get install python3)"
	exit 0
fi
exec "$PYTHON3" "$top_srcdir/tests/test-layers.py" "$top_builddir" "$top_srcdir"
