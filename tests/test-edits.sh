#!/bin/sh
# contrib/llama.cpp/ggmlviz-edit.py's edits that a test can read without
# building llama.cpp: tests/edits.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" edits.py edits
