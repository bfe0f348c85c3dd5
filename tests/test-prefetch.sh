#!/bin/sh
# The node engine's prefetches are in the library as built. They are its
# answer to a miss per node on every step (lib/tracer/producer/nodes.c:
# ahead() in each ask, names_ahead() in each of the four loops that record
# a run's ops), and a compiler may drop them without a word: GCC 12
# removed every call to a function whose only effect was a prefetch,
# which no other test can see (a prefetch changes no result). Checked in
# the disassembly of the archive's member built from nodes.c: at least one
# in ggmlviz_nodes_ask (ahead(), always inlined there), and at least two
# for each recording loop (a name's two cache lines) in all.
# Prints TAP; skips where objdump is missing or the processor's prefetch
# instruction is not known here.
top_builddir=${top_builddir:-.}
OBJDUMP=${OBJDUMP:-objdump}
lib="$top_builddir/lib/libggmlviz.a"

echo "1..2"
if ! command -v "$OBJDUMP" >/dev/null 2>&1; then
	echo "ok 1 # SKIP no $OBJDUMP"
	echo "ok 2 # SKIP no $OBJDUMP"
	exit 0
fi
case $(uname -m) in
x86_64 | i?86) insn='prefetch' ;;
aarch64) insn='prfm' ;;
*)
	echo "ok 1 # SKIP the prefetch instruction of $(uname -m) is not known here"
	echo "ok 2 # SKIP the prefetch instruction of $(uname -m) is not known here"
	exit 0
	;;
esac
# "ASK ALL": prefetches in ggmlviz_nodes_ask, and in the whole member
counts=$("$OBJDUMP" -d "$lib" 2>/dev/null | awk -v insn="$insn" '
	/file format/ { inside = ($1 ~ /-nodes\.o:$/) }
	inside && /^[0-9a-f]+ <.*>:$/ { fn = $2 }
	inside && $0 ~ "\t" insn { all++; if (fn == "<ggmlviz_nodes_ask>:") ask++ }
	END { print ask + 0, all + 0 }')
ask=${counts% *}
all=${counts#* }
fail=0
if [ "$ask" -ge 1 ]; then
	echo "ok 1 - ahead()'s prefetch is in ggmlviz_nodes_ask ($ask $insn instructions)"
else
	echo "not ok 1 - ahead()'s prefetch is in ggmlviz_nodes_ask: none"
	fail=1
fi
if [ "$all" -ge 9 ]; then
	echo "ok 2 - names_ahead()'s prefetches are in nodes.c's code ($all $insn instructions in all)"
else
	echo "not ok 2 - names_ahead()'s prefetches are in nodes.c's code: $all $insn instructions, at least 9 expected"
	fail=1
fi
[ "$fail" = 0 ] ||
	echo "# the compiler dropped them: see the comment above names_ahead() in lib/tracer/producer/nodes.c"
exit $fail
