#!/bin/sh
# The library takes no memory from the traced program's heap
# (lib/util/pages.h): tests/heap-layout, traced and untraced, computes a
# real GGML graph with the adapter on its scheduler and records from two
# threads, each of which then allocates six blocks; each lies at the same
# place in both runs (its distance from its thread's first block, or its
# offset in its page). Under AddressSanitizer the library's blocks come from the heap,
# which the sanitizer guards: skipped. Prints TAP.
top_builddir=${top_builddir:-.}
. "${top_srcdir:-.}/tests/tap.sh"
prog="$top_builddir/tests/heap-layout"
if [ ! -x "$prog" ]; then
	echo "1..0 # SKIP no tests/heap-layout (built with GGML only)"
	exit 0
fi
if grep -q __asan_init "$prog" 2>/dev/null; then
	echo "1..0 # SKIP AddressSanitizer: the library's blocks come from the heap there"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

echo "1..3"
"$prog" untraced "$tmp/unused.ggmlviz" >"$tmp/untraced" 2>"$tmp/untraced.err"
ok $? "untraced: ran ($(head -c 300 "$tmp/untraced.err"))"
"$prog" traced "$tmp/trace.ggmlviz" >"$tmp/traced" 2>"$tmp/traced.err"
rc=$?
[ $rc -eq 0 ] && [ -s "$tmp/trace.ggmlviz" ]
ok $? "traced: ran, and wrote its trace ($rc; $(head -c 300 "$tmp/traced.err"))"
[ -s "$tmp/untraced" ] && cmp -s "$tmp/untraced" "$tmp/traced"
ok $? "the program's blocks lie where they do untraced"
if ! cmp -s "$tmp/untraced" "$tmp/traced"; then
	echo "# untraced:"; sed 's/^/#   /' "$tmp/untraced"
	echo "# traced:"; sed 's/^/#   /' "$tmp/traced"
fi
