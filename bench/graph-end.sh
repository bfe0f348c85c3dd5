#!/bin/sh
# What a graph's end costs the graph's thread, warm and cold, by the
# graph's size: bench_opcost's "graph done" and "run recorded" parts (ns
# an op on thread 0, packed records, every worker's share measured) at
# each NODES, with nothing evicted and with EVICT MiB read by each thread
# before each graph (the tracer's lines then come from memory, as after a
# decode's weights), medians of RUNS runs taken in turn, and what cold
# adds a graph:
#
#   THREADS  NODES  WARM END  RUN  COLD END (RUNS' RANGE)  RUN  COLD LESS WARM, A GRAPH
#
# What cold adds the same a graph at every size is latency: lines fetched
# one after another, whatever the graph holds. What grows with the nodes
# is work or bandwidth. The first divides by the graph's ops: a model of
# few ops a token (the quick start's 141) pays it the most an op.
# doc/cost.md says what this found on the project's machine.
#
#     bench/graph-end.sh [BUILD]
#
# BUILD: the build folder (default build). NODES (default "141 1000
# 4000"), THREADS ("1 2"), EVICT (64: twice the last-level cache of the
# project's machine; more than this machine's is what counts), RUNS (5)
# and GRAPHS (40, a round) as the environment says. Each bench_opcost
# run also times its every-op-a-record mode, which is not read here:
# about 2 minutes in all on the project's machine.
#
# SPDX-License-Identifier: MIT
set -eu

build=${1:-build}
bin="$build/bench/bench_opcost"
[ -x "$bin" ] || { echo "graph-end.sh: no $bin: build it first (make -C $build bench/bench_opcost)" >&2; exit 1; }
NODES=${NODES:-141 1000 4000}
THREADS=${THREADS:-1 2}
EVICT=${EVICT:-64}
RUNS=${RUNS:-5}
GRAPHS=${GRAPHS:-40}
for v in "EVICT=$EVICT" "RUNS=$RUNS" "GRAPHS=$GRAPHS"; do
	case ${v#*=} in '' | *[!0-9]*) echo "graph-end.sh: $v is not a whole number" >&2; exit 2 ;; esac
done
for n in $NODES $THREADS; do
	case $n in '' | *[!0-9]* | 0) echo "graph-end.sh: NODES=\"$NODES\" THREADS=\"$THREADS\": $n is not a count" >&2; exit 2 ;; esac
done

# "END RUN" of one bench_opcost run: its first mode's (packed) two parts
parts() {
	"$bin" "$1" "$GRAPHS" 5 "$2" "$3" 300 1 2>&1 | awk '
		/^  graph done/ && end == "" { for (i = 1; i < NF; i++) if ($(i + 1) == "ns") end = $i }
		/^  run recorded/ && run == "" { for (i = 1; i < NF; i++) if ($(i + 1) == "ns") run = $i }
		END { if (end == "" || run == "") exit 1; print end, run }'
}

printf '%-8s %-6s %-9s %-5s %-24s %-5s %s\n' THREADS NODES "WARM END" RUN \
	"COLD END (RUNS' RANGE)" RUN "COLD LESS WARM, A GRAPH"
for t in $THREADS; do
	for n in $NODES; do
		out=""
		r=0
		while [ "$r" -lt "$RUNS" ]; do
			w=$(parts "$n" 0 "$t") || { echo "graph-end.sh: bench_opcost $n nodes, $t threads, warm: no figures" >&2; exit 1; }
			c=$(parts "$n" "$EVICT" "$t") || { echo "graph-end.sh: bench_opcost $n nodes, $t threads, EVICT $EVICT: no figures" >&2; exit 1; }
			out="$out$w $c
"
			r=$((r + 1))
		done
		printf '%s' "$out" | python3 -c '
import statistics as st, sys
rows = [[float(x) for x in l.split()] for l in sys.stdin if l.strip()]
t, n = sys.argv[1], int(sys.argv[2])
we, wr, ce, cr = (st.median(c) for c in zip(*rows))
lo, hi = min(r[2] for r in rows), max(r[2] for r in rows)
print("%-8s %-6d %-9.1f %-5.1f %-24s %-5.1f %.1f us" % (t, n, we, wr,
      "%.1f (%.1f to %.1f)" % (ce, lo, hi), cr, (ce - we) * n / 1000))' "$t" "$n"
	done
done
