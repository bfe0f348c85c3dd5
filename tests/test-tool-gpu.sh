#!/bin/sh
# The ggmlviz command on GPU op times, without a GPU: tests/tool-gpu.py (TAP)
# on tests/gen-gpu's trace (the tracer with the tests' stand-in for CUPTI).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-gpu.py gpu
