#!/bin/sh
# Real GGML and real libllama traced through the tests' stand-in libcupti:
# tests/cupti-real.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" cupti-real.py cupti-real
