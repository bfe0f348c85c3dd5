#!/bin/sh
# ggmlviz serve: its Prometheus metrics against stats on gen-server's
# simulated llama-server, a trace followed, cut and merged, its HTTP, its
# memory on a big trace being written, and bad input: tests/tool-serve.py
# (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-serve.py serve
