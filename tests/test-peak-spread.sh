#!/bin/sh
# bench/peak-spread.sh runs as its header says (TAP): two measures of the
# machine's peak each way, every figure a number above zero, and the how of
# the measure saying its passes. The spread itself is the benchmark's to
# print, not a test's to judge (a timed assertion would be this machine's
# noise).
#
# SPDX-License-Identifier: MIT
set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$(dirname "$0")/tap.sh"
out=$(BUILD=$top_builddir sh "$top_srcdir/bench/peak-spread.sh" 2 2 2>&1)
ok $? "bench/peak-spread.sh 2 2 exits 0"
figures=$(echo "$out" | grep -cE '(GB/s read|GFLOP/s) +least +[0-9.]+ +median +[0-9.]+ +most +[0-9.]+$')
zero=$(echo "$out" | grep -cE 'least +0\.0 ')
[ "$figures" -eq 4 ] && [ "$zero" -eq 0 ]
ok $? "its four lines of figures, none zero ($figures lines, $zero with a zero)"
echo "$out" | grep -q '^how: 2 threads: reading .* MiB, best of 8; f32 .*, best of 24; '
ok $? "the measure's how: best of 8 passes over the memory, of 24 of arithmetic"
echo "$out" | sed 's/^/# /'
echo "1..$n"
