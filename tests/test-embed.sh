#!/bin/sh
# libggmlviz embedded in shared objects (TAP): the archive links into a
# shared object (it is built position-independent), and two shared objects
# that each linked it, loaded into one process with RTLD_LOCAL, hold two
# copies of the tracer: the second refuses to start, naming both objects,
# and the first's trace is whole.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/tap.sh"
CC=${CC:-cc}
lib="$top_builddir/lib/libggmlviz.a"
ggmlviz="$top_builddir/tools/ggmlviz"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086 # SAN_FLAGS is a list of flags
so() { # name
	$CC ${SAN_FLAGS:-} -fPIC -shared -I"$top_srcdir/include" "$top_srcdir/tests/embed-so.c" \
		"$lib" -pthread -o "$tmp/$1" 2>"$tmp/$1.err"
}
so libembed-a.so && so libembed-b.so
ok $? "a shared object links lib/libggmlviz.a (-fPIC -shared)"
cat "$tmp"/*.err 2>/dev/null | sed 's/^/# /'
# shellcheck disable=SC2086
$CC ${SAN_FLAGS:-} "$top_srcdir/tests/embed-main.c" -o "$tmp/embed-main" -ldl 2>"$tmp/main.err"
ok $? "the program that loads both builds"

"$tmp/embed-main" "$tmp/libembed-a.so" "$tmp/libembed-b.so" "$tmp/a.ggmlviz" "$tmp/b.ggmlviz" \
	>"$tmp/out" 2>&1
ok $? "two copies of the tracer in one process: the program runs to its end"
sed 's/^/# /' "$tmp/out"
grep -qx 'a: 0' "$tmp/out"
ok $? "the first copy starts"
grep -q '^b: -16 ' "$tmp/out"
ok $? "the second copy is refused with -EBUSY"
grep '^b: ' "$tmp/out" | grep -q "another copy of libggmlviz is tracing this process, in $tmp/libembed-a.so; this copy, in $tmp/libembed-b.so, does not start"
ok $? "the refusal names the copy that traces and the one refused"
grep -qx 'b-again: -16' "$tmp/out"
ok $? "the claim holds after the first copy stopped: one tracer per process"
[ ! -e "$tmp/b.ggmlviz" ]
ok $? "the refused copy wrote no file"
"$ggmlviz" validate "$tmp/a.ggmlviz" >/dev/null 2>&1
ok $? "the first copy's trace is complete"
marks=$("$ggmlviz" dump "$tmp/a.ggmlviz" --format jsonl 2>/dev/null | grep -c '"MARK"')
[ "$marks" = 10 ]
ok $? "it holds the first copy's 10 marks, none of the second's ($marks)"
echo "1..$n"
