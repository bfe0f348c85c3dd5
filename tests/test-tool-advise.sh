#!/bin/sh
# ggmlviz advise on real llama.cpp runs made to show each finding, and on
# the tests' GPU stand-in: tests/tool-advise.py (TAP). Built only where
# configure found libllama.
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-advise.py advise
