#!/bin/sh
# The tests that check an ordering, a count or an accounting while threads,
# forks, signals and failing writes meet, run where their races show: each
# test function alone (CK_RUN_TEST, tests/check-compat.h), many times, in
# each of these modes, beside busy loops that take the CPUs:
#
#   busy     as make check runs it;
#   one-cpu  pinned to one CPU (taskset), the writer and the producers
#            preempted by each other and by a busy loop;
#   tsan     the ThreadSanitizer build's program (TSAN_BUILD), fewer runs.
#
# It prints, for each test, its failures out of its runs in each mode, and
# keeps the output of every failed run. A rare fault fails a test now and
# then: run it a few hundred times before calling a change clean.
#
#     bench/stress.sh [BUILD]        (default: build, the plain build)
#
#   RUNS=200        runs of each test in busy and one-cpu
#   TSAN_RUNS=20    runs of each test in tsan
#   BUSY=n          busy loops beside the runs (default: the CPUs, plus one)
#   MODES="busy one-cpu tsan"
#   TSAN_BUILD=DIR  the TSan build (default: build-tsan beside BUILD; a
#                   mode whose build is missing is left out, and said)
#   PROGRAMS="test-threads test-io-errors ..."  (default: below)
#   ONLY=NAME       that test function alone (a regular expression)
#   LIMIT=300       seconds a run may take (Check's own timeout: 300)
#   OUT=DIR         the failed runs' output (default: BUILD/stress)
#
# The default programs are the threaded tests of Makefile.am's
# THREADED_TESTS that need no GGML: the writer and producers (threads,
# races, churn, peak, shares), sessions, forks and signals (lifecycle,
# crash, tracer, clock), the file and its failures (output, io-errors),
# NVTX and CUPTI's stand-ins, a trace in segments. tests/run-all.sh runs a short stage of it
# (RUNS=3, one-cpu, the most racy ones).
#
# Exits 0 when no run failed.
#
# SPDX-License-Identifier: MIT
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd) || exit 2
tsan_build=${TSAN_BUILD:-$(dirname "$build")/build-tsan}
runs=${RUNS:-200}
tsan_runs=${TSAN_RUNS:-20}
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
busy=${BUSY:-$((cpus + 1))}
modes=${MODES:-busy one-cpu tsan}
limit=${LIMIT:-300}
out=${OUT:-$build/stress}
programs=${PROGRAMS:-test-threads test-races test-io-errors test-lifecycle test-crash test-churn \
test-output test-tracer test-clock test-peak test-shares test-nvtx test-cupti test-rotate}

mkdir -p "$out" || exit 2
failed_any=0

# ---- the busy loops, ended with the script ----
loops=""
# shellcheck disable=SC2317 # called by the trap
stop_loops() {
	for p in $loops; do kill "$p" 2>/dev/null; done
}
trap stop_loops EXIT
trap 'exit 130' INT TERM
i=0
while [ "$i" -lt "$busy" ]; do
	sh -c 'while :; do :; done' &
	loops="$loops $!"
	i=$((i + 1))
done

# The test functions of a program, as its source adds them to its case.
tests_of() { # program
	sed -n 's/.*tcase_add_[a-z_]*test[a-z_]*( *[A-Za-z0-9_]*, *\([A-Za-z0-9_]*\).*/\1/p' \
		"$top/tests/$1.c"
}

# One run of one test in a mode; 0 when it passed. The output of a failed run is kept.
run_once() { # mode program-path test n
	dir=$(dirname "$(dirname "$2")")
	case "$1" in
	one-cpu) pin="taskset -c 0" ;;
	*) pin="" ;;
	esac
	log="$out/$1.$(basename "$2").$3.$4.log"
	# shellcheck disable=SC2086 # pin is words
	(cd "$dir" && CK_RUN_TEST="$3" CK_TAP_LOG_FILE_NAME=- CK_VERBOSITY=silent \
		CK_DEFAULT_TIMEOUT="$limit" top_srcdir="$top" top_builddir=. \
		TSAN_OPTIONS="die_after_fork=0 halt_on_error=1 second_deadlock_stack=1" \
		timeout "$((limit + 30))" $pin "$2") >"$log" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q '^not ok' "$log"; then
		rm -f "$log"
		return 0
	fi
	return 1
}

stress() { # mode build-dir n
	mode=$1 dir=$2 n=$3
	for prog in $programs; do
		path="$dir/tests/$prog"
		if [ ! -x "$path" ]; then
			printf '%-8s %-16s not built in %s: left out\n' "$mode" "$prog" "$dir"
			continue
		fi
		names=$(tests_of "$prog")
		[ -n "${ONLY:-}" ] && names=$(echo "$names" | grep -E "^(${ONLY})\$")
		for name in $names; do
			fails=0 k=0 t0=$(date +%s)
			while [ "$k" -lt "$n" ]; do
				k=$((k + 1))
				run_once "$mode" "$path" "$name" "$k" || fails=$((fails + 1))
			done
			[ "$fails" -gt 0 ] && failed_any=1
			printf '%-8s %-16s %-48s %3d failed of %d (%ds)\n' "$mode" "$prog" "$name" \
				"$fails" "$n" "$(($(date +%s) - t0))"
		done
	done
}

echo "stress: $busy busy loops on $cpus CPUs; $(uname -r); load $(cut -d' ' -f1-3 /proc/loadavg)"
for mode in $modes; do
	case "$mode" in
	busy | one-cpu) stress "$mode" "$build" "$runs" ;;
	tsan)
		if [ -x "$tsan_build/tests/test-threads" ]; then
			stress tsan "$tsan_build" "$tsan_runs"
		else
			echo "tsan: no TSan build in $tsan_build (configure it with --enable-sanitizers=thread): left out"
		fi
		;;
	*) echo "stress: no mode $mode (busy, one-cpu, tsan)" >&2; exit 2 ;;
	esac
done
[ "$failed_any" -eq 0 ] || echo "the failed runs' output: $out"
exit "$failed_any"
