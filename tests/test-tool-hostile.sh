#!/bin/sh
# The ggmlviz command on traces made to exhaust its memory (TAP): a million
# begins that never end, a million threads, a million thread names, names
# of 1 MiB, a million op types, more than a million live allocations. Each
# command must finish (exit 0 or 1, no signal), stay under 128 MiB of peak
# resident memory, and say what it left out. Skipped under sanitizers,
# whose own memory would be measured.
#
# SPDX-License-Identifier: MIT
set -u
top_builddir=${top_builddir:-.}
G=$top_builddir/tools/ggmlviz
GEN=$top_builddir/tests/gen-hostile
RSS=$top_builddir/tests/peak-rss
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-hostile.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/tap.sh"
LIMIT_KIB=131072

skip_if_sanitized "$G"

# bounded NAME COMMAND...: exit 0 or 1, under the limit; output in $T/NAME.out.
bounded() {
	name=$1
	shift
	"$RSS" "$T/$name.rss" "$@" >"$T/$name.out" 2>"$T/$name.err"
	status=$?
	[ "$status" -le 1 ]
	ok $? "$name: finishes (exit $status)"
	kib=$(sed -n 's/^maxrss_kib=\([0-9]*\).*/\1/p' "$T/$name.rss")
	[ "${kib:-999999999}" -lt "$LIMIT_KIB" ]
	ok $? "$name: peak memory ${kib:-?} KiB, under 128 MiB"
}

# says NAME TEXT DESCRIPTION: the output holds TEXT.
says() {
	grep -qF -- "$2" "$T/$1.out"
	ok $? "$3"
	grep -qF -- "$2" "$T/$1.out" || head -5 "$T/$1.out" | sed 's/^/# /'
}

"$GEN" begins 1000000 "$T/begins.ggmlviz"
for c in info stats export advise; do
	case $c in export) set -- export "$T/begins.ggmlviz" -o /dev/null ;; *) set -- "$c" "$T/begins.ggmlviz" ;; esac
	bounded "begins-$c" "$G" "$@"
done
says begins-info "begins not followed: 65536 were open at once" \
	"info: says how many begins were not followed"

"$GEN" threads 1000000 "$T/threads.ggmlviz"
bounded threads-info "$G" info "$T/threads.ggmlviz"
says threads-info "records of more threads, not listed" "info: says threads were left out"
bounded threads-stats "$G" stats --by thread "$T/threads.ggmlviz"
bounded threads-advise "$G" advise "$T/threads.ggmlviz"
bounded threads-export "$G" export "$T/threads.ggmlviz" -o /dev/null
bounded threads-perfetto "$G" export -f perfetto "$T/threads.ggmlviz" -o /dev/null
grep -q "more than 65536 threads and counters" "$T/threads-perfetto.err"
ok $? "export -f perfetto: says the threads past 65536 share one track"
bounded threads-speedscope "$G" export -f speedscope "$T/threads.ggmlviz" -o /dev/null

"$GEN" names 1000000 "$T/names.ggmlviz"
bounded names-info "$G" info "$T/names.ggmlviz"
bounded names-export "$G" export "$T/names.ggmlviz" -o /dev/null
bounded names-dump "$G" dump -f jsonl "$T/names.ggmlviz"

"$GEN" big 150 "$T/big.ggmlviz"
bounded big-info "$G" info "$T/big.ggmlviz"
bounded big-dump "$G" dump "$T/big.ggmlviz"

"$GEN" ops 1000000 "$T/ops.ggmlviz"
bounded ops-stats "$G" stats -f json "$T/ops.ggmlviz"
bounded ops-parts "$G" stats --by part "$T/ops.ggmlviz"
bounded ops-advise "$G" advise "$T/ops.ggmlviz"
says ops-stats '"name":"(other groups)"' "stats: groups past 65536 are one (other groups)"
bounded ops-perfetto "$G" export -f perfetto "$T/ops.ggmlviz" -o /dev/null
bounded ops-speedscope "$G" export -f speedscope "$T/ops.ggmlviz" -o -
says ops-speedscope '{"name":"(other names)"}' \
	"export -f speedscope: names past 65535 share one frame, the known ones keep theirs"
bounded ops-diff "$G" diff "$T/ops.ggmlviz" "$T/ops.ggmlviz"

"$GEN" allocs 1200000 "$T/allocs.ggmlviz"
bounded allocs-mem "$G" mem "$T/allocs.ggmlviz"
bounded allocs-info "$G" info "$T/allocs.ggmlviz"
says allocs-info "allocations past the 65536 live ones followed" \
	"info: memory by device follows 65536 live allocations, and says how many more"
bounded allocs-advise "$G" advise "$T/allocs.ggmlviz"
says allocs-mem "allocations not followed" "mem: says allocations were not followed"

# a pipe: copied to a file, not read into memory
bounded pipe-stats sh -c "cat '$T/begins.ggmlviz' | '$G' stats /dev/stdin"

echo "1..$n"
