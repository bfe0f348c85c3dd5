#!/bin/sh
# The shared GGML that scripts/build-ggml-cuda.sh builds (for the GPU
# check), built here without CUDA (--cpu): its CPU backend carries the
# shares' edit through weak references, so that
#   - a program that links libggmlviz gets every worker thread's share
#     measured (every op TIMED measured, META SHARES saying every share
#     went to its op), and GGML_VIZ_CPU_SHARES=0 turns it off;
#   - a program without libggmlviz (make_tiny_llama) runs GGML as it is;
#   - its scheduler tells libggmlviz each split graph's id, and gives it a
#     repeated split's asks at once, the same way (libggml-base.so, weak
#     references).
# libggmlviz is configured against it in a folder of its own. WORK (default
# $top_builddir/ggml-shared) holds the GGML, its build and libggmlviz's;
# run again, they build only what changed. Prints TAP.
#
# SPDX-License-Identifier: MIT
top_srcdir=$(cd "${top_srcdir:-.}" && pwd)
top_builddir=$(cd "${top_builddir:-$top_srcdir/build}" && pwd)
work=${WORK:-$top_builddir/ggml-shared}
fail=0
mkdir -p "$work"
log="$work/test.log"
: >"$log"
. "$top_srcdir/tests/tap.sh"

# result STATUS TEXT: tap.sh's ok, and the log's end where it failed
result() {
	ok "$1" "$2"
	[ "$1" -eq 0 ] || { fail=1; tail -n 15 "$log" | sed 's/^/# /'; }
}

echo "1..6"
"$top_srcdir/scripts/build-ggml-cuda.sh" --cpu "$work/ggml" >>"$log" 2>&1
result $? "scripts/build-ggml-cuda.sh --cpu builds GGML and libllama, shared, with the shares' edit"

weak=0
nm -D "$work/ggml/lib/libggml-cpu.so" >"$work/nm.out" 2>>"$log" || weak=1
for f in ggmlviz_cpu_share_begin ggmlviz_cpu_share_next ggmlviz_cpu_share_end ggmlviz_cpu_graph_done; do
	grep -q "^ *w $f\$" "$work/nm.out" || { echo "no weak $f in libggml-cpu.so" >>"$log"; weak=1; }
done
! grep -q " T ggmlviz_" "$work/nm.out" || { echo "libggml-cpu.so defines ggmlviz_ functions" >>"$log"; weak=1; }
# and its scheduler tells libggmlviz each split graph's id and backend (--sched-graph-ids), the same way
nm -D "$work/ggml/lib/libggml-base.so" >"$work/nm-base.out" 2>>"$log" || weak=1
for f in ggmlviz_nodes_split ggmlviz_nodes_ask_rest; do
	grep -q "^ *w $f\$" "$work/nm-base.out" || { echo "no weak $f in libggml-base.so" >>"$log"; weak=1; }
done
! grep -q " T ggmlviz_" "$work/nm-base.out" || { echo "libggml-base.so defines ggmlviz_ functions" >>"$log"; weak=1; }
result $weak "libggml-cpu.so and libggml-base.so call libggmlviz through weak references, none defined in them"

mkdir -p "$work/build"
(cd "$work/build" &&
	{ [ -f Makefile ] || "$top_srcdir/configure" --with-ggml="$work/ggml"; } &&
	make -j2 examples/llama_trace examples/make_tiny_llama tools/ggmlviz) >>"$log" 2>&1
result $? "libggmlviz configured and built against it (llama_trace, make_tiny_llama, ggmlviz)"
b="$work/build"

# make_tiny_llama links GGML but not libggmlviz: the weak references stay null
! nm "$b/examples/make_tiny_llama" | grep -q ' T ggmlviz_cpu_share_begin' &&
	"$b/examples/make_tiny_llama" "$work/tiny.gguf" --layers 2 --type q8_0 >>"$log" 2>&1 &&
	[ -s "$work/tiny.gguf" ]
result $? "a program without libggmlviz runs the edited GGML as it is (make_tiny_llama)"

rm -f "$work/measured.ggmlviz" "$work/ticked.ggmlviz"
"$b/examples/llama_trace" --model "$work/tiny.gguf" --generate 8 --threads 2 \
	--output "$work/measured.ggmlviz" >>"$log" 2>&1 &&
	"$b/tools/ggmlviz" stats -f json "$work/measured.ggmlviz" >"$work/measured.json" 2>>"$log" &&
	"$b/tools/ggmlviz" info "$work/measured.ggmlviz" >"$work/measured.info" 2>>"$log" &&
	python3 - "$work/measured.json" >>"$log" 2>&1 <<'EOF' &&
import json, sys
st = json.load(open(sys.argv[1]))
cpu = [x for x in st['splits'] if x['backend'] == 'CPU']
print('ops', st['ops'], 'measured', st['measured_ops'], 'shares', st['shares'],
      'unattributed', st.get('shares_unattributed'), 'cpu', cpu)
assert st['ops'] > 0 and st['measured_ops'] == st['ops'] and st['shares'] == 2 * st['ops']
assert cpu and not cpu[0]['ops_tick'] and st.get('shares_unattributed') == 0
EOF
	grep -q "CPU shares: every node measured inside GGML's CPU backend went to its op" \
		"$work/measured.info"
result $? "llama_trace on it at 2 threads: every op measured, two shares an op, none unattributed"

GGML_VIZ_CPU_SHARES=0 "$b/examples/llama_trace" --model "$work/tiny.gguf" --generate 8 \
	--threads 2 --output "$work/ticked.ggmlviz" >>"$log" 2>&1 &&
	"$b/tools/ggmlviz" info "$work/ticked.ggmlviz" >"$work/ticked.info" 2>>"$log" &&
	grep -q "op timing:  [1-9][0-9]* from the backend's ticks" "$work/ticked.info" &&
	! grep -q "measured inside\|CPU shares" "$work/ticked.info"
result $? "GGML_VIZ_CPU_SHARES=0: the ops timed by the ticks, nothing measured or said of shares"
exit $fail
