#!/bin/sh
# Thread churn, long (the soak of tests/test-churn.c, run by hand): N
# short-lived threads (default 200000, 4 at a time), each emitting marks, a
# run of nodes described once and repeated, and a CPU graph's shares, beside
# a thread that starts and stops a session every few milliseconds; then one
# trace of N threads read back. It fails as the test does: a session whose
# file or counts do not add up, heap in use that grew over the second half,
# a ring left mapped, an op without its descriptions, reader memory that
# grew by more than the threads' names.
#
#   bench/churn.sh [THREADS [RUNS]]      (from the build folder: make tests/test-churn first)
#
# Prints each run's figures (sessions, events, heap in use at the half and
# at the end, the reader's heap) and its wall time, then the median time a
# thread took.
#
# SPDX-License-Identifier: MIT
threads=${1:-200000}
runs=${2:-3}
test=${top_builddir:-.}/tests/test-churn
[ -x "$test" ] || { echo "churn.sh: no $test (make tests/test-churn)" >&2; exit 2; }
times=""
i=0
while [ "$i" -lt "$runs" ]; do
	i=$((i + 1))
	t0=$(date +%s.%N)
	GGMLVIZ_CHURN_THREADS=$threads CK_FORK=no CK_VERBOSITY=normal "$test" >churn.out 2>&1
	rc=$?
	t1=$(date +%s.%N)
	grep '^churn:' churn.out
	if [ $rc -ne 0 ]; then
		cat churn.out
		echo "run $i: FAILED (status $rc)"
		exit 1
	fi
	s=$(echo "$t1 - $t0" | bc)
	echo "run $i: $threads threads twice (beside sessions, then one trace), ${s} s"
	times="$times $s"
done
rm -f churn.out
median=$(echo "$times" | tr ' ' '\n' | grep . | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')
echo "median ${median} s for $((2 * threads)) threads: $(echo "scale=1; $median * 1000000 / (2 * $threads)" | bc) us a thread (its life, its records, the reading back)"
