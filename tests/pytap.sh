#!/bin/sh
# Runs a Python TAP script of tests/ (SCRIPT BUILDDIR TMPDIR), in a
# temporary folder removed at the end; without python3, one failing test
# that says so.
#
#     pytap.sh SCRIPT TAG
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
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-$2.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
# unbuffered (-u): a script killed at its time limit (tests/run-all.sh) keeps what it printed
# shellcheck disable=SC2086 # LLAMA_TOOLS_DIR: a third argument, for the scripts that take one
"$PYTHON3" -u "$top_srcdir/tests/$1" "$top_builddir" "$T" ${LLAMA_TOOLS_DIR:+"$LLAMA_TOOLS_DIR"}
