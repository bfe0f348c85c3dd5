#!/bin/sh
# Every shell block of README.md and of the guides in doc/ run as printed,
# or named here as run elsewhere, with where. Prints TAP.
#
# Each page's blocks run in its order, as one shell session (sh, set -e:
# what one block sets, the next one reads); each page has a session of its
# own, so that no page leans on another's. In build mode a page runs in a
# folder of its own, laid out as this checkout after the quick start:
# include/, third_party/ggml, build/lib, build/tools, build/examples,
# build/demo.gguf (a small model of make_tiny_llama's) and demo.ggmlviz (a
# trace of it, written as the quick start writes its own). A block finds
# what the blocks above it wrote, and app.c is the C sample just above the
# block that compiles it. Each block must exit 0; where the page shows
# what it prints (a plain block right under it), its table headers and its
# first line, numbers masked, must be in what it printed; and what it says
# it writes must be there.
#
# With --checkout, the blocks that build into the checkout or run
# llama.cpp's or whisper.cpp's own tools (scripts/build-llama-tools.sh,
# llama-bench, llama-server on port 8080, bench/gpu-check.sh,
# scripts/build-whisper-tools.sh and what reads whisper*.ggmlviz or
# rpc-*.ggmlviz: GGML's RPC servers on ports 50052 and 50053) run instead, from the top
# of the checkout, as a user runs them: tests/run-all.sh does so once the
# tools are built, so that the build script finds them built. There HOME
# is a folder whose llama.cpp is a link to the fetched release's source,
# so that "--source ~/llama.cpp" names a checkout as printed. A block that
# builds for CUDA (--cuda) runs only where nvidia-smi lists a GPU and nvcc
# is found, and is skipped, saying so, elsewhere.
#
# Environment (from make check): top_srcdir, top_builddir, GGML_CFLAGS,
# SAN_FLAGS (a sanitized build: the samples' compile lines link the plain
# library only).
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
mode=build
[ "${1:-}" = --checkout ] && mode=checkout
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# The pages whose blocks run: the README, then the guides; or those named
# in PAGES (PAGES=doc/llama-server.md: one page's blocks, as you edit it).
pages() {
	if [ -n "${PAGES:-}" ]; then
		# shellcheck disable=SC2086 # a list of pages, split at blanks
		printf '%s\n' $PAGES
		return
	fi
	echo README.md
	(cd "$top_srcdir" && ls doc/*.md)
}

# Splits page $1's fenced blocks into $2/b-N.{c,sh,out,other}; $2/index has
# "N KIND FIRST LAST" (its fences' lines) for each, in order (out: a plain
# block, what a command prints when it comes right under the command's block).
split_blocks() { # page dir
	mkdir -p "$2"
	: >"$2/index"
	awk -v dir="$2" '
		/^```/ && !inside {
			kind = substr($0, 4); sub(/[ \t]+$/, "", kind)
			kind = kind == "" ? "out" : (kind == "c" || kind == "sh") ? kind : "other"
			n++; file = dir "/b-" n "." kind; printf "" >file
			first = NR; inside = 1; next
		}
		/^```/ && inside { inside = 0; close(file); print n, kind, first, NR >(dir "/index"); next }
		inside { print >>file }
	' "$top_srcdir/$1"
}

# shellcheck disable=SC2016 # the blocks' own words, $ and all
# Where a block runs: "build" (the folder laid out as after the quick start),
# "checkout" (the top of the checkout), "gpu" (the checkout, on a machine
# with an NVIDIA GPU and the CUDA toolkit), or "elsewhere: WHERE".
where_of() {
	case $(head -n 1 "$1") in
	./quickstart.sh) echo "elsewhere: the quick start itself, run by .ci/run on a fresh machine" ;;
	tests/run-all.sh) echo "elsewhere: .ci/run runs it after the quick start (it runs this script)" ;;
	'cc app.c $(pkg-config'*) echo "elsewhere: tests/run-all.sh runs it against a copy installed with DESTDIR" ;;
	bench/soak-server.py*) echo "elsewhere: tests/llama-fleet.py runs it for a minute (tests/run-all.sh)" ;;
	./autogen.sh) echo "elsewhere: tests/run-all.sh's plain build is these steps (make install with DESTDIR)" ;;
	'./autogen.sh && '*) echo "elsewhere: tests/test-user-build.sh runs it as an unprivileged user (tests/run-all.sh)" ;;
	*)
		if grep -q 'build-llama-tools\.sh[^#]*--cuda' "$1"; then
			echo gpu
		elif grep -q 'scripts/build-llama-tools.sh\|\$tools/\|server\.ggmlviz\|bench\.ggmlviz\|completion\.ggmlviz\|bench/gpu-check.sh\|scripts/build-whisper-tools.sh\|whisper[a-z-]*\.ggmlviz\|rpc-[a-z-]*\.ggmlviz' "$1"; then
			echo checkout
		else
			echo build
		fi ;;
	esac
}

# Why a GPU block cannot run here, or nothing.
no_gpu() {
	nvidia-smi -L >/dev/null 2>&1 || { echo "needs an NVIDIA GPU (nvidia-smi lists none)"; return; }
	command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ] ||
		echo "needs the CUDA toolkit (no nvcc)"
}

# Masks numbers and squeezes blanks: the shape of a line of output.
shape() {
	sed -e 's/[0-9][0-9]*\(\.[0-9][0-9]*\)\{0,1\}/N/g' -e 's/[ \t][ \t]*/ /g' -e 's/^ //; s/ $//'
}

# What the page shows block $1 printing, missing from what it printed ($2):
# the table headers (lines of capitals) and the first line, by shape.
missing_output() { # out-block printed
	{ head -n 1 "$1"; grep -E '^[A-Z][A-Z/]*( +[A-Z][A-Z/%]*){2,} *$' "$1"; } | shape |
		while read -r want; do
			shape <"$2" | grep -qxF "$want" || echo "the page shows \"$want\" (numbers masked): not printed"
		done
}

# What a block says it writes, by its first line: the files, or a line of output.
missing_writes() { # block printed
	case $(head -n 1 "$1") in
	'build/tools/ggmlviz info demo.ggmlviz'*)
		for f in report.html demo.json demo.pftrace demo.speedscope.json runs.db steps.csv all.ggmlviz; do
			[ -s "$f" ] || echo "$f was not written"
		done
		[ "$(grep -c '"type":"STEP_BEGIN"' "$2")" -eq 3 ] || echo "the jq line printed no 3 STEP_BEGIN records" ;;
	'sqlite3 runs.db'*)
		[ "$(grep -c '^[0-9]*|[0-9.]*$' "$2")" -eq 3 ] || echo "no 3 rows of layer|ms" ;;
	'build/tools/ggmlviz export -f otlp server.ggmlviz'*)
		[ "$(grep -o '"name":"text_completion"' server.otlp.jsonl | wc -l)" -eq 3 ] ||
			echo "server.otlp.jsonl does not hold the 3 requests' spans" ;;
	GGML_VIZ_OUTPUT=day.ggmlviz*)
		grep -q 'summed again over windows' "$2" ||
			echo "info did not say that the preset summed the ops over windows" ;;
	GGML_VIZ_OUTPUT=hours.ggmlviz*)
		shape <"$2" | grep -qF 'sampling: N step in N op by op, and every step of N us or more' ||
			echo "info did not say how the server's ops were sampled" ;;
	esac
}

# Folder $1 laid out as this checkout after the quick start; 77 where it cannot be.
lay_out() { # dir
	ggml_root=$(echo "${GGML_CFLAGS:-}" | sed -n 's/^-I\(.*\)\/include$/\1/p')
	[ -z "${SAN_FLAGS:-}" ] || { echo "a sanitized build: the README's compile lines link the plain library only"; return 77; }
	ls "$ggml_root"/lib/libllama.v*.so >/dev/null 2>&1 ||
		{ echo "no libllama.v*.so in ${ggml_root:-(no GGML)}/lib: not the quick start's GGML"; return 77; }
	build=$(cd "$top_builddir" && pwd)
	mkdir -p "$1/build" "$1/third_party"
	ln -s "$(cd "$top_srcdir" && pwd)/include" "$1/include"
	ln -s "$ggml_root" "$1/third_party/ggml"
	for d in lib tools examples; do ln -s "$build/$d" "$1/build/$d"; done
	# GGML_VIZ_PEAK=2, as quickstart.sh traces: its stats have the BOUND column
	(cd "$1" && build/examples/make_tiny_llama build/demo.gguf --layers 2 &&
		GGML_VIZ_PEAK=2 build/examples/llama_trace --model build/demo.gguf --generate 4 --threads 2 \
			--output demo.ggmlviz) >"$tmp/layout.log" 2>&1 || { cat "$tmp/layout.log"; return 1; }
}

# Writes page dir $1's session.sh: the blocks listed in $1/mine, in order, as
# one shell session (set -e; a variable one block sets, the next one reads),
# each block's output in $1/printed-N and its end in $1/done-N.
write_session() { # dir
	echo 'set -e'
	if [ "$mode" = checkout ]; then
		# "~/llama.cpp": a checkout there, the fetched release's source
		echo "HOME='$1/home'; export HOME"
		mkdir -p "$1/home"
		ln -s "$(cd "$top_srcdir" && pwd)/third_party/ggml/src" "$1/home/llama.cpp"
	fi
	while read -r n; do
		if grep -q 'app\.c' "$1/b-$n.sh"; then
			c=$(awk -v n="$n" '$1 < n && $2 == "c" { last = $1 } END { print last }' "$1/index")
			echo "cp '$1/b-$c.c' app.c"
		fi
		echo "exec >'$1/printed-$n' 2>&1"
		if grep -q 'exits 77' "$1/b-$n.sh"; then
			# what its comment says: 77, where it cannot run all (no GPU), is no failure
			echo 'set +e'
			cat "$1/b-$n.sh"
			# shellcheck disable=SC2016 # written into the session as it is
			echo 'rc=$?; set -e; [ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc'
		else
			cat "$1/b-$n.sh"
		fi
		echo "touch '$1/done-$n'"
	done <"$1/mine"
}

# Runs page dir $1's session in folder $2; its exit status in $1/session-rc.
# The session is a process group of its own, killed once it ends: what a
# failed block left running (a server on port 8080) holds no later page.
run_session() { # dir folder
	write_session "$1" >"$1/session.sh"
	(cd "$2" && exec setsid sh "$1/session.sh") >/dev/null 2>&1 &
	session=$!
	wait $session
	echo $? >"$1/session-rc"
	kill -- -$session 2>/dev/null
	session=
	return 0
}
# this script stopped (tests/run-all.sh's time limit, a ^C): its session too, which setsid took
# out of this script's process group
trap '[ -z "${session:-}" ] || kill -- -"$session" 2>/dev/null; exit 143' TERM INT

# How block N of page dir $1 went in its session: 0, or 1 with why on stdout.
block_result() { # dir N folder
	src="$1/b-$2.sh"
	if [ ! -f "$1/done-$2" ]; then
		[ -f "$1/printed-$2" ] || { echo "not run: a block above it failed"; return 1; }
		echo "exit $(cat "$1/session-rc"):"
		tail -n 20 "$1/printed-$2"
		return 1
	fi
	under=$(awk -v n="$2" '$1 == n { last = $4 } $1 == n + 1 && $2 == "out" && $3 == last + 1 { print "yes" }' \
		"$1/index")
	{
		[ "$under" != yes ] || missing_output "$1/b-$(($2 + 1)).out" "$1/printed-$2"
		(cd "$3" && missing_writes "$src" "$1/printed-$2")
	} >"$1/missing"
	[ -s "$1/missing" ] || return 0
	cat "$1/missing"
	sed 's/^/printed: /' "$1/printed-$2" | head -n 30
	return 1
}

# The files the checkout's blocks write at its top, never overwritten.
CHECKOUT_FILES="bench.ggmlviz gpu.ggmlviz completion.ggmlviz server.ggmlviz server.otlp.jsonl hours.ggmlviz
day.ggmlviz busy.ggmlviz server.flight-1.ggmlviz
tiny-whisper.bin speech.wav whisper.ggmlviz whisper.html whisper-bench.ggmlviz whisper-server.ggmlviz"
checkout_ready() {
	for f in $CHECKOUT_FILES; do
		[ ! -e "$top_srcdir/$f" ] || { echo "$top_srcdir/$f exists: not overwritten"; return 77; }
	done
	python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 8080))' 2>/dev/null ||
		{ echo "port 8080 is taken (llama-server's default)"; return 77; }
}
checkout_clean() {
	for f in $CHECKOUT_FILES; do rm -f "$top_srcdir/$f"; done
}

# Why block $1 would leave a process running after it, or nothing: a
# command put in the background (a line ending in "&") and no "wait" outside
# a comment (the program still running holds its port and its trace for the
# blocks after it, and a reader after it reads a trace not yet written).
# Checked in every mode, whether the block runs here or not.
left_running() { # block
	grep -qE '&[[:space:]]*(#.*)?$' "$1" &&
		! sed 's/[[:space:]]#.*//' "$1" | grep -qE '(^|[;&|[:space:]])wait([[:space:]]|;|$)' &&
		echo "it starts a command in the background and never waits for it"
}

# Where page dir $1's block N runs in this mode: "run", or why not ("# SKIP ...").
fate() { # dir N
	where=$(where_of "$1/b-$2.sh")
	case $where in
	elsewhere:*) echo "SKIP ${where#elsewhere: }" ;;
	"$mode") echo run ;;
	gpu)
		if [ "$mode" = build ]; then
			echo "SKIP run from the checkout's top, on a GPU: --checkout (tests/run-all.sh)"
		elif why=$(no_gpu) && [ -n "$why" ]; then
			echo "SKIP $why"
		else
			echo run
		fi ;;
	checkout) echo "SKIP run from the checkout's top: --checkout (tests/run-all.sh)" ;;
	build) echo "SKIP run by make check (this script without --checkout)" ;;
	esac
}

# the files a page's session writes at the checkout's top: removed after it, or at an exit during it
dirty=0
trap 'rm -rf "$tmp"; [ $dirty -eq 0 ] || checkout_clean' EXIT
pages >"$tmp/pages" || exit 1
k=0
total=0
while read -r page; do
	k=$((k + 1))
	split_blocks "$page" "$tmp/p$k"
	total=$((total + $(awk '$2 == "sh"' "$tmp/p$k/index" | wc -l)))
done <"$tmp/pages"
echo "1..$total"
fail=0
i=0
k=0
while read -r page; do
	k=$((k + 1))
	d="$tmp/p$k"
	: >"$d/mine"
	while read -r n kind _; do
		[ "$kind" = sh ] && [ "$(fate "$d" "$n")" = run ] && echo "$n"
	done <"$d/index" >"$d/mine"
	rc_ready=0
	ready=
	if [ -s "$d/mine" ]; then
		if [ "$mode" = build ]; then
			folder="$d/root"
			ready=$(lay_out "$folder")
		else
			folder=$top_srcdir
			ready=$(checkout_ready)
		fi
		rc_ready=$?
		if [ $rc_ready -eq 0 ]; then
			[ "$mode" = build ] || dirty=1
			run_session "$d" "$folder"
		fi
	fi
	while read -r n kind line _; do
		[ "$kind" = sh ] || continue
		i=$((i + 1))
		what="$page line $line: $(head -n 1 "$d/b-$n.sh" | cut -c1-60)"
		f=$(fate "$d" "$n")
		if why=$(left_running "$d/b-$n.sh") && [ -n "$why" ]; then
			echo "not ok $i - $what: $why"
			fail=1
		elif [ "$f" != run ]; then
			echo "ok $i - $what # $f"
		elif [ $rc_ready -eq 77 ]; then
			echo "ok $i - $what # SKIP $ready"
		elif [ $rc_ready -ne 0 ]; then
			echo "not ok $i - $what (the folder to run it in could not be made)"
			echo "$ready" | sed 's/^/# /'
			fail=1
		elif why=$(block_result "$d" "$n" "$folder"); then
			echo "ok $i - $what: run as printed"
		else
			echo "not ok $i - $what: run as printed"
			echo "$why" | sed 's/^/# /'
			fail=1
		fi
	done <"$d/index"
	# what the page wrote at the checkout's top, once its blocks were checked
	[ $dirty -eq 0 ] || checkout_clean
	dirty=0
done <"$tmp/pages"
exit $fail
