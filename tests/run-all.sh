#!/bin/sh
# Runs every test of libggmlviz, the way CI does:
#
#   1. a plain build (warnings are errors): make check, every test;
#   2. an installed copy: a threaded program built with nothing but
#      `cc app.c $(pkg-config --cflags --libs ggmlviz)`, and run; the same
#      code as a shared object (-fPIC -shared), called by a program; and
#      doc/install.md's build without root, run by an unprivileged user
#      (tests/test-user-build.sh: a user made with useradd, as root);
#   3. AddressSanitizer + UndefinedBehaviorSanitizer: make check, every test;
#   4. ThreadSanitizer: the tests that run threads (make check-threaded);
#      then bench/stress.sh, short: the racy tests three times each, on
#      one CPU beside two busy loops;
#   5. libFuzzer (clang) with ASan+UBSan: the reader and every command on
#      mutated traces, FUZZ_SECONDS (60) per target;
#   6. llama.cpp's own tools (llama-bench, llama-server, and GGML's RPC
#      server: --rpc) built traced from the fetched release's source, and
#      tests/test-llama-tools.sh and tests/test-llama-rpc.sh; the same
#      built for GGML's Vulkan backend, on Mesa's software device
#      (tests/test-llama-tools-vulkan.sh); the integration on a changed copy
#      of it (tests/test-llama-upstream.sh); whisper.cpp's tools (whisper-cli,
#      whisper-bench, whisper-server) built traced for the CPU from the
#      fetched release's source, and tests/test-whisper-tools.sh;
#   7. make distcheck (the release tarball builds and passes on its own).
#
# The GGML tests run when GGML is there (./quickstart.sh fetches it).
# Ends with one line "N passed, N failed", counted from the tests' own TAP
# results; exits 0 only if nothing failed.
#
#   tests/run-all.sh            (JOBS=n for parallel make, default 2)
#
# RUN_ALL_RESULTS may hold results obtained before (one "PASS name" or
# "FAIL name" a line): they are counted too. .ci/run passes the quick start's.
#
# SPDX-License-Identifier: MIT
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${JOBS:-2}
passed=0
failed=0
failures=""
started=$(date +%s)

# A stage's heading, with the minutes since the start: where CI's 90 minutes go.
note() { printf '\n== %s (at %d min)\n' "$*" $((($(date +%s) - started) / 60)); }

# One result that is not a TAP test point (a build, the install check, distcheck).
result() { # status name
	if [ "$1" -eq 0 ]; then
		passed=$((passed + 1))
		echo "PASS: $2"
	else
		failed=$((failed + 1))
		failures="$failures
  $2"
		echo "FAIL: $2"
	fi
}

# Adds the TAP results of a build's last make check (its .trs files).
count_trs() { # build-dir label
	p=$(find "$1" -name '*.trs' -exec cat {} + 2>/dev/null | grep -c '^:test-result: \(PASS\|XFAIL\)')
	f=$(find "$1" -name '*.trs' -exec cat {} + 2>/dev/null | grep -c '^:test-result: \(FAIL\|XPASS\|ERROR\)')
	s=$(find "$1" -name '*.trs' -exec cat {} + 2>/dev/null | grep -c '^:test-result: SKIP')
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$2: $p passed, $f failed, $s skipped"
	if [ "$f" -gt 0 ]; then
		failures="$failures
$(find "$1" -name '*.log' ! -name 'test-suite.log' ! -name config.log -exec grep -H '^not ok' {} + |
	sed "s|^$1/||; s|^|  $2: |")"
		grep -h '^ERROR:' "$1/test-suite.log" 2>/dev/null | sed "s|^|  $2: |" >>"$1/.errors"
		[ -s "$1/.errors" ] && failures="$failures
$(cat "$1/.errors")"
		rm -f "$1/.errors"
	fi
}

# Runs a stage with a bound on its time, so that one that hangs fails and the
# suite still ends with its counts within CI's 90 minutes: a test script gets
# 20 minutes (the slowest takes 6 on 2 cores), a make check 30. A stage
# killed says so in its output, as a failed test point. timeout(1) makes the
# stage a process group of its own, which it kills whole; a ^C, which reaches
# this script's group only, is passed on to it (the trap below).
bounded() { # seconds command...
	limit=$1
	shift
	timeout -k 30 "$limit" "$@" &
	stage=$!
	wait $stage
	rc=$?
	stage=
	case $rc in
	124 | 137) echo "not ok - $* killed: still running after $limit s" ;;
	esac
	return $rc
}
SCRIPT_LIMIT=${RUN_ALL_SCRIPT_LIMIT:-1200}
stage=
trap '[ -z "$stage" ] || kill -TERM "$stage" 2>/dev/null; exit 130' INT TERM

# Counts the TAP lines of a test script's output (not run by make check).
count_tap() { # file label
	p=$(grep '^ok ' "$1" | grep -vc '# SKIP')  # a skip is neither passed nor failed
	f=$(grep -c '^not ok ' "$1")
	passed=$((passed + p))
	failed=$((failed + f))
	echo "$2: $p passed, $f failed"
	[ "$f" -eq 0 ] || failures="$failures
$(grep '^not ok ' "$1" | sed "s|^|  $2: |")"
	grep -q '^1\.\.' "$1" || { failed=$((failed + 1)); failures="$failures
  $2: no plan (the script stopped early)"; }
}

# Configures (once) and builds a tree; 0 on success.
build() { # dir configure-args...
	dir=$1
	shift
	mkdir -p "$top/$dir"
	(
		cd "$top/$dir" || exit 1
		[ -f Makefile ] || "$top/configure" --enable-werror "$@" >configure.out 2>&1 ||
			{ tail -20 configure.out; exit 1; }
		make -j"$jobs" >make.out 2>&1 || { tail -40 make.out; exit 1; }
	)
}

check() { # dir label make-target [env...]
	dir=$1 label=$2 target=$3
	shift 3
	find "$top/$dir" -name '*.trs' -delete 2>/dev/null
	# in a shell of the stage's own that goes to the folder (as cd does, PWD too)
	# shellcheck disable=SC2016 # its $0 and $@ are that shell's
	bounded 1800 sh -c 'cd "$0" && exec env "$@"' "$top/$dir" "$@" make -j"$jobs" "$target" \
		>"$top/$dir/check.out" 2>&1
	case $? in 124 | 137) result 1 "$label: make $target, killed after 30 minutes" ;; esac
	grep -E '^(PASS|FAIL|ERROR|SKIP|XPASS):' "$top/$dir/check.out" | grep -v '^PASS' | head -40
	count_trs "$top/$dir" "$label"
}

if [ -n "${RUN_ALL_RESULTS:-}" ]; then
	note "results from before"
	while read -r status name; do
		case "$status" in
		PASS) result 0 "$name" ;;
		FAIL) result 1 "$name" ;;
		esac
	done <<RESULTS
$RUN_ALL_RESULTS
RESULTS
fi

cd "$top" || exit 1
[ -x configure ] || ./autogen.sh >/dev/null 2>&1 || { echo "autogen.sh failed"; exit 1; }

note "plain build: make check"
build build
rc=$?
result $rc "plain build"
[ $rc -eq 0 ] && check build "plain" check

note "installed copy: cc app.c \$(pkg-config --cflags --libs ggmlviz)"
if [ $rc -eq 0 ]; then
	dest=$(mktemp -d)
	(
		set -e
		cd "$top/build"
		make install DESTDIR="$dest" >install.out 2>&1
		pcdir=$(dirname "$(find "$dest" -name ggmlviz.pc | head -n 1)")
		export PKG_CONFIG_PATH="$pcdir" PKG_CONFIG_SYSROOT_DIR="$dest"
		cd "$dest"
		cp "$top/tests/install-app.c" app.c
		# exactly the command the README promises, nothing added: its block, run as printed
		awk '/^```sh/ { on = 1; next } on && /^```/ { on = 0 } on && /^cc app.c .*pkg-config/' \
			"$top/README.md" >readme-cc.sh
		[ "$(wc -l <readme-cc.sh)" -eq 1 ]
		sh -e readme-cc.sh
		./a.out "$dest/app.ggmlviz"
		# the archive goes into a shared object, with pkg-config alone
		# shellcheck disable=SC2046
		cc -fPIC -shared -Dmain=app_main app.c -o libapp.so $(pkg-config --cflags --libs ggmlviz)
		printf 'int app_main(int, char **);\nint main(int c, char **v) { return app_main(c, v); }\n' >so.c
		cc so.c ./libapp.so -Wl,-rpath,"$dest" -o so-app
		./so-app "$dest/so.ggmlviz"
		test -f "$dest/usr/local/include/ggmlviz/tracer.h"
		test -f "$dest/usr/local/share/man/man3/ggmlviz_start.3"
		# a page that is another's, installed as man(1) resolves it: ".so man3/OTHER.3"
		test "$(cat "$dest/usr/local/share/man/man3/ggmlviz_config_from_env.3")" = \
			".so man3/ggmlviz_config_init.3"
		if command -v man >/dev/null; then
			test -z "$(MANWIDTH=80 man -M "$dest/usr/local/share/man" ggmlviz_config_from_env 2>&1 >/dev/null)"
		fi
	)
	result $? "make install DESTDIR=...; build and run a threaded program, and a shared object, with pkg-config alone"
	# CMake's find_package(ggmlviz 0.2): the package found where it was staged, not
	# where it was configured to go (relocatable), and a traced program built and run
	(
		set -e
		cmake -S "$top/tests/cmake-consumer" -B "$dest/cmake-consumer" \
			-DCMAKE_PREFIX_PATH="$dest/usr/local" >"$dest/cmake.out" 2>&1
		cmake --build "$dest/cmake-consumer" >>"$dest/cmake.out" 2>&1
		"$dest/cmake-consumer/consumer" "$dest/cmake.ggmlviz" >>"$dest/cmake.out" 2>&1
		test -s "$dest/cmake.ggmlviz"
		# an older CMake package request is answered, a newer one refused
		! cmake -S "$top/tests/cmake-consumer" -B "$dest/cmake-too-new" \
			-DCMAKE_PREFIX_PATH="$dest/usr/local" -Dggmlviz_DIR= \
			-DCMAKE_PROJECT_INCLUDE_BEFORE="$top/tests/cmake-consumer/want-99.cmake" \
			>>"$dest/cmake.out" 2>&1
	) || tail -20 "$dest/cmake.out"
	result $? "make install DESTDIR=...; a CMake project with find_package(ggmlviz 0.2 REQUIRED), built and run; 99.0 refused"
	rm -rf "$dest"
fi

note "the build without root (doc/install.md), as an unprivileged user: tests/test-user-build.sh"
bounded "$SCRIPT_LIMIT" env top_srcdir="$top" sh "$top/tests/test-user-build.sh" >"$top/build/user-build.out" 2>&1
count_tap "$top/build/user-build.out" "user-build"

note "AddressSanitizer + UndefinedBehaviorSanitizer: make check"
build build-asan --enable-sanitizers=address,undefined
rc=$?
result $rc "ASan+UBSan build"
[ $rc -eq 0 ] && check build-asan "asan+ubsan" check \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
	LSAN_OPTIONS="suppressions=$top/tests/lsan.supp:print_suppressions=0" \
	GGMLVIZ_TEST_SANITIZED=1

note "ThreadSanitizer: make check-threaded"
build build-tsan --enable-sanitizers=thread
rc=$?
result $rc "TSan build"
[ $rc -eq 0 ] && check build-tsan "tsan" check-threaded \
	TSAN_OPTIONS="die_after_fork=0 halt_on_error=1 second_deadlock_stack=1" \
	GGMLVIZ_TEST_SANITIZED=1

# The racy tests, each test function alone, three runs on one CPU beside two
# busy loops (bench/stress.sh runs them hundreds of times): a few minutes.
note "stress, short: bench/stress.sh, RUNS=3 pinned to one CPU beside two busy loops"
if [ -x "$top/build/tests/test-threads" ]; then
	RUNS=3 MODES=one-cpu BUSY=2 OUT="$top/build/stress" \
		PROGRAMS="test-threads test-races test-io-errors test-lifecycle test-crash" \
		sh "$top/bench/stress.sh" "$top/build" >"$top/build/stress.out" 2>&1
	while read -r mode prog name n _ _ runs _; do
		[ -n "$runs" ] || continue
		result "$n" "bench/stress.sh $mode $prog $name ($n failed of $runs)"
	done <<STRESS
$(grep ' failed of ' "$top/build/stress.out")
STRESS
fi

note "fuzzing: libFuzzer (clang) under ASan+UBSan, ${FUZZ_SECONDS:-60} s per target"
# Each target runs on a seed corpus written by tests/gen-trace (a whole trace,
# one ended by a crash, one cut short, one corrupt), tests/gen-rpc (a client
# of GGML's RPC and its servers, merged) and the inputs kept in
# tests/data, and stops at the first crash, leak or sanitizer report; a
# crash's input is kept in build-fuzz/.
if command -v clang >/dev/null 2>&1; then
	build build-fuzz CC=clang --enable-sanitizers=address,undefined --enable-fuzzing \
		--with-ggml=no
	rc=$?
	result $rc "libFuzzer build (clang)"
	if [ $rc -eq 0 ] && (cd "$top/build-fuzz" && make tests/gen-trace tests/gen-rpc >/dev/null 2>&1); then
		f=$top/build-fuzz
		rm -rf "$f/corpus" "$f/work"
		mkdir -p "$f/corpus" "$f/work"
		"$f/tests/gen-trace" "$f/corpus/whole.ggmlviz" >/dev/null
		# GGML's RPC: a client and its servers merged (what stats --by host reads)
		mkdir -p "$f/rpc" && "$f/tests/gen-rpc" "$f/rpc" --steps 2 --skew-a 500000000 >/dev/null &&
			"$f/tools/ggmlviz" merge "$f/rpc/client.ggmlviz" "$f/rpc/server-a.ggmlviz" \
				"$f/rpc/server-b.ggmlviz" -o "$f/corpus/rpc.ggmlviz" >/dev/null 2>&1
		"$f/tests/gen-trace" --crash --graphs 2 "$f/corpus/crash.ggmlviz" >/dev/null
		"$f/tests/gen-trace" --cut-bytes 7 "$f/corpus/cut.ggmlviz" >/dev/null
		"$f/tests/gen-trace" --corrupt 9 "$f/corpus/corrupt.ggmlviz" >/dev/null
		# and every input a fuzzer found before (each a regression to pass first), and
		# seed-pack: a trace of PACK records (GGML_VIZ_PACK), from gen-server --pack
		cp "$top"/tests/data/*.ggmlviz "$f/corpus/"
		for target in fuzz-reader fuzz-tools; do
			(cd "$f" && "./tests/$target" -max_total_time="${FUZZ_SECONDS:-60}" \
				-timeout=30 -close_fd_mask=3 -max_len=65536 -artifact_prefix="$f/$target-" \
				work corpus >"$target.out" 2>&1)
			rc=$?
			[ $rc -eq 0 ] || tail -30 "$f/$target.out"
			result $rc "$target: $(grep -o 'Done [0-9]* runs' "$f/$target.out" || echo 'no run') without a crash"
		done
	else
		result 1 "libFuzzer: tests/gen-trace (the seed corpus) built"
	fi
else
	result 1 "libFuzzer: clang is needed (scripts/install-deps.sh installs it)"
fi

# Builds llama.cpp's tools (build-llama-tools.sh ARGS; for a name whisper-*,
# whisper.cpp's: build-whisper-tools.sh), then runs tests/test-NAME.sh on
# them, their folder in the variable VAR.
tools_tested() { # name var what args...
	name=$1 var=$2 what=$3
	shift 3
	case "$name" in
	whisper-*) builder=build-whisper-tools.sh server=whisper-server ;;
	*) builder=build-llama-tools.sh server=llama-server ;;
	esac
	dir=$("$top/scripts/$builder" "$@" 2>"$top/build/$name.err" | tail -n 1)
	rc=$?
	[ -x "$dir/$server" ] || { rc=1; tail -20 "$top/build/$name.err"; }
	result $rc "scripts/$builder ${*:+$* }builds $what"
	[ $rc -eq 0 ] || return
	bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" "$var=$dir" \
		sh "$top/tests/test-$name.sh" >"$top/build/$name.out" 2>&1
	count_tap "$top/build/$name.out" "$name"
}

# llama.cpp's own tools traced: built from the fetched release's source when
# GGML is here (scripts/build-llama-tools.sh), then tests/test-llama-tools.sh.
if [ -f "$top/third_party/ggml/VERSION" ] && [ -x "$top/build/examples/make_tiny_llama" ]; then
	note "llama.cpp's tools traced: scripts/build-llama-tools.sh, tests/test-llama-tools.sh"
	# with GGML's RPC backend and its server (--rpc): one build serves both tests
	tools_tested llama-tools LLAMA_TOOLS "llama-bench, llama-cli, llama-server and ggml-rpc-server" --rpc
	if [ -x "$dir/ggml-rpc-server" ]; then
		note "GGML's RPC backend traced on both sides: tests/test-llama-rpc.sh"
		bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" LLAMA_TOOLS="$dir" \
			sh "$top/tests/test-llama-rpc.sh" >"$top/build/llama-rpc.out" 2>&1
		count_tap "$top/build/llama-rpc.out" "llama-rpc"
	fi
	if [ -x "$dir/llama-server" ]; then
		note "ggmlviz advise on llama-server's requests: tests/test-advise-server.sh"
		bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" LLAMA_TOOLS="$dir" \
			sh "$top/tests/test-advise-server.sh" >"$top/build/advise-server.out" 2>&1
		count_tap "$top/build/advise-server.out" "advise-server"
	fi
	note "llama-server fleets: Prometheus scraping ggmlviz serve, merged OTLP, a second SIGINT, a short soak"
	tools_tested llama-fleet LLAMA_TOOLS "llama-server (built already: nothing to do)"
	note "llama.cpp's tools on GGML's Vulkan backend: build-llama-tools.sh --vulkan, tests/test-llama-tools-vulkan.sh"
	tools_tested llama-tools-vulkan LLAMA_TOOLS_VULKAN "llama-bench and llama-server" \
		--vulkan --tools llama-bench,llama-server
	# whisper.cpp's: built for the CPU from the source of the release
	# scripts/fetch-whisper.sh fetches (build-whisper-tools.sh runs it), before
	# the pages' blocks that run them
	note "whisper.cpp's tools traced: scripts/build-whisper-tools.sh, tests/test-whisper-tools.sh"
	tools_tested whisper-tools WHISPER_TOOLS "whisper-cli, whisper-bench and whisper-server"
	note "the shared GGML of the GPU check (build-ggml-cuda.sh --cpu), its CPU shares measured"
	bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" \
		sh "$top/tests/test-ggml-shared.sh" >"$top/build/ggml-shared.out" 2>&1
	count_tap "$top/build/ggml-shared.out" "ggml-shared"
	note "the shell blocks of the README and doc/ that build into the checkout or run llama.cpp's tools, as printed"
	bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" \
		sh "$top/tests/test-readme-shell.sh" --checkout >"$top/build/readme-checkout.out" 2>&1
	count_tap "$top/build/readme-checkout.out" "readme-checkout"
	note "the llama.cpp integration on a llama.cpp changed as upstream changes it"
	bounded "$SCRIPT_LIMIT" env top_srcdir="$top" top_builddir="$top/build" \
		sh "$top/tests/test-llama-upstream.sh" >"$top/build/llama-upstream.out" 2>&1
	count_tap "$top/build/llama-upstream.out" "llama-upstream"
fi

note "make distcheck"
(cd "$top/build" && make -j"$jobs" distcheck >distcheck.out 2>&1)
rc=$?
if [ $rc -ne 0 ]; then
	tail -30 "$top/build/distcheck.out"
	# Which tests failed, and how: the tail above says only that some did.
	grep -E '^(FAIL|ERROR|XPASS):' "$top/build/distcheck.out" | sed 's|^|  distcheck: |'
	find "$top/build" -path '*/_build/*' -name test-suite.log -exec sed -n '/^\(FAIL\|ERROR\|XPASS\): /,$p' {} + |
		head -200
fi
result $rc "make distcheck"

if [ -n "$failures" ]; then
	note "failures"
	echo "$failures" | sed '/^$/d'
fi
echo
echo "run-all: $((($(date +%s) - started) / 60)) min"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
