#!/bin/sh
# GGML's RPC in the command: merge aligning servers' clocks with their
# clients', stats --by host and --by command, faults and bad input, on
# tests/gen-rpc's known traces: tests/tool-rpc.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" tool-rpc.py rpc
