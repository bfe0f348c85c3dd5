#!/bin/sh
# export --format speedscope, read as speedscope reads it, and opened in
# speedscope in headless chromium: tests/tool-speedscope.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-speedscope.py speedscope
