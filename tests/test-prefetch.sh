#!/bin/sh
# The node engine's prefetches are in the library as built. They are its
# answer to a miss per node on every step (lib/tracer/producer/nodes.c:
# ahead(), names_ahead()), and a compiler may drop them without a word:
# GCC 12 removed every call to a function whose only effect was a
# prefetch, which no other test can see (a prefetch changes no result).
# Prints TAP; skips where objdump is missing or the processor's prefetch
# instruction is not known here.
top_builddir=${top_builddir:-.}
OBJDUMP=${OBJDUMP:-objdump}
lib="$top_builddir/lib/libggmlviz.a"

echo "1..1"
if ! command -v "$OBJDUMP" >/dev/null 2>&1; then
	echo "ok 1 # SKIP no $OBJDUMP"
	exit 0
fi
case $(uname -m) in
x86_64 | i?86) insn='prefetch' ;;
aarch64) insn='prfm' ;;
*)
	echo "ok 1 # SKIP the prefetch instruction of $(uname -m) is not known here"
	exit 0
	;;
esac
# The disassembly of the archive's member built from nodes.c, until the next member.
count=$("$OBJDUMP" -d "$lib" 2>/dev/null | awk -v insn="$insn" '
	/file format/ { inside = ($1 ~ /-nodes\.o:$/) }
	inside && $0 ~ "\t" insn { n++ }
	END { print n + 0 }')
# one in ahead(), and names_ahead() in two loops (three each, as GCC 12 builds them)
if [ "$count" -ge 3 ]; then
	echo "ok 1 - nodes.c's prefetches are in $lib ($count $insn instructions)"
else
	echo "not ok 1 - nodes.c's prefetches are in $lib: $count $insn instructions, at least 3 expected"
	echo "# the compiler dropped them: see the comment above ahead() in lib/tracer/producer/nodes.c"
	exit 1
fi
