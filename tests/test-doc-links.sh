#!/bin/sh
# Every link of README.md and doc/*.md reaches its file and heading, every
# path they name is in the source tree, and every man page that they or
# the man pages' SEE ALSO name exists: tests/doc-links.py (TAP).
#
# SPDX-License-Identifier: MIT
exec sh "${top_srcdir:-.}/tests/pytap.sh" doc-links.py doc-links
