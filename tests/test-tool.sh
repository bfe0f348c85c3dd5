#!/bin/sh
# Tests of the ggmlviz command (TAP): every subcommand on traces of known
# contents written by tests/gen-trace, on damaged and truncated traces, and
# on bad command lines. tests/tool-model.py computes what the outputs must
# hold from the same model as gen-trace, and parses every JSON output
# strictly.
#
# SPDX-License-Identifier: MIT

set -u
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
G=$top_builddir/tools/ggmlviz
GEN=$top_builddir/tests/gen-trace
MODEL=$top_srcdir/tests/tool-model.py
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-test.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT
trap 'exit 1' HUP INT PIPE TERM
. "$(dirname "$0")/tap.sh"

# configure looks for python3 and scripts/install-deps.sh installs it: a
# machine without it fails here rather than skip the checks.
PYTHON3=${PYTHON3:-python3}
if ! command -v "$PYTHON3" >/dev/null 2>&1; then
	echo "1..1"
	echo "not ok 1 - python3 is needed to check the outputs (apt-get install python3)"
	exit 0
fi
python3() { "$PYTHON3" "$@"; }

# ok STATUS DESCRIPTION: one TAP result (STATUS 0 passes).
# run EXPECTED_STATUS NAME COMMAND...: runs it with stdout in $T/NAME.out and
# stderr in $T/NAME.err, and checks its exit status.
run() {
	want=$1 name=$2
	shift 2
	"$@" >"$T/$name.out" 2>"$T/$name.err"
	got=$?
	[ "$got" -eq "$want" ]
	ok $? "$name: exit status $want"
	[ "$got" -eq "$want" ] || { echo "# got $got"; sed 's/^/# /' "$T/$name.err" | head -5; }
}

# has NAME.STREAM TEXT DESCRIPTION: the output holds TEXT (fixed string).
has() {
	grep -qF -- "$2" "$T/$1"
	ok $? "$3"
	grep -qF -- "$2" "$T/$1" || { echo "# no '$2' in $1:"; head -5 "$T/$1" | sed 's/^/# /'; }
}

# empty NAME.STREAM DESCRIPTION
empty() {
	[ ! -s "$T/$1" ]
	ok $? "$2"
	[ ! -s "$T/$1" ] || head -3 "$T/$1" | sed 's/^/# /'
}

# model CHECK [OPTIONS] FILE: the model's checks, numbered here.
model() {
	python3 "$MODEL" "$@" >"$T/model.txt" 2>&1
	status=$?
	while IFS= read -r line; do
		case $line in
		"ok - "*) ok 0 "${line#ok - }" ;;
		"not ok - "*) ok 1 "${line#not ok - }" ;;
		*) echo "# $line" ;;
		esac
	done <"$T/model.txt"
	[ "$status" -le 1 ] || ok 1 "tool-model.py $1 ran (status $status)"
}

# json FILE DESCRIPTION: FILE is strict JSON (or JSON Lines with --lines).
json() {
	python3 - "$@" <<'EOF'
import json, sys
def bad(name): raise ValueError(name)
raw = open(sys.argv[1], 'rb').read().decode('utf-8')
docs = raw.splitlines() if sys.argv[2:] == ['--lines'] else [raw]
for d in docs:
    json.loads(d, parse_constant=bad)
EOF
}

gen() {
	"$GEN" "$@" >"$T/gen.txt" || echo "# gen-trace $* failed"
}

value() { sed -n "s/^$1=//p" "$T/gen.txt"; }

BASIC="--unknown"
gen $BASIC "$T/basic.ggmlviz"
BASIC_RECORDS=$(value records)
BASIC_END=$(value last_record_offset)

# ---- the command line ----
run 0 help "$G" --help
has help.out "Usage: ggmlviz COMMAND" "--help shows the usage"
run 0 version "$G" --version
version=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
has version.out "ggmlviz $version " "--version shows the version of the build ($version)"
run 2 no-command "$G"
run 2 bad-command "$G" frob
has bad-command.err "'frob' is not a command" "an unknown command is named"
for cmd in info dump stats export diff mem merge validate; do
	run 0 "help-$cmd" "$G" "$cmd" --help
	has "help-$cmd.out" "Usage: ggmlviz $cmd" "$cmd --help shows its usage"
	run 2 "bad-option-$cmd" "$G" "$cmd" --bogus "$T/basic.ggmlviz"
	has "bad-option-$cmd.err" "unknown or ambiguous option '--bogus'" \
		"$cmd names a bad option"
done
run 2 no-file "$G" stats
has no-file.err "no FILE given" "a missing FILE is reported"
run 2 extra-file "$G" info "$T/basic.ggmlviz" "$T/basic.ggmlviz"
run 2 bad-by "$G" stats --by colour "$T/basic.ggmlviz"
has bad-by.err "--by: 'colour' is not one of op, name, layer, thread, backend" \
	"a bad --by value is named with the choices"
run 2 bad-top "$G" stats --top -3 "$T/basic.ggmlviz"
run 2 bad-format "$G" dump --format xml "$T/basic.ggmlviz"
run 2 bad-duration "$G" dump --from 3parsecs "$T/basic.ggmlviz"
has bad-duration.err "--from: '3parsecs' is not a duration" "a bad duration is named"
run 2 from-after-to "$G" dump --from 2ms --to 1ms "$T/basic.ggmlviz"
run 2 bad-type "$G" dump --type frob "$T/basic.ggmlviz"
run 2 bad-points "$G" mem --points 0 "$T/basic.ggmlviz"
run 2 export-no-output "$G" export "$T/basic.ggmlviz"
run 2 export-onto-input "$G" export "$T/basic.ggmlviz" -o "$T/basic.ggmlviz"
run 0 input-intact "$G" validate -q "$T/basic.ggmlviz"

# ---- info ----
run 0 info "$G" info "$T/basic.ggmlviz"
empty info.err "info: nothing on stderr"
has info.out "clock:      not said (a writer older than META CLOCK)" \
	"info: a trace of META records but no CLOCK says the clock is not said"
# ops of a REPEAT run whose set the reader does not have: counted
"$GEN" --undescribed "$T/undescribed.ggmlviz" >/dev/null
run 0 info-undescribed "$G" info "$T/undescribed.ggmlviz"
has info-undescribed.out "  2 ops of those runs left without their descriptions" \
	"info: says how many ops of REPEAT runs were left without their descriptions"
# a trace the tracer wrote (examples/threads) says its clock
"$top_builddir/examples/threads" "$T/threads.ggmlviz" >/dev/null 2>&1
run 0 info-threads "$G" info "$T/threads.ggmlviz"
grep -Eq "^clock:      (the CPU's invariant time-stamp counter, [0-9.]+ GHz|clock_gettime\(CLOCK_MONOTONIC\))" \
	"$T/info-threads.out"
ok $? "info: says which clock stamped the tracer's records (META CLOCK)"
grep '^clock:' "$T/info-threads.out" | sed 's/^/# /'
model info --trace="$BASIC" "$T/info.out"

# ---- dump ----
run 0 dump-jsonl "$G" dump -f jsonl "$T/basic.ggmlviz"
model dump --trace="$BASIC" "$T/dump-jsonl.out"
run 0 dump-text "$G" dump "$T/basic.ggmlviz"
[ "$(wc -l <"$T/dump-text.out")" -eq "$BASIC_RECORDS" ]
ok $? "dump: one line per record"
has dump-text.out 'label="we\"ird\\\n\t\x01\x7f\xff' \
	"dump: a label's quotes, controls and invalid bytes are escaped in text"
run 0 dump-ops "$G" dump -f jsonl --type op "$T/basic.ggmlviz"
model dump --trace="$BASIC" --types 2,3 "$T/dump-ops.out"
run 0 dump-types "$G" dump -f jsonl -t OP_INFO,mark -t 200 "$T/basic.ggmlviz"
model dump --trace="$BASIC" --types 14,10,200 "$T/dump-types.out"
run 0 dump-thread "$G" dump -f jsonl --thread worker-1 "$T/basic.ggmlviz"
model dump --trace="$BASIC" --tids 1002 "$T/dump-thread.out"
run 0 dump-window "$G" dump -f jsonl --from 44.66us --to 0.1ms -T 1001,1002 "$T/basic.ggmlviz"
model dump --trace="$BASIC" --window 44660,100000 "$T/dump-window.out"
run 0 dump-anon "$G" dump -f jsonl --anonymize "$T/basic.ggmlviz"
! grep -q '"0x6000"\|"0xb1"\|"0x900000"' "$T/dump-anon.out"
ok $? "dump --anonymize: no address of the trace is left"
has dump-anon.out '"key":"0x1"' "dump --anonymize: the first address seen (a BACKEND_NAME's) is id 0x1"
has dump-anon.out '"backend_name":"CUDA0"' "dump --anonymize: a backend keeps its name"
[ "$(grep -c '"type":"UNKNOWN"' "$T/dump-anon.out")" -eq 1 ] && ! grep -q '"payload"' "$T/dump-anon.out"
ok $? "dump --anonymize: a record of unknown type without its raw payload"

# ---- stats ----
for by in op name layer thread backend; do
	run 0 "stats-$by" "$G" stats -f json --by "$by" "$T/basic.ggmlviz"
	model stats --trace="$BASIC" --by "$by" "$T/stats-$by.out"
done
run 0 stats-csv "$G" stats -f csv --by name "$T/basic.ggmlviz"
model stats-csv --trace="$BASIC" --by name "$T/stats-csv.out"
run 0 stats-text "$G" stats "$T/basic.ggmlviz"
has stats-text.out "OP        COUNT" "stats: a text table"
grep -qE '^MUL_MAT +12 +300\.000 us +25\.000 us +10\.000 us .* 71\.2% +200\.0 +-$' \
	"$T/stats-text.out"
ok $? "stats: the MUL_MAT row (12 ops, 300 of 421.5 us, mean 25 us, 200 GFLOP/s)"
run 0 stats-top "$G" stats -f json --top 2 --sort count "$T/basic.ggmlviz"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not ([g['name'] for g in d['groups']] == ['MUL_MAT', 'ADD'] and
              d['groups_not_shown'] == 4))" "$T/stats-top.out"
ok $? "stats: --sort count --top 2 keeps the 2 biggest counts (ties by name)"
# --top N: the N biggest whatever --by, layers and steps too (they are in order without it)
run 0 stats-layer-top "$G" stats -f json --by layer --top 2 "$T/basic.ggmlviz"
run 0 stats-layer-all "$G" stats -f json --by layer "$T/basic.ggmlviz"
run 0 stats-layer-first "$G" stats -f json --by layer --top 2 --sort order "$T/basic.ggmlviz"
python3 -c "
import json, sys
top, every, first = (json.load(open(p)) for p in sys.argv[1:4])
by_total = sorted(every['groups'], key=lambda g: -g['total_ns'])
sys.exit(not ([g['name'] for g in top['groups']] == [g['name'] for g in by_total[:2]] and
              [g['name'] for g in every['groups']] == ['(none)', '0', '1', '3'] and
              [g['name'] for g in by_total[:2]] != ['(none)', '0'] and
              [g['name'] for g in first['groups']] == ['(none)', '0'] and top['groups_not_shown'] == 2))" \
	"$T/stats-layer-top.out" "$T/stats-layer-all.out" "$T/stats-layer-first.out"
ok $? "stats --by layer --top 2: the 2 biggest layers, not the first 2 (--sort order: the first 2)"
run 0 stats-name "$G" stats -f json --by layer --sort name "$T/basic.ggmlviz"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit([g['name'] for g in d['groups']] != ['(none)', '0', '1', '3'])" "$T/stats-name.out"
ok $? "stats: --sort name"
# the steps' own time falls as their ops' rises (gen-trace --steps): total sorts by the TIME column
gen --steps --graphs 4 "$T/steps.ggmlviz"
run 0 stats-steps "$G" stats -f json --by step --sort total "$T/steps.ggmlviz"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
ns = [g['step_ns'] for g in d['groups']]
sys.exit(not (len(ns) == 4 and ns == sorted(ns, reverse=True) and
              [g['total_ns'] for g in d['groups']] != sorted([g['total_ns'] for g in d['groups']],
                                                             reverse=True)))" "$T/stats-steps.out"
ok $? "stats --by step --sort total: the slowest steps first (their TIME, not their op time)"
# a first step that ran cold (gen-trace --cold 4: step 1's layer 0 ops took 4 times
# their time): its part of the first step (64 of 112.7 us) against its part of the
# later steps (25%) is said, and not where every step is alike
gen --layers 4 --steps --graphs 4 --cold 4 "$T/cold.ggmlviz"
gen --layers 4 --steps --graphs 4 "$T/warm.ggmlviz"
run 0 stats-cold "$G" stats --by layer "$T/cold.ggmlviz"
has stats-cold.out "(layer 0 took 56.8% of the op time of step 1, the first (64.000 us), and 25.0% of the later steps': 35.825 us more than that part, most likely the first step running cold" \
	"stats --by layer: a first step that ran cold is said, with its layer's parts"
run 0 stats-cold-json "$G" stats -f json --by layer "$T/cold.ggmlviz"
python3 -c "
import json, sys
c = json.load(open(sys.argv[1]))['cold_first_step']
sys.exit(not (c['step'] == 1 and c['layer'] == 0 and c['ns'] == 64000 and
              c['layers_ns'] == 112700 and c['later_share'] == 0.25 and c['excess_ns'] == 35825))" \
	"$T/stats-cold-json.out"
ok $? "stats -f json --by layer: cold_first_step gives the step, its layer, their times and parts"
run 0 stats-warm "$G" stats --by layer "$T/warm.ggmlviz"
run 0 stats-warm-json "$G" stats -f json --by layer "$T/warm.ggmlviz"
! grep -q "running cold" "$T/stats-warm.out" && grep -q '"cold_first_step":null' "$T/stats-warm-json.out"
ok $? "stats --by layer: steps alike say nothing of a cold start (cold_first_step null)"
run 0 stats-cold-prompt "$G" stats -f json --by layer --phase prompt "$T/cold.ggmlviz"
grep -q '"cold_first_step":null' "$T/stats-cold-prompt.out"
ok $? "stats --by layer --phase prompt: a cold first step of another phase is not in the view"
# --steps: only those steps, and what ran in them; a cold first step left out
run 0 stats-steps-range "$G" stats -f json --by step --steps 2-3 "$T/steps.ggmlviz"
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(not ([g['name'] for g in d['groups']] == ['2', '3'] and
              d['step_range'] == {'first': 2, 'last': 3} and d['steps'] == 2))" \
	"$T/stats-steps-range.out"
ok $? "stats --steps 2-3: steps 2 and 3 only, said in step_range"
run 0 stats-steps-all "$G" stats -f json "$T/steps.ggmlviz"
run 0 stats-steps-one "$G" stats -f json --steps 2 "$T/steps.ggmlviz"
python3 -c "
import json, sys
every, one = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(not (every['step_range'] is None and one['step_range'] == {'first': 2, 'last': 2} and
              0 < one['ops'] < every['ops'] and one['steps'] == 1))" \
	"$T/stats-steps-all.out" "$T/stats-steps-one.out"
ok $? "stats --steps 2: one step's ops, fewer than every step's (step_range null without it)"
# report --steps: what meets the steps' time is drawn, as export --steps keeps it, what
# began before the first one too (gen-trace's scope "decode" begins 5 ns before its step)
run 0 report-steps "$G" report --steps 2-3 "$T/steps.ggmlviz" -o "$T/report-steps.html"
python3 -c "
import json, sys
page = open(sys.argv[1], encoding='utf-8').read()
d = json.loads(page.split('<script id=\"data\" type=\"application/json\">', 1)[1]
               .split('</script>', 1)[0])
span = d['summary']['span_ns']
kinds = lambda k: sorted(s[3] for s in d['slices'] if s[0] == k)
scopes, steps = kinds(3), kinds(4)
sys.exit(not (len(steps) == 2 and steps[0] == 0 and len(scopes) == 2 and scopes[0] == -5 and
              0 < scopes[1] < span and
              all(s[3] + s[4] >= 0 and s[3] <= span for s in d['slices'])))" \
	"$T/report-steps.html"
ok $? "report --steps 2-3: the scopes of both steps drawn, the one begun 5 ns before the first step too"
run 0 stats-cold-skipped "$G" stats --by layer --steps 2- "$T/cold.ggmlviz"
has stats-cold-skipped.out "cold.ggmlviz (steps 2 on): " "stats --steps 2-: the first line names the steps"
! grep -q "running cold" "$T/stats-cold-skipped.out"
ok $? "stats --by layer --steps 2-: the cold first step left out, and not said"
has stats-cold.out "the later steps show the layers warm: --steps 2- leaves it out)" \
	"stats --by layer: the cold note says how to leave the step out"
for bad in 0 5-2 - 1-2-3 x; do
	run 2 "stats-steps-bad-$bad" "$G" stats --steps "$bad" "$T/steps.ggmlviz"
	has "stats-steps-bad-$bad.err" "--steps: '$bad' is not a range of steps" \
		"stats --steps $bad: refused, naming the value"
done
# --top by request and by sequence: the longest ones, the percentiles still of all
"$top_builddir/tests/gen-server" "$T/server.ggmlviz" >/dev/null 2>&1
run 0 req-all "$G" stats -f json --by request "$T/server.ggmlviz"
run 0 req-top "$G" stats -f json --by request --top 3 "$T/server.ggmlviz"
run 0 req-first "$G" stats -f json --by request --top 3 --sort order "$T/server.ggmlviz"
python3 -c "
import json, sys
every, top, first = (json.load(open(p)) for p in sys.argv[1:4])
total = lambda r: r['total_ns'] or 0
longest = sorted(every['requests'], key=lambda r: -total(r))[:3]
sys.exit(not (len(every['requests']) > 3 and [r['request'] for r in top['requests']] ==
              [r['request'] for r in longest] and top['percentiles'] == every['percentiles'] and
              top['requests_not_shown'] == len(every['requests']) - 3 and
              first['requests'] == every['requests'][:3] and first['requests'] != top['requests']))" \
	"$T/req-all.out" "$T/req-top.out" "$T/req-first.out"
ok $? "stats --by request --top 3: the 3 longest requests (TOTAL), percentiles of all; --sort order: the first 3"
run 0 req-top-text "$G" stats --by request --top 3 "$T/server.ggmlviz"
has req-top-text.out "more groups not shown: --top)" "stats --by request --top: the text says how many are left out"
run 0 seq-all "$G" stats -f json --by sequence "$T/server.ggmlviz"
run 0 seq-top "$G" stats -f json --by sequence --top 1 "$T/server.ggmlviz"
python3 -c "
import json, sys
every, top = (json.load(open(p)) for p in sys.argv[1:3])
most = max(every['groups'], key=lambda g: g['ns'])
sys.exit(not (len(every['groups']) > 1 and top['groups'] == [most] and
              top['groups_not_shown'] == len(every['groups']) - 1))" "$T/seq-all.out" "$T/seq-top.out"
ok $? "stats --by sequence --top 1: the sequence of the most time"
run 2 req-sort-mean "$G" stats --by request --sort mean "$T/server.ggmlviz"
has req-sort-mean.err "--sort mean: --by request sorts by total" "stats --by request --sort mean: refused, saying what it sorts by"
# a range past the trace's end: refused with the steps it has, not an empty table
run 2 stats-steps-past "$G" stats --steps 50-60 "$T/steps.ggmlviz"
has stats-steps-past.err "--steps: $T/steps.ggmlviz has steps 1 to 4, none of those asked" \
	"stats --steps 50-60 past the end: refused, with the steps the trace has"
empty stats-steps-past.out "stats --steps 50-60 past the end: no empty table"
run 2 diff-steps-past "$G" diff --steps 5- "$T/steps.ggmlviz" "$T/steps.ggmlviz"
has diff-steps-past.err "has steps 1 to 4, none of those asked" "diff --steps 5- past the end: refused"
run 0 stats-steps-over "$G" stats -f json --by step --steps 3-60 "$T/steps.ggmlviz"
has stats-steps-over.out '"name":"4"' "stats --steps 3-60: the steps of the trace within it"
run 2 stats-steps-seq "$G" stats --by sequence --steps 2 "$T/steps.ggmlviz"
has stats-steps-seq.err "--by sequence follows each request over all its steps" \
	"stats --by sequence --steps: refused, saying why"
# the cold and the warm traces differ in their first step only
run 0 diff-cold "$G" diff -f json "$T/warm.ggmlviz" "$T/cold.ggmlviz"
run 0 diff-cold-skipped "$G" diff -f json --steps 2- "$T/warm.ggmlviz" "$T/cold.ggmlviz"
python3 -c "
import json, sys
every, later = (json.load(open(p)) for p in sys.argv[1:3])
changed = lambda d: [g['name'] for g in d['groups'] if g['total_a_ns'] != g['total_b_ns']]
sys.exit(not (changed(every) and not changed(later)))" \
	"$T/diff-cold.out" "$T/diff-cold-skipped.out"
ok $? "diff --steps 2-: the same steps of each trace (the cold first step's change left out)"

# ---- export ----
run 0 export "$G" export "$T/basic.ggmlviz" -o "$T/basic.json"
empty export.err "export: nothing on stderr for a small trace"
model export --trace="$BASIC" "$T/basic.json"
run 0 export-window "$G" export --from 44.66us --to 100us "$T/basic.ggmlviz" -o "$T/window.json"
model export --trace="$BASIC" --window 44660,100000 "$T/window.json"
run 0 export-stdout "$G" export --no-args "$T/basic.ggmlviz" -o -
json "$T/export-stdout.out"
ok $? "export -o -: strict JSON on standard output"
! grep -q '"cat":"op","args"' "$T/export-stdout.out"
ok $? "export --no-args: ops without args"
# -o /dev/fd/1 with standard output redirected to a file: written through, not replaced
run 0 export-fd1 "$G" export --no-args "$T/basic.ggmlviz" -o /dev/fd/1
cmp -s "$T/export-fd1.out" "$T/export-stdout.out"
ok $? "export -o /dev/fd/1: the output goes where standard output was redirected (as -o -)"
# -o at a link: the link is replaced by the output, its target left alone
echo precious >"$T/link-target"
ln -s "$T/link-target" "$T/link.json"
run 0 export-link "$G" export "$T/basic.ggmlviz" -o "$T/link.json"
[ ! -L "$T/link.json" ] && [ "$(cat "$T/link-target")" = precious ]
ok $? "export -o LINK: the link is replaced, not followed"
json "$T/link.json"
ok $? "export -o LINK: the output is whole"
# a failed write leaves the old file and nothing beside it
cp "$T/basic.json" "$T/keep.json"
run 1 export-damaged-dir "$G" export "$T/basic.ggmlviz" -o "$T/no-such-dir/x.json"
has export-damaged-dir.err "no-such-dir/x.json" "export -o in a missing folder: names the path"

# ---- mem ----
run 0 mem "$G" mem -f json "$T/basic.ggmlviz"
model mem --trace="$BASIC" "$T/mem.out"
run 0 mem-small "$G" mem -f json --top 3 --points 7 "$T/basic.ggmlviz"
model mem --trace="$BASIC" --top 3 --points 7 "$T/mem-small.out"
run 0 mem-text "$G" mem "$T/basic.ggmlviz"
has mem-text.out "peak:       3.016 MiB (3162112 bytes) live, allocations: 3" \
	"mem: the peak in text"
has mem-text.out '1.000 MiB  at +100 ns' "mem: what is still allocated in text"

# ---- diff ----
gen --graphs 6 "$T/six.ggmlviz"
for by in op layer; do
	run 0 "diff-$by" "$G" diff -f json --by "$by" "$T/basic.ggmlviz" "$T/six.ggmlviz"
	model diff --trace="$BASIC" --trace-b="--graphs 6" --by "$by" "$T/diff-$by.out"
done
run 0 diff-csv "$G" diff -f csv "$T/basic.ggmlviz" "$T/six.ggmlviz"
has diff-csv.out "MUL_MAT,12,18,300000,630000,330000,110.000," "diff csv: the MUL_MAT row"
run 0 diff-text "$G" diff "$T/six.ggmlviz" "$T/six.ggmlviz"
grep -qE '^TOTAL +57 +57 .* \+0 ns +\+0\.0%' "$T/diff-text.out"
ok $? "diff: a trace against itself changes nothing"

# ---- merge ----
P1="--pid 100 --tid-base 2001 --process p100"
P2="--pid 200 --tid-base 3001 --process p200 --graphs 2"
gen $P1 "$T/p1.ggmlviz"
P1_RECORDS=$(value records)
gen $P2 "$T/p2.ggmlviz"
run 0 merge "$G" merge "$T/p1.ggmlviz" "$T/p2.ggmlviz" -o "$T/merged.ggmlviz"
run 0 merge-valid "$G" validate "$T/merged.ggmlviz"
run 0 merge-dump "$G" dump -f jsonl "$T/merged.ggmlviz"
model merge --input="$P1" --input="$P2" "$T/merge-dump.out"
run 0 merge-export "$G" export "$T/merged.ggmlviz" -o "$T/merged.json"
python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
want = {2001: 100, 2002: 100, 3001: 200, 3002: 200}
sys.exit(not all(want[e['tid']] == e['pid'] for e in ev if e['tid']) or
         {e['args']['name'] for e in ev if e['name'] == 'process_name'} != {'p100', 'p200'})
" "$T/merged.json"
ok $? "merge then export: each process its own pid and name"
gen --no-process --tid-base 4001 "$T/anon.ggmlviz"
run 0 merge-made-up "$G" merge "$T/p1.ggmlviz" "$T/anon.ggmlviz" -o "$T/m2.ggmlviz"
run 0 merge-made-up-dump "$G" dump -f jsonl "$T/m2.ggmlviz"
model merge --input="$P1" --input="--no-process --tid-base 4001" --name p1.ggmlviz \
	--name anon.ggmlviz "$T/merge-made-up-dump.out"
# ---- traces of the original ggml-viz writer ----
gen --original --graphs 3 "$T/original.ggmlviz"
run 0 validate-original "$G" validate "$T/original.ggmlviz"
has validate-original.out "valid, from a writer that never ends its traces" \
	"validate: a writer that never ends its traces is told from a cut-short trace"
run 0 info-original "$G" info "$T/original.ggmlviz"
has info-original.out "from a steady clock (time since boot" "info: a steady clock is said, no 1970 dates"
! grep -q '^clock:' "$T/info-original.out"
ok $? "info: a trace of no META record says no clock (no writer of ours wrote it)"
run 0 stats-original "$G" stats "$T/original.ggmlviz"
has stats-original.out "MUL_MAT " "stats: ops named from GGML's 2025 numbering when the trace names none"
has stats-original.out "op names assumed from GGML's numbering" "stats: says the names are assumed"
run 0 export-original "$G" export "$T/original.ggmlviz" -o "$T/original.json"
json "$T/original.json" && python3 - "$T/original.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e['ph'] == 'X']
by = {}
for e in ev:
    by.setdefault((e['pid'], e['tid']), []).append((e['ts'], e['ts'] + e['dur']))
for slices in by.values():
    for b1, e1 in slices:
        for b2, e2 in slices:
            if b1 < b2 < e1 < e2:
                sys.exit(1)
PY
ok $? "export: no slice partially overlaps another of its track"
run 0 merge-clocks "$G" merge "$T/original.ggmlviz" "$T/basic.ggmlviz" -o "$T/clocks.ggmlviz"
has merge-clocks.err "steady clock (time since boot)" "merge: warns that the inputs' clocks differ"

gen --crash "$T/crash.ggmlviz"
run 1 validate-crash "$G" validate "$T/crash.ggmlviz"
has validate-crash.out "valid, ended by a crash (SIGSEGV; CRASH at byte" \
	"validate: a trace ended by a crash says so, and exits 1"
run 0 info-crash "$G" info "$T/crash.ggmlviz"
has info-crash.out "status:     ended by a crash (SIGSEGV, signal 11; CRASH at byte" \
	"info: a trace ended by a crash says so"
gen --no-end "$T/noend.ggmlviz"
run 0 merge-incomplete "$G" merge "$T/p1.ggmlviz" "$T/noend.ggmlviz" -o "$T/m3.ggmlviz"
has merge-incomplete.err "no TRACE_END" "merge: says why the output has no TRACE_END"
run 1 merge-incomplete-valid "$G" validate "$T/m3.ggmlviz"
run 2 merge-onto-input "$G" merge "$T/p1.ggmlviz" "$T/p2.ggmlviz" -o "$T/p2.ggmlviz"
run 0 merge-input-intact "$G" validate -q "$T/p2.ggmlviz"
run 1 merge-missing "$G" merge "$T/p1.ggmlviz" "$T/nothere.ggmlviz" -o "$T/m4.ggmlviz"
[ ! -e "$T/m4.ggmlviz" ]
ok $? "merge: nothing is written when an input cannot be opened"

# ---- validate ----
run 0 validate "$G" validate "$T/basic.ggmlviz"
has validate.out "valid and complete, with loss ($BASIC_RECORDS records, TRACE_END at byte $BASIC_END: " \
	"validate: complete, with its TRACE_END offset and the loss it counts"
has validate.out "1 records of types unknown to this version" "validate: notes unknown types"
run 1 validate-noend "$G" validate "$T/noend.ggmlviz"
has validate-noend.out "valid but incomplete: no TRACE_END record at the end" \
	"validate: no TRACE_END"
if [ -w /dev/full ]; then
	"$G" validate "$T/basic.ggmlviz" >/dev/full 2>"$T/validate-full.err"
	[ $? -ne 0 ]
	ok $? "validate > /dev/full: fails"
	has validate-full.err "writing standard output" "validate > /dev/full: says the output was lost"
else
	ok 0 "validate > /dev/full: # SKIP no /dev/full"
	ok 0 "validate > /dev/full: # SKIP no /dev/full"
fi
run 1 validate-worst "$G" validate -q "$T/basic.ggmlviz" "$T/noend.ggmlviz"
empty validate-worst.out "validate -q prints nothing"
# the trace, then its first record (PROCESS, 59 bytes) again after its TRACE_END
{ cat "$T/basic.ggmlviz"; tail -c +13 "$T/basic.ggmlviz" | head -c 59; } >"$T/after-end.ggmlviz"
run 1 validate-after-end "$G" validate "$T/after-end.ggmlviz"
has validate-after-end.out "the TRACE_END record at byte $BASIC_END is not the last record" \
	"validate: a TRACE_END followed by more records is incomplete"

# ---- a trace with no record at all ----
printf 'GGMLVIZ1\001\000\000\000' >"$T/header.ggmlviz"
run 1 header-validate "$G" validate "$T/header.ggmlviz"
run 0 header-info "$G" info "$T/header.ggmlviz"
has header-info.out "records:    0" "info: a trace of no record"
for cmd in "stats -f json" "mem -f json" "export -o -" "diff -f json $T/header.ggmlviz"; do
	run 0 "header-${cmd%% *}" "$G" $cmd "$T/header.ggmlviz"
	json "$T/header-${cmd%% *}.out"
	ok $? "${cmd%% *} of no record: strict JSON"
done

# ---- damaged and truncated traces, for every subcommand ----
gen $BASIC --corrupt 40 "$T/corrupt.ggmlviz"
BAD=$(value corrupt_offset)
gen $BASIC --cut-bytes 20 "$T/cut.ggmlviz"
CUT=$(value last_record_offset)
RECORDS=$(value records)
gen --no-end --unknown --cut-bytes 3 "$T/cutlabel.ggmlviz"
CUTLABEL=$(value last_record_offset)

run 2 validate-corrupt "$G" validate "$T/corrupt.ggmlviz"
has validate-corrupt.out "damaged: corrupt record at byte $BAD: has_label is 7 (must be 0 or 1)\
 (the 40 records before it are valid)" "validate: the corrupt record, its offset and why"
run 1 validate-cut "$G" validate "$T/cut.ggmlviz"
has validate-cut.out "valid but incomplete: truncated at byte $CUT: the data ends 26 bytes into" \
	"validate: a cut final record is incomplete, with its offset"
run 1 validate-cutlabel "$G" validate "$T/cutlabel.ggmlviz"
has validate-cutlabel.out "truncated at byte $CUTLABEL: the data ends 53 bytes into the last\
 record, which holds 56 bytes" "validate: a record cut inside its label"

for kind in corrupt cut; do
	if [ $kind = corrupt ]; then
		upto=40 what="corrupt record at byte $BAD: has_label is 7"
	else
		upto=$((RECORDS - 1)) what="truncated at byte $CUT"
	fi
	run 1 "info-$kind" "$G" info "$T/$kind.ggmlviz"
	has "info-$kind.err" "$kind.ggmlviz: $what" "info: names the $kind file, offset, problem"
	has "info-$kind.out" "records:    $upto" "info: counts the $upto records before the damage"
	run 1 "dump-$kind" "$G" dump -f jsonl "$T/$kind.ggmlviz"
	has "dump-$kind.err" "$what" "dump: reports the $kind record"
	model dump --trace="$BASIC" --upto "$upto" "$T/dump-$kind.out"
	run 1 "stats-$kind" "$G" stats -f json "$T/$kind.ggmlviz"
	has "stats-$kind.err" "$what" "stats: reports the $kind record"
	model stats --trace="$BASIC" --upto "$upto" "$T/stats-$kind.out"
	run 1 "export-$kind" "$G" export "$T/$kind.ggmlviz" -o "$T/$kind.json"
	has "export-$kind.err" "$what" "export: reports the $kind record"
	model export --trace="$BASIC" --upto "$upto" "$T/$kind.json"
	run 1 "mem-$kind" "$G" mem -f json "$T/$kind.ggmlviz"
	has "mem-$kind.err" "$what" "mem: reports the $kind record"
	model mem --trace="$BASIC" --upto "$upto" "$T/mem-$kind.out"
	run 1 "diff-$kind" "$G" diff -f json "$T/basic.ggmlviz" "$T/$kind.ggmlviz"
	has "diff-$kind.err" "$what" "diff: reports the $kind record"
	json "$T/diff-$kind.out"
	ok $? "diff: strict JSON from a $kind trace"
	run 1 "merge-$kind" "$G" merge "$T/p1.ggmlviz" "$T/$kind.ggmlviz" -o "$T/m-$kind.ggmlviz"
	has "merge-$kind.err" "$what" "merge: reports the $kind record"
	run 1 "merge-$kind-valid" "$G" validate "$T/m-$kind.ggmlviz"
	"$G" info "$T/m-$kind.ggmlviz" >"$T/m-$kind.info"
	has "m-$kind.info" "records:    $((P1_RECORDS - 1 + upto))" \
		"merge: keeps the records before the damage"
done

printf 'GGMLVIZ2\001\000\000\000' >"$T/magic.ggmlviz"
printf 'GGMLVIZ1\002\000\000\000' >"$T/version.ggmlviz"
: >"$T/empty.ggmlviz"
for f in magic version empty; do
	for cmd in info dump stats mem "export -o $T/x.json"; do
		run 1 "$f-${cmd%% *}" "$G" $cmd "$T/$f.ggmlviz"
	done
	run 2 "validate-$f" "$G" validate "$T/$f.ggmlviz"
done
has magic-stats.err "magic.ggmlviz: cannot read it: not a GGMLVIZ trace" "a bad magic is named"
# a model given where a trace is wanted: said to be one, with how a trace is written
printf 'GGUF\003\000\000\000' >"$T/model.gguf"
for cmd in stats report top; do
	case $cmd in report) cmd="report -o $T/x.html" ;; top) cmd="top --batch 1" ;; esac
	run 1 "gguf-${cmd%% *}" "$G" $cmd "$T/model.gguf"
	has "gguf-${cmd%% *}.err" "model.gguf: cannot read it: it is a GGUF model, not a trace: run a program on it with GGML_VIZ_OUTPUT=FILE" \
		"${cmd%% *}: a .gguf given for a trace is named a GGUF model, with GGML_VIZ_OUTPUT"
done
run 2 validate-gguf "$G" validate "$T/model.gguf"
has validate-gguf.out "model.gguf: it is a GGUF model, not a trace" "validate: a GGUF model is named one"
# report on a cut trace: the page written all the same, and said so beside exit status 1
run 1 report-cut "$G" report "$T/cut.ggmlviz" -o "$T/cut.html"
has report-cut.err "report: $T/cut.html written all the same, from what came before the damage" \
	"report on a cut trace: exit 1 and says the page was written"
[ -s "$T/cut.html" ]
ok $? "report on a cut trace: the page is there"
has version-info.err "unsupported GGMLVIZ version" "a bad version is named"
has validate-magic.out "damaged at byte 0" "validate: a bad magic at byte 0"
has validate-version.out "damaged at byte 8" "validate: a bad version at byte 8"
run 1 missing "$G" info "$T/nothere.ggmlviz"
has missing.err "nothere.ggmlviz: cannot read it: No such file or directory" \
	"a missing file is named"
run 2 validate-missing "$G" validate "$T/nothere.ggmlviz"
run 1 directory "$G" stats "$T"
run 1 diff-missing "$G" diff "$T/basic.ggmlviz" "$T/nothere.ggmlviz"
empty diff-missing.out "diff: nothing on stdout when a trace cannot be read"

# Inputs the fuzzer found (tests/data/fuzz-*): each command ends, within a
# minute, with exit 0 or 1. fuzz-huge-kernel: a kernel of 1.8e19 ns made
# export's search for a viewer-safe duration endless. fuzz-counter-int64-max:
# a counter of INT64_MAX, as a double 2^63, was cast back to int64_t
# (undefined; UBSan stops there). fuzz-scope-without-label: the Perfetto
# export interned its NULL name (memcmp of NULL), and a trace with no slice
# sorted a NULL array of held ones. fuzz-packed-without-body: a packed
# record of no entries and no body had its NULL body copied (UBSan).
# fuzz-rpc-hosts-overflow: RPC commands whose times near 2^62 made the sum
# of a step's hosts' compute and wire overflow a signed 64-bit integer in
# stats --by host (UBSan).
for f in "$top_srcdir"/tests/data/fuzz-*.ggmlviz; do
	[ -f "$f" ]
	ok $? "fuzz input $(basename "$f") is in the tree"
	base=$(basename "$f" .ggmlviz)
	for cmd in info dump stats "stats --by host" advise mem report "export -o $T/x.json" \
		"export -f csv -o -" "export -f perfetto -o $T/x.pftrace"; do
		case $cmd in report) cmd="report -o $T/x.html" ;; esac
		timeout 60 "$G" $cmd "$f" >"$T/$base.out" 2>"$T/$base.err"
		got=$?
		[ "$got" -le 1 ]
		ok $? "$base: ${cmd%% -o*} ends, exit $got"
	done
done

echo "1..$n"
