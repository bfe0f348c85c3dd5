#!/bin/sh
# ggmlviz stats --by part (and diff, top, export, report) on real llama.cpp
# graphs of three models: tests/tool-parts.py (TAP). Built only where
# configure found libllama.
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-parts.py parts
