#!/bin/sh
# export --format otlp where GPU ops come after their step (tests/gen-gpu)
# and on two servers merged (tests/gen-server): tests/tool-otlp.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-otlp.py otlp
