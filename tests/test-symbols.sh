#!/bin/sh
# The static library exports nothing but ggmlviz_* names (internal ones are
# ggmlviz__*), and defines every function its public headers declare.
# Its public symbols (and a shared library's, where one is built) change
# only by addition: every one in tests/abi/symbols.txt is still there, of
# the same kind (function or data), and every one there is listed (adding
# one: doc/testing.md, "Public symbols"). Prints TAP.
#
#   test-symbols.sh            the checks
#   test-symbols.sh --update   writes tests/abi/symbols.txt with the symbols
#                              added; refuses while one listed is gone
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
NM=${NM:-nm}
lib="$top_builddir/lib/libggmlviz.a"
list="$top_srcdir/tests/abi/symbols.txt"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# "NAME function|data" for each public symbol defined in nm's output on
# stdin: ggmlviz_* names, and the internal names the public headers use
# (ggmlviz__mask, read by the inline check of the emit macros), which
# programs built against the headers reference as well. AddressSanitizer's
# ODR indicators ("__odr_asan.NAME") are its own, not the library's.
public_symbols() {
	grep -ohw 'ggmlviz__[a-z0-9_]*' "$top_srcdir"/include/ggmlviz/*.h | sort -u >"$tmp/used"
	awk 'NF >= 3 { print $(NF - 1), $NF }' | grep -v ' __odr_asan\.' |
		awk -v used="$tmp/used" '
		BEGIN { while ((getline n < used) > 0) header[n] = 1 }
		($2 ~ /^ggmlviz_[a-z0-9]/ || ($2 in header)) {
			print $2, ($1 ~ /^[TtWi]$/ ? "function" : "data")
		}' | LC_ALL=C sort -u
}

$NM -g --defined-only "$lib" 2>/dev/null | public_symbols >"$tmp/public"
for so in "$top_builddir"/lib/libggmlviz*.so*; do
	[ -f "$so" ] && $NM -D --defined-only "$so" | public_symbols >"$tmp/public-$(basename "$so")"
done

if [ "${1:-}" = --update ]; then
	LC_ALL=C comm -23 "$list" "$tmp/public" >"$tmp/gone"
	if [ -s "$tmp/gone" ]; then
		echo "refused: public symbols of tests/abi/symbols.txt are gone or changed kind" \
			"(a program built against an earlier header uses them; put them back):" >&2
		cat "$tmp/gone" >&2
		exit 1
	fi
	LC_ALL=C comm -13 "$list" "$tmp/public" | sed 's/^/added: /'
	cp "$tmp/public" "$list"
	exit 0
fi

echo "1..5"
if [ -f "$lib" ]; then echo "ok 1 - $lib exists"; else echo "not ok 1 - $lib exists"; exit 1; fi

# Defined, external symbols (T/D/B/R/...; lowercase types are local).
# AddressSanitizer adds an ODR indicator per global, "__odr_asan.NAME":
# the name checked is NAME.
$NM -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sed 's/^__odr_asan\.//' |
	sort -u >"$tmp/exported"
# NVTX3's header-only implementation (lib/tracer/producer/nvtx.c, where its
# headers were found) defines its own globals and functions in each program
# that includes it, weak and hidden, so that every copy in a program is one
# (nvtxLinkOnce.h): nvtx*_vN and InitializeInjectionNvtx2_fnptr, its static
# injection hook. Those are allowed, when they are weak and hidden.
${READELF:-readelf} -sW "$lib" 2>/dev/null |
	awk '$5 == "WEAK" && $6 == "HIDDEN" && $7 != "UND" { print $8 }' |
	grep -E '^(nvtx[A-Za-z0-9_]*_v[0-9]+|InitializeInjectionNvtx2_fnptr)$' | sort -u >"$tmp/nvtx"
grep -v '^ggmlviz_' "$tmp/exported" | comm -23 - "$tmp/nvtx" >"$tmp/foreign"
if [ -s "$tmp/foreign" ]; then
	echo "not ok 2 - every exported symbol starts with ggmlviz_"
	sed 's/^/# exported without the prefix: /' "$tmp/foreign"
	fail=1
else
	echo "ok 2 - every exported symbol starts with ggmlviz_ ($(wc -l <"$tmp/exported") symbols," \
		"$(wc -l <"$tmp/nvtx") of them NVTX's, weak and hidden)"
fi

# Functions the headers declare: "type ggmlviz_name(" at the start of a declaration.
for h in format.h tracer.h reader.h nodes.h; do
	sed -n 's/^[a-z].*[ *]\(ggmlviz_[a-z0-9_]*\)(.*/\1/p' "$top_srcdir/include/ggmlviz/$h"
done | sort -u >"$tmp/declared"
comm -23 "$tmp/declared" "$tmp/exported" >"$tmp/missing"
if [ -s "$tmp/missing" ]; then
	echo "not ok 3 - every declared function is defined"
	sed 's/^/# declared but not defined: /' "$tmp/missing"
	fail=1
else
	echo "ok 3 - every declared function is defined ($(wc -l <"$tmp/declared") functions)"
fi

# Only additions: each library's public symbols against the list.
: >"$tmp/gone"
: >"$tmp/unlisted"
for f in "$tmp"/public*; do
	what=${f##*/public}
	what=${what#-}
	LC_ALL=C comm -23 "$list" "$f" | sed "s|\$| (${what:-libggmlviz.a})|" >>"$tmp/gone"
	LC_ALL=C comm -13 "$list" "$f" | sed "s|\$| (${what:-libggmlviz.a})|" >>"$tmp/unlisted"
done
n_listed=$(wc -l <"$list")
if [ -s "$tmp/gone" ]; then
	echo "not ok 4 - no public symbol of tests/abi/symbols.txt is gone, renamed or of another kind"
	echo "# a program built against an earlier header uses these: keep them (a new name is an addition)"
	sed 's/^/# gone: /' "$tmp/gone"
	fail=1
else
	echo "ok 4 - every public symbol of tests/abi/symbols.txt is still there, of its kind ($n_listed)"
fi
if [ -s "$tmp/unlisted" ]; then
	echo "not ok 5 - every public symbol is in tests/abi/symbols.txt"
	echo "# new public symbols are additions to the ABI, for ever: list them with"
	echo "# 'make update-symbols' (doc/testing.md, \"Public symbols\")"
	sed 's/^/# not listed: /' "$tmp/unlisted"
	fail=1
else
	echo "ok 5 - every public symbol is in tests/abi/symbols.txt"
fi
exit $fail
