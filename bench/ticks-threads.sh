#!/bin/sh
# What the CPU backend's ticks make of small ops at 1 thread and at N, as
# ticked and as stats estimates them (tools/stats/ticks.h): the quick
# start's model (8 layers, 512 wide, q8_0) generates TOKENS tokens traced
# at 1 thread and at each THREADS, and each op's time per generated token
# is printed both ways, with the ratio to 1 thread. Run from a build
# directory that has the examples (configure found GGML):
#
#   sh ../bench/ticks-threads.sh [TOKENS [THREADS...]]     (32 2)
#
# SPDX-License-Identifier: MIT
set -eu
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-ticks.XXXXXX")
trap 'rm -rf "$T"' EXIT
tokens=${1:-32}
[ $# -gt 0 ] && shift
threads=${*:-2}

examples/make_tiny_llama "$T/m.gguf" --layers 8 --embd 512 --heads 8 --kv-heads 4 --ff 1408 \
	--vocab 2048 --type q8_0 >/dev/null
for n in 1 $threads; do
	examples/llama_trace --model "$T/m.gguf" --generate "$tokens" --threads "$n" \
		--output "$T/t$n.ggmlviz" >/dev/null 2>&1
	tools/ggmlviz stats --phase generation -f json "$T/t$n.ggmlviz" >"$T/e$n.json"
	tools/ggmlviz stats --phase generation -f json --raw-ticks "$T/t$n.ggmlviz" >"$T/r$n.json"
done
python3 - "$T" $threads <<'PY'
import json, sys
d, threads = sys.argv[1], sys.argv[2:]
def per_token(f):
    j = json.load(open(f))
    return {g['name']: g['total_ns'] / j['tokens'] for g in j['groups']}, j
ops = ['MUL_MAT', 'FLASH_ATTN_EXT', 'RMS_NORM+MUL', 'ROPE', 'ADD', 'SWIGLU', 'SET_ROWS',
       'GET_ROWS', '(run start)']
for n in threads:
    r1, _ = per_token('%s/r1.json' % d)
    e1, _ = per_token('%s/e1.json' % d)
    rn, _ = per_token('%s/r%s.json' % (d, n))
    en, jn = per_token('%s/e%s.json' % (d, n))
    print('per generated token, 1 thread and %s; as ticked | estimated' % n)
    print('%-16s %10s %10s %7s | %10s %10s %7s' % ('op', '1', n, n + '/1', '1', n, n + '/1'))
    for op in ops:
        def cell(a, b):
            x, y = a.get(op), b.get(op)
            if x is None and y is None:
                return '%10s %10s %7s' % ('-', '-', '-')
            ratio = '%6.2fx' % (y / x) if x and y else '-'
            return '%10s %10s %7s' % ('%.2f us' % (x / 1e3) if x else '-',
                                      '%.2f us' % (y / 1e3) if y else '-', ratio)
        print('%-16s %s | %s' % (op, cell(r1, rn), cell(e1, en)))
    for m, j in (('1', json.load(open('%s/e1.json' % d))), (n, jn)):
        t = j['ticks']
        print('(%s thread(s): %d waits, %.1f us a token of %.1f us of op time, moved back to the'
              ' op before; %d runs\' starts)' % (m, t['waits_moved'], t['wait_ns_moved'] / j['tokens'] / 1e3,
                                              j['op_ns'] / j['tokens'] / 1e3, t['run_starts']))
PY
