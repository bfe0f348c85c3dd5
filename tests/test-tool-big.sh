#!/bin/sh
# The ggmlviz command streams (TAP): on traces of about 30, 100 and 300 MB,
# every subcommand keeps its peak memory flat. Two figures per run, from
# tests/peak-rss: the peak of anonymous memory (heap, stacks: what a
# command that held events would grow), which must not grow from 30 to 300
# MB; and the peak resident set, which also counts the pages of the mapped
# trace: the reader gives those back every 32 MiB read, so a trace smaller
# than that is resident whole, and the flat comparison starts at 100 MB.
# The figures are printed as TAP diagnostics. Also: the progress line on a
# terminal, and the size warning of export.
#
# SPDX-License-Identifier: MIT

set -u
top_builddir=${top_builddir:-.}
G=$top_builddir/tools/ggmlviz
GEN=$top_builddir/tests/gen-trace
PEAK=$top_builddir/tests/peak-rss
SLACK_KIB=16384
. "$(dirname "$0")/tap.sh"

# AddressSanitizer keeps freed memory in quarantine (its memory grows with
# the number of frees by design), and slows everything down 3-10 times.
skip_if_sanitized "$G"
# configure looks for python3 and scripts/install-deps.sh installs it: a
# machine without it fails here rather than skip the checks.
PYTHON3=${PYTHON3:-python3}
if ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - python3 is needed to check the outputs (apt-get install python3)"
	exit 0
fi
python3() { "$PYTHON3" "$@"; }
if [ ! -r /proc/self/status ]; then
	echo "1..0 # SKIP no /proc: the peak of anonymous memory cannot be read"
	exit 0
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-big.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT PIPE TERM

SIZES="30 100 300"
for mb in $SIZES; do
	"$GEN" --size-mb "$mb" "$T/$mb.ggmlviz" >"$T/$mb.gen" || echo "# gen-trace failed"
done

COMMANDS="stats|stats --by name|info|mem|validate|export -o /dev/null|dump -f jsonl|diff"

# measure NAME MB ARGS...: runs ggmlviz ARGS on the MB trace; figures in $T/NAME-MB.rss
measure() {
	name=$1 mb=$2
	shift 2
	start=$(date +%s%N)
	"$PEAK" "$T/$name-$mb.rss" "$G" "$@" >/dev/null 2>"$T/$name-$mb.err"
	echo $? >"$T/$name-$mb.status"
	end=$(date +%s%N)
	echo "elapsed_ms=$(((end - start) / 1000000))" >>"$T/$name-$mb.rss"
}

figure() { tr ' ' '\n' <"$T/$1-$2.rss" | sed -n "s/^$3=//p"; }

# compare NAME CMD: the checks of one command over the sizes.
compare() {
	status=0
	for mb in $SIZES; do
		[ "$(cat "$T/$1-$mb.status")" -eq 0 ] || status=1
	done
	ok $status "$2: exit status 0 on every size"
	a30=$(figure "$1" 30 anon_kib)
	a300=$(figure "$1" 300 anon_kib)
	[ "$a30" -gt 0 ] && [ "$a300" -le $((a30 + SLACK_KIB)) ]
	ok $? "$2: anonymous memory flat from 30 to 300 MB ($a30 -> $a300 KiB)"
	r100=$(figure "$1" 100 maxrss_kib)
	r300=$(figure "$1" 300 maxrss_kib)
	[ "$r300" -le $((r100 + SLACK_KIB)) ]
	ok $? "$2: peak RSS flat from 100 to 300 MB ($r100 -> $r300 KiB)"
}

while IFS='|' read -r name cmd; do
	for mb in $SIZES; do
		f=$T/$mb.ggmlviz
		case $cmd in
		diff) measure "$name" "$mb" diff "$f" "$f" ;;
		*) measure "$name" "$mb" $cmd "$f" ;;
		esac
		echo "# ggmlviz $cmd on $mb MB: peak RSS $(figure "$name" "$mb" maxrss_kib) KiB," \
			"peak anonymous $(figure "$name" "$mb" anon_kib) KiB," \
			"$(figure "$name" "$mb" elapsed_ms) ms"
	done
	compare "$name" "$cmd"
done <<EOF
stats|stats
name|stats --by name
info|info
mem|mem
validate|validate
export|export -o /dev/null
perfetto|export -f perfetto -o /dev/null
dump|dump -f jsonl
diff|diff
merge|merge -o /dev/null
EOF

# The figures mean something only if growth would show: a run that holds
# what it reads must fail the comparison above.
"$PEAK" "$T/hold.rss" python3 -c "x = b'x' * (64 << 20)"
grown=$(tr ' ' '\n' <"$T/hold.rss" | sed -n 's/^anon_kib=//p')
[ "$grown" -gt $((SLACK_KIB * 2)) ]
ok $? "the measurement sees a process that holds 64 MiB ($grown KiB anonymous)"

# gen-trace: 9 ops a graph (2 layers of 4, and result_output), 3 more in graph 0
graphs=$(sed -n 's/^graphs=//p' "$T/300.gen")
"$G" stats -f json "$T/300.ggmlviz" >"$T/stats.json"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(d['ops'] != int(sys.argv[2]) * 9 + 3 or d['graphs'] != int(sys.argv[2]))
" "$T/stats.json" "$graphs" 2>/dev/null
ok $? "stats on 300 MB: every op of the $graphs graphs counted"

grep -q "holds .* of JSON: chrome://tracing cannot load more than 256 MiB" \
	"$T/export-300.err"
ok $? "export warns when its JSON is too big for a browser viewer"
[ ! -s "$T/export-30.err" ]
ok $? "export of 30 MB: no warning, nothing on stderr"

# Perfetto's protobuf against the JSON of the same 300 MB trace, both streamed.
json_bytes=$("$G" export "$T/300.ggmlviz" -o - 2>/dev/null | wc -c)
pf_bytes=$("$G" export -f perfetto "$T/300.ggmlviz" -o - 2>/dev/null | wc -c)
ratio=$(awk -v j="$json_bytes" -v p="$pf_bytes" 'BEGIN { printf "%.2f", p ? j / p : 0 }')
echo "# export of 300 MB: JSON $json_bytes bytes, Perfetto $pf_bytes bytes: ${ratio}x smaller"
[ "$pf_bytes" -gt 0 ] && [ $((pf_bytes * 5)) -le $((json_bytes * 2)) ]
ok $? "export -f perfetto of 300 MB: at least 2.5x smaller than its JSON (${ratio}x)"

if command -v script >/dev/null 2>&1; then
	script -qec "'$G' dump -f jsonl '$T/300.ggmlviz' 2>&1 >/dev/null" /dev/null >"$T/tty.txt"
	grep -q "% of 300 MiB" "$T/tty.txt" && grep -q "$(printf '\033\\[K')" "$T/tty.txt"
	ok $? "a progress line on a terminal, erased at the end"
	[ ! -s "$T/dump-300.err" ]
	ok $? "no progress line when stderr is not a terminal"
else
	echo "ok $((n + 1)) # SKIP script(1) is needed for a terminal"
	n=$((n + 1))
fi

echo "1..$n"
