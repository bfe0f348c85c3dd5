#!/bin/sh
# Every C example in README.md compiles as written. Prints TAP.
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
readme="$top_srcdir/README.md"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# Splits the README's C blocks into $tmp/block-N.c; prints how many.
awk -v dir="$tmp" '
	/^```c[ \t]*$/ { n++; file = dir "/block-" n ".c"; printf "" >file; inside = 1; next }
	/^```/ && inside { inside = 0; close(file); next }
	inside { print >>file }
	END { print n + 0 }
' "$readme" >"$tmp/count"
n=$(cat "$tmp/count")
if [ "$n" -eq 0 ]; then
	echo "1..1"
	echo "not ok 1 - README.md has C examples (none found in $readme)"
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

echo "1..$n"
fail=0
i=1
while [ "$i" -le "$n" ]; do
	src="$tmp/block-$i.c"
	first=$(grep -m1 '^#include' "$src" | sed 's/^#include //')
	what="README C example $i ($(grep -c '' "$src") lines, first include $first)"
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
exit $fail
