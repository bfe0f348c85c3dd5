#!/bin/sh
# ggmlviz advise --request and --slow: why a server's request was slow, on
# servers tests/gen-server simulates, each made slow one way:
# tests/advise-slow.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" advise-slow.py advise-slow
