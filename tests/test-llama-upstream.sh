#!/bin/sh
# The llama.cpp integration on a llama.cpp changed as upstream changes it:
# tests/llama-upstream.py (TAP). Builds llama.cpp (a few minutes), so
# tests/run-all.sh runs it with llama.cpp's tools, not make check.
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" llama-upstream.py llama-upstream
