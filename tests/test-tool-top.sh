#!/bin/sh
# ggmlviz top: its tables against stats, a trace followed as it is written
# and replaced, its memory on a big trace being written, --replay, and its
# screen in tmux: tests/tool-top.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-top.py top
