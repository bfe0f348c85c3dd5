#!/bin/sh
# Every C example in README.md and in the guides in doc/ compiles as
# written, and the llama.cpp and GGML samples run as their pages build and
# run them.
# Prints TAP.
#
# Each ```c block is a file of its own: one with a main() is compiled and
# linked against lib/libggmlviz.a (and GGML, libllama where it includes
# their headers); one without is compiled only (-c). Warnings are errors.
# Blocks that include GGML's or llama.cpp's headers are skipped, and say
# so, where configure found no GGML or no libllama.
#
# Environment (from make check): top_srcdir, top_builddir, CC, GGML_CFLAGS,
# GGML_LIBS, LLAMA_LIBS, SAN_FLAGS (a sanitized library links only with them).
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Splits the pages' C blocks into $tmp/block-N.c, each with its page in
# $tmp/block-N.page and the first shell block after it (before another C
# block) in $tmp/block-N.sh; prints how many.
n=0
for page in README.md $(cd "$top_srcdir" && ls doc/*.md); do
	n=$(awk -v dir="$tmp" -v n="$n" -v page="$page" '
		/^```c[ \t]*$/ { n++; file = dir "/block-" n ".c"; printf "" >file; print page >(dir "/block-" n ".page")
				 inside = 1; after = n; next }
		/^```sh[ \t]*$/ && !inside && after { file = dir "/block-" after ".sh"; printf "" >file; inside = 2; after = 0; next }
		/^```/ && inside { inside = 0; close(file); next }
		/^```/ { skip = !skip; next }
		inside { print >>file }
		END { print n + 0 }
	' "$top_srcdir/$page") || exit 1
done
if [ "$n" -eq 0 ]; then
	echo "1..1"
	echo "not ok 1 - README.md and doc/ have C examples (none found)"
	exit 1
fi

# Compiles (and links, with a main) one block.
build() { # src out cflags libs
	# shellcheck disable=SC2086 # the flags are lists of words
	if grep -q 'main(' "$1"; then
		$CC -std=c11 -Wall -Wextra -Werror ${SAN_FLAGS:-} -I"$top_srcdir/include" $3 -o "$2" \
			"$1" "$top_builddir/lib/libggmlviz.a" $4 -lpthread
	else
		$CC -std=c11 -Wall -Wextra -Werror -I"$top_srcdir/include" $3 -c -o "$2.o" "$1"
	fi
}

# A sample's shell block, built and run exactly as printed, in a folder laid
# out as this checkout after the quick start (include/, third_party/ggml,
# build/lib, build/tools, and for libllama build/demo.gguf: a small model of
# make_tiny_llama's); what it prints must hold the lines CHECK... (regexes).
run_sample() { # block-N lib check...
	block=$1 lib=$2
	shift 2
	ggml_root=$(echo "${GGML_CFLAGS:-}" | sed -n 's/^-I\(.*\)\/include$/\1/p')
	cat "$block.sh" >"$tmp/sample.sh" 2>/dev/null
	if [ -n "${SAN_FLAGS:-}" ]; then
		echo "sanitized build: the page's compile line links the plain library only"
		return 77
	fi
	ls "$ggml_root"/lib/"$lib".v*.so >/dev/null 2>&1 || {
		echo "no $lib.v*.so in ${ggml_root:-(no GGML)}/lib: not the quick start's GGML"
		return 77
	}
	grep -q 'app.c' "$tmp/sample.sh" ||
		{ echo "no shell block that builds app.c after the sample ($(cat "$block.page"))"; return 1; }
	root="$tmp/root-$lib"
	mkdir -p "$root/build" "$root/third_party"
	ln -s "$(cd "$top_srcdir" && pwd)/include" "$root/include"
	ln -s "$ggml_root" "$root/third_party/ggml"
	ln -s "$(cd "$top_builddir" && pwd)/lib" "$root/build/lib"
	ln -s "$(cd "$top_builddir" && pwd)/tools" "$root/build/tools"
	cp "$block.c" "$root/app.c"
	if [ "$lib" = libllama ]; then
		"$top_builddir/examples/make_tiny_llama" "$root/build/demo.gguf" --layers 2 >/dev/null || return 1
	fi
	(cd "$root" && sh -e "$tmp/sample.sh") >"$tmp/sample.out" 2>&1 || {
		tail -20 "$tmp/sample.out"
		return 1
	}
	for want in "$@"; do
		grep -q "$want" "$tmp/sample.out" || { echo "no line '$want' in:"; tail -20 "$tmp/sample.out"; return 1; }
	done
}

run_llama_sample() { # block-N
	run_sample "$1" libllama '^llama_decode: 0$' '^MUL_MAT '
}

run_ggml_sample() { # block-N
	run_sample "$1" libggml '^graphs: 4 computed$' '^MUL_MAT ' '^ADD '
}

llama_block=0
ggml_block=0
i=1
while [ "$i" -le "$n" ]; do
	grep -q 'llama_model_load_from_file' "$tmp/block-$i.c" && llama_block=$i
	grep -q 'ggmlviz_ggml_trace_sched' "$tmp/block-$i.c" && grep -q 'main(' "$tmp/block-$i.c" && ggml_block=$i
	i=$((i + 1))
done

# one result for a sample run: name, function, block
sample_result() {
	what=$1 fn=$2 block=$3
	i=$((i + 1))
	if [ "$block" -eq 0 ]; then
		echo "not ok $i - $what (no such sample)"
		fail=1
	elif [ ! -f "$tmp/block-$block" ] && [ ! -f "$tmp/block-$block.o" ]; then
		echo "ok $i - $what # SKIP the sample was not built here"
	else
		$fn "$tmp/block-$block" >"$tmp/log" 2>&1
		rc=$?
		if [ $rc -eq 0 ]; then
			echo "ok $i - $what"
		elif [ $rc -eq 77 ]; then
			echo "ok $i - $what # SKIP $(tail -n 1 "$tmp/log")"
		else
			echo "not ok $i - $what"
			sed 's/^/# /' "$tmp/log"
			fail=1
		fi
	fi
}

echo "1..$((n + 2))"
fail=0
i=1
while [ "$i" -le "$n" ]; do
	src="$tmp/block-$i.c"
	first=$(grep -m1 '^#include' "$src" | sed 's/^#include //')
	what="$(cat "$tmp/block-$i.page")'s C example $i ($(grep -c '' "$src") lines, first include $first)"
	needs=
	extra_cflags=
	extra_libs=
	if grep -q '^#include <llama.h>' "$src"; then
		needs=${LLAMA_LIBS:-libllama}
		extra_cflags=$GGML_CFLAGS
		extra_libs="${LLAMA_LIBS:-} ${GGML_LIBS:-} -lm"
	elif grep -q '^#include <ggml[.-]' "$src"; then
		needs=${GGML_LIBS:-GGML}
		extra_cflags=$GGML_CFLAGS
		extra_libs="${GGML_LIBS:-} -lm"
	fi
	case $needs in
	libllama | GGML)
		echo "ok $i - $what # SKIP configure found no $needs"
		i=$((i + 1))
		continue
		;;
	esac
	if build "$src" "$tmp/block-$i" "$extra_cflags" "$extra_libs" >"$tmp/log" 2>&1; then
		echo "ok $i - $what"
	else
		echo "not ok $i - $what"
		sed 's/^/# /' "$tmp/log"
		fail=1
	fi
	i=$((i + 1))
done
i=$((i - 1))
sample_result "the llama.cpp sample, built and run with its shell block as printed" \
	run_llama_sample "$llama_block"
sample_result "the GGML sample (doc/api.md), built and run with its shell block as printed: 4 graphs traced" \
	run_ggml_sample "$ggml_block"
exit $fail
