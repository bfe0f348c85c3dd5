#!/bin/sh
# NVTX ranges of real programs (examples/threads, a GGML scheduler,
# libllama) received by the tests' stand-in NVTX tool: tests/nvtx-real.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" nvtx-real.py nvtx-real
