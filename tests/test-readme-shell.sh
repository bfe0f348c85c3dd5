#!/bin/sh
# Every shell block of README.md run as printed, or named here as run
# elsewhere, with where. Prints TAP.
#
# The blocks run in README order, as one shell session (sh, set -e: what
# one block sets, the next one reads), in a folder laid out as
# this checkout after the quick start: include/, third_party/ggml,
# build/lib, build/tools, build/examples, build/demo.gguf (a small model of
# make_tiny_llama's) and demo.ggmlviz (a trace of it, written as the quick
# start writes its own); a block finds what the blocks before it wrote, and
# app.c is the C sample just above the block that compiles it. Each block
# must exit 0; where the README shows what it prints (a plain block right
# under it), its table headers and its first line, numbers masked, must be
# in what it printed; and what it says it writes must be there.
#
# With --checkout, the blocks that build into the checkout or run
# llama.cpp's own tools (scripts/build-llama-tools.sh, llama-bench,
# llama-server on port 8080, bench/gpu-check.sh) run instead, from the top
# of the checkout, as a user runs them: tests/run-all.sh does so once the
# tools are built, so that the build script finds them built.
#
# Environment (from make check): top_srcdir, top_builddir, GGML_CFLAGS,
# SAN_FLAGS (a sanitized build: the samples' compile lines link the plain
# library only).
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
readme="$top_srcdir/README.md"
mode=build
[ "${1:-}" = --checkout ] && mode=checkout
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Splits the README's fenced blocks into $tmp/b-N.{c,sh,out,other}; $tmp/index
# has "N KIND FIRST LAST" (its fences' lines) for each, in order (out: a plain
# block, what a command prints when it comes right under the command's block).
awk -v dir="$tmp" '
	/^```/ && !inside {
		kind = substr($0, 4); sub(/[ \t]+$/, "", kind)
		kind = kind == "" ? "out" : (kind == "c" || kind == "sh") ? kind : "other"
		n++; file = dir "/b-" n "." kind; printf "" >file
		first = NR; inside = 1; next
	}
	/^```/ && inside { inside = 0; close(file); print n, kind, first, NR >(dir "/index"); next }
	inside { print >>file }
' "$readme"

# shellcheck disable=SC2016 # the blocks' own words, $ and all
# Where a block runs: "build" (the folder laid out as after the quick start),
# "checkout" (the top of the checkout), or "elsewhere: WHERE".
where_of() {
	case $(head -n 1 "$1") in
	./quickstart.sh) echo "elsewhere: the quick start itself, run by .ci/run on a fresh machine" ;;
	'cc app.c $(pkg-config'*) echo "elsewhere: tests/run-all.sh runs it against a copy installed with DESTDIR" ;;
	./autogen.sh) echo "elsewhere: tests/run-all.sh's plain build is these steps (make install with DESTDIR)" ;;
	*)
		if grep -q 'scripts/build-llama-tools.sh\|\$tools/\|server\.ggmlviz\|bench\.ggmlviz\|bench/gpu-check.sh' "$1"; then
			echo checkout
		else
			echo build
		fi ;;
	esac
}

# Masks numbers and squeezes blanks: the shape of a line of output.
shape() {
	sed -e 's/[0-9][0-9]*\(\.[0-9][0-9]*\)\{0,1\}/N/g' -e 's/[ \t][ \t]*/ /g' -e 's/^ //; s/ $//'
}

# What the README shows block $1 printing, missing from what it printed ($2):
# the table headers (lines of capitals) and the first line, by shape.
missing_output() { # out-block printed
	{ head -n 1 "$1"; grep -E '^[A-Z][A-Z/]*( +[A-Z][A-Z/%]*){2,} *$' "$1"; } | shape |
		while read -r want; do
			shape <"$2" | grep -qxF "$want" || echo "the README shows \"$want\" (numbers masked): not printed"
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
	GGML_VIZ_OUTPUT=hours.ggmlviz*)
		shape <"$2" | grep -qF 'sampling: N step in N op by op, and every step of N us or more' ||
			echo "info did not say how the server's ops were sampled" ;;
	esac
}

# The folder laid out as this checkout after the quick start; 77 where it cannot be.
lay_out() {
	ggml_root=$(echo "${GGML_CFLAGS:-}" | sed -n 's/^-I\(.*\)\/include$/\1/p')
	[ -z "${SAN_FLAGS:-}" ] || { echo "a sanitized build: the README's compile lines link the plain library only"; return 77; }
	ls "$ggml_root"/lib/libllama.v*.so >/dev/null 2>&1 ||
		{ echo "no libllama.v*.so in ${ggml_root:-(no GGML)}/lib: not the quick start's GGML"; return 77; }
	build=$(cd "$top_builddir" && pwd)
	mkdir -p "$root/build" "$root/third_party"
	ln -s "$(cd "$top_srcdir" && pwd)/include" "$root/include"
	ln -s "$ggml_root" "$root/third_party/ggml"
	for d in lib tools examples; do ln -s "$build/$d" "$root/build/$d"; done
	(cd "$root" && build/examples/make_tiny_llama build/demo.gguf --layers 2 &&
		build/examples/llama_trace --model build/demo.gguf --generate 4 --threads 2 \
			--output demo.ggmlviz) >"$tmp/layout.log" 2>&1 || { cat "$tmp/layout.log"; return 1; }
}

# Writes $tmp/session.sh: the blocks listed in $tmp/mine, in order, as one
# shell session (set -e; a variable one block sets, the next one reads),
# each block's output in $tmp/printed-N and its end in $tmp/done-N.
write_session() {
	echo 'set -e'
	while read -r n; do
		if grep -q 'app\.c' "$tmp/b-$n.sh"; then
			c=$(awk -v n="$n" '$1 < n && $2 == "c" { last = $1 } END { print last }' "$tmp/index")
			echo "cp '$tmp/b-$c.c' app.c"
		fi
		echo "exec >'$tmp/printed-$n' 2>&1"
		if grep -q 'exits 77' "$tmp/b-$n.sh"; then
			# what its comment says: 77, where it cannot run all (no GPU), is no failure
			echo 'set +e'
			cat "$tmp/b-$n.sh"
			# shellcheck disable=SC2016 # written into the session as it is
			echo 'rc=$?; set -e; [ $rc -eq 0 ] || [ $rc -eq 77 ] || exit $rc'
		else
			cat "$tmp/b-$n.sh"
		fi
		echo "touch '$tmp/done-$n'"
	done <"$tmp/mine"
}

# Runs the session in folder $1; its exit status in $tmp/session-rc.
run_session() { # dir
	write_session >"$tmp/session.sh"
	(cd "$1" && sh "$tmp/session.sh") >/dev/null 2>&1
	echo $? >"$tmp/session-rc"
}

# How block N went in the session: 0, or 1 with why on stdout.
block_result() { # N dir
	src="$tmp/b-$1.sh"
	if [ ! -f "$tmp/done-$1" ]; then
		[ -f "$tmp/printed-$1" ] || { echo "not run: a block above it failed"; return 1; }
		echo "exit $(cat "$tmp/session-rc"):"
		tail -n 20 "$tmp/printed-$1"
		return 1
	fi
	under=$(awk -v n="$1" '$1 == n { last = $4 } $1 == n + 1 && $2 == "out" && $3 == last + 1 { print "yes" }' \
		"$tmp/index")
	{
		[ "$under" != yes ] || missing_output "$tmp/b-$(($1 + 1)).out" "$tmp/printed-$1"
		(cd "$2" && missing_writes "$src" "$tmp/printed-$1")
	} >"$tmp/missing"
	[ -s "$tmp/missing" ] || return 0
	cat "$tmp/missing"
	sed 's/^/printed: /' "$tmp/printed-$1" | head -n 30
	return 1
}

# The files the checkout's blocks write at its top, never overwritten.
checkout_ready() {
	for f in bench.ggmlviz server.ggmlviz server.otlp.jsonl hours.ggmlviz; do
		[ ! -e "$top_srcdir/$f" ] || { echo "$top_srcdir/$f exists: not overwritten"; return 77; }
	done
	python3 -c 'import socket; socket.socket().bind(("127.0.0.1", 8080))' 2>/dev/null ||
		{ echo "port 8080 is taken (llama-server's default)"; return 77; }
}

root="$tmp/root"
total=$(awk '$2 == "sh"' "$tmp/index" | wc -l)
echo "1..$total"
case $mode in
build) ready=$(lay_out) ;;
checkout) ready=$(checkout_ready); trap 'rm -rf "$tmp"; cd "$top_srcdir" && rm -f bench.ggmlviz server.ggmlviz server.otlp.jsonl hours.ggmlviz' EXIT ;;
esac
rc_ready=$?
dir=$([ "$mode" = build ] && echo "$root" || echo "$top_srcdir")
while read -r n kind _; do
	[ "$kind" = sh ] && [ "$(where_of "$tmp/b-$n.sh")" = "$mode" ] && echo "$n"
done <"$tmp/index" >"$tmp/mine"
[ $rc_ready -ne 0 ] || run_session "$dir"
fail=0
i=0
while read -r n kind line _; do
	[ "$kind" = sh ] || continue
	i=$((i + 1))
	where=$(where_of "$tmp/b-$n.sh")
	what="README.md line $line: $(head -n 1 "$tmp/b-$n.sh" | cut -c1-60)"
	case $where in
	elsewhere:*) echo "ok $i - $what # SKIP ${where#elsewhere: }"; continue ;;
	"$mode") ;;
	checkout) echo "ok $i - $what # SKIP run from the checkout's top: --checkout (tests/run-all.sh)"; continue ;;
	build) echo "ok $i - $what # SKIP run by make check (this script without --checkout)"; continue ;;
	esac
	if [ $rc_ready -eq 77 ]; then
		echo "ok $i - $what # SKIP $ready"
	elif [ $rc_ready -ne 0 ]; then
		echo "not ok $i - $what (the folder to run it in could not be made)"
		echo "$ready" | sed 's/^/# /'
		fail=1
	elif why=$(block_result "$n" "$dir"); then
		echo "ok $i - $what: run as printed"
	else
		echo "not ok $i - $what: run as printed"
		echo "$why" | sed 's/^/# /'
		fail=1
	fi
done <"$tmp/index"
exit $fail
