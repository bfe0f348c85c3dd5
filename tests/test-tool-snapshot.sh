#!/bin/sh
# ggmlviz snapshot and the flight recorder on simulated servers: asks
# answered, snapshots read as traces, one a window, slow requests, KEEP,
# and every refusal with why: tests/tool-snapshot.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-snapshot.py snapshot
