#!/bin/sh
# Op times from the CPU backend's ticks, read as compute: the runs' start
# and the barrier waits, estimated by stats, report and export, checked
# against the same estimate computed from the ops table on real llama.cpp
# traces at 2 threads and 1: tests/tool-ticks.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-ticks.py ticks
