#!/bin/sh
# The documents agree with the code: the variables it reads, the command's
# options and its stats --by keys, each against the README, doc/, tracer.h
# and the man pages: tests/doc-sync.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" doc-sync.py doc-sync
