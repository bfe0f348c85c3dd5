#!/bin/sh
# The static library exports nothing but ggmlviz_* names (internal ones are
# ggmlviz__*), and defines every function its public headers declare.
# Prints TAP.
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
NM=${NM:-nm}
lib="$top_builddir/lib/libggmlviz.a"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

echo "1..3"
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
exit $fail
