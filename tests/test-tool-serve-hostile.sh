#!/bin/sh
# ggmlviz serve and top against hostile clients and traces: clients that
# hold connections or keep sending, a FIFO or /dev/zero at the trace's
# name, labels that are not UTF-8, names that would drive a terminal, a
# trace named twice: tests/tool-serve-hostile.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-serve-hostile.py serve-hostile
