#!/bin/sh
# The ggmlviz command on a real llama.cpp trace: tests/tool-llama.py (TAP).
# Built only where configure found libllama.
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-llama.py llama
