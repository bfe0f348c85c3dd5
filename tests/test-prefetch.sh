#!/bin/sh
# The node engine's prefetches are in the library as built. They are its
# answer to a miss per node on every step: ahead() in each ask
# (lib/tracer/producer/nodes.c), names_ahead() in each of the four loops
# that record a run's ops (lib/tracer/producer/run-records.c); and a
# compiler may drop them without a word: GCC 12 removed every call to a
# function whose only effect was a prefetch, which no other test can see
# (a prefetch changes no result). Checked in the disassembly of the
# archive's members built from those files: at least one in
# ggmlviz_nodes_ask (ahead(), always inlined there), and at least two for
# each recording loop (a name's two cache lines) in run-records.c's; and
# others_ahead() (lib/tracer/producer/shares.c), two in shares.c's (a
# worker's begin and end lines), inlined or not.
# Prints TAP; skips where objdump is missing or the processor's prefetch
# instruction is not known here.
top_builddir=${top_builddir:-.}
OBJDUMP=${OBJDUMP:-objdump}
lib="$top_builddir/lib/libggmlviz.a"

echo "1..3"
if ! command -v "$OBJDUMP" >/dev/null 2>&1; then
	echo "ok 1 # SKIP no $OBJDUMP"
	echo "ok 2 # SKIP no $OBJDUMP"
	echo "ok 3 # SKIP no $OBJDUMP"
	exit 0
fi
case $(uname -m) in
x86_64 | i?86) insn='prefetch' ;;
aarch64) insn='prfm' ;;
*)
	echo "ok 1 # SKIP the prefetch instruction of $(uname -m) is not known here"
	echo "ok 2 # SKIP the prefetch instruction of $(uname -m) is not known here"
	echo "ok 3 # SKIP the prefetch instruction of $(uname -m) is not known here"
	exit 0
	;;
esac
# "ASK RECORDS SHARES": prefetches in ggmlviz_nodes_ask, in run-records.c's member,
# and in shares.c's
counts=$("$OBJDUMP" -d "$lib" 2>/dev/null | awk -v insn="$insn" '
	/file format/ {
		member = ($1 ~ /-nodes\.o:$/) ? "nodes" : ($1 ~ /-run-records\.o:$/) ? "records" \
			: ($1 ~ /-shares\.o:$/) ? "shares" : ""
	}
	member != "" && /^[0-9a-f]+ <.*>:$/ { fn = $2 }
	member != "" && $0 ~ "\t" insn {
		if (member == "records") all++
		else if (member == "shares") in_shares++
		else if (fn == "<ggmlviz_nodes_ask>:") ask++
	}
	END { print ask + 0, all + 0, in_shares + 0 }')
set -- $counts
ask=$1 all=$2 in_shares=$3
fail=0
if [ "$ask" -ge 1 ]; then
	echo "ok 1 - ahead()'s prefetch is in ggmlviz_nodes_ask ($ask $insn instructions)"
else
	echo "not ok 1 - ahead()'s prefetch is in ggmlviz_nodes_ask: none"
	fail=1
fi
if [ "$all" -ge 8 ]; then
	echo "ok 2 - names_ahead()'s prefetches are in run-records.c's code ($all $insn instructions)"
else
	echo "not ok 2 - names_ahead()'s prefetches are in run-records.c's code: $all $insn instructions, at least 8 expected"
	fail=1
fi
if [ "$in_shares" -ge 2 ]; then
	echo "ok 3 - others_ahead()'s prefetches are in shares.c's code ($in_shares $insn instructions)"
else
	echo "not ok 3 - others_ahead()'s prefetches are in shares.c's code: $in_shares $insn instructions, at least 2 expected"
	fail=1
fi
[ "$fail" = 0 ] ||
	echo "# the compiler dropped them: see the comments above ahead() in lib/tracer/producer/nodes.c, names_ahead() in run-records.c and others_ahead() in shares.c"
exit $fail
