#!/bin/sh
# What scripts/build-whisper-tools.sh does that a test can check without
# building whisper.cpp: its edits, its check, its fetch and its errors:
# tests/whisper-edits.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" whisper-edits.py whisper-edits
