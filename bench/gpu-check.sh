#!/bin/sh
# libggmlviz on a machine with an NVIDIA GPU, in one command: builds what
# it needs and prints one table of what the GPU path does there.
#
#     bench/gpu-check.sh [--arch ARCH] [--tokens N] [--no-cpu] [--no-llama-bench]
#
# What it builds, out of tree under build-gpu/ (GPU_CHECK_DIR): libggmlviz
# with CUPTI's headers of nvcc's toolkit (lib-build/; from a copy of the
# source, src/, where the checkout is configured in place, which refuses
# another build); bench/gpu-probe.cu with nvcc; GGML and
# libllama with CUDA from the fetched release's source
# (scripts/fetch-ggml.sh --source where npm is reachable, then
# scripts/build-ggml-cuda.sh --arch ARCH, default native: about 150 s on
# 16 cores) and libggmlviz's benchmarks and examples against them
# (cuda-build/). Then, one row each:
#   - CUPTI's correlation arrives and ties: gpu-probe's direct launches and
#     launches of a captured CUDA graph, each kernel tied to the run that
#     launched it, copies and sets too;
#   - kernel times against CUPTI's raw records (GGML_VIZ_CUPTI_LOG), to the
#     nanosecond;
#   - what a recorded kernel costs the GPU (bench/gpu-kernel-cost.cu: a CUDA
#     graph of 500 kernels of 2 us, traced / untraced);
#   - CUPTI's own modes on that graph (bench/cupti-modes.cu): a record a
#     kernel (CONCURRENT_KERNEL), a record a graph launch (GRAPH_TRACE),
#     and a kind disabled again, against before CUPTI; whether the two
#     kinds can be enabled together;
#   - llama.cpp decoding N tokens (default 5000) with every layer on the
#     GPU: KERNEL records, none without its run, none lost;
#   - what recording slows kernels by: per op type, the GPU time a generated
#     token with every kernel recorded (GGML_VIZ_GPU_SAMPLE=1/1) and in the
#     tools' sampled windows, against the CUDA graphs' GPU time a token with
#     no kernel recorded (GGML_VIZ_CUPTI_GRAPHS=1: a record a graph launch);
#   - llama.cpp's llama-bench, built traced for CUDA
#     (scripts/build-llama-tools.sh --cuda), on SmolLM2-135M's shape with
#     CUDA graphs on: tg traced / untraced as the tools trace (windows), with
#     every kernel, steps only, and NVTX ranges (bench/llama-bench.sh, 9
#     interleaved rounds; left out with --no-llama-bench);
#   - decode tokens/s traced (every kernel recorded) / untraced, with CUDA
#     graphs on and with GGML_CUDA_DISABLE_GRAPHS=1 (bench_llama); the ops'
#     GPU time against the GPU's busy time;
#   - what a recorded event and a clock read cost, and the clock the
#     tracer stamps with (bench_tracer, the kernel's clocksource);
#   - bench_llama on the CPU at 1, 4, 8 and 16 threads;
#   - bench_writer with 4, 8 and 16 producers
# (these three left out with --no-cpu).
# Without a GPU (or without the toolkit) it says what is missing, runs the
# parts that need neither, and exits 77; 1 when a check missed its target.
#
# SPDX-License-Identifier: MIT
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
work=${GPU_CHECK_DIR:-$top/build-gpu}
arch=native
tokens=5000
cpu=yes
llama_bench=yes
while [ $# -gt 0 ]; do
	case "$1" in
	--arch) [ $# -ge 2 ] || { echo "gpu-check: --arch wants a value (90, native)" >&2; exit 2; }
		arch=$2; shift ;;
	--tokens) [ $# -ge 2 ] || { echo "gpu-check: --tokens wants a number" >&2; exit 2; }
		tokens=$2; shift ;;
	--no-cpu) cpu=no ;;
	--no-llama-bench) llama_bench=no ;;
	-h | --help) sed -n '2,45p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "gpu-check: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done
mkdir -p "$work" || exit 1
table="$work/table.txt"
: >"$table"
failed=0

say() { printf 'gpu-check: %s\n' "$*" >&2; }
# row WHAT RESULT TARGET [ok|miss|skip]
row() {
	printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "${4:-}" >>"$table"
	[ "${4:-}" = miss ] && failed=1
	return 0
}

# ---- 1. what is here ----
gpu=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)
have_gpu=no
{ [ -e /dev/nvidiactl ] || [ -e /dev/dxg ]; } && [ -n "$gpu" ] && have_gpu=yes
nvcc=$(command -v nvcc 2>/dev/null || true)
[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
toolkit=
[ -n "$nvcc" ] && toolkit=$(cd "$(dirname "$nvcc")/.." && pwd)
cupti_dir=
[ -n "$nvcc" ] && cupti_dir=$("$top/scripts/cuda-cupti.sh" "$nvcc" 2>/dev/null)
missing=
[ "$have_gpu" = yes ] || missing="$missing; no NVIDIA GPU (no /dev/nvidiactl, or nvidia-smi sees none)"
[ -n "$nvcc" ] || missing="$missing; no nvcc (the CUDA toolkit: /usr/local/cuda/bin)"
[ -n "$toolkit" ] && [ -z "$cupti_dir" ] &&
	missing="$missing; no cupti.h for $nvcc (scripts/cuda-cupti.sh: the toolkit's CUPTI)"
row "GPU" "${gpu:-none}" "an NVIDIA GPU" "$([ "$have_gpu" = yes ] && echo ok || echo skip)"
[ -z "$missing" ] || say "missing here${missing}"

# ---- 2. libggmlviz with CUPTI ----
# A checkout configured in place refuses a build out of tree ("source
# directory already configured"): then from a copy of its source.
src=$top
if [ -f "$top/config.status" ]; then
	git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 || {
		say "$top is configured in place and is not a git work tree, whose files could be copied:"
		say "run 'make distclean' there first"
		exit 1
	}
	src="$work/src"
	say "the checkout is configured in place: building from a copy of its source in $src"
	mkdir -p "$src"
	(cd "$top" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
		tar -C "$src" -xf - && (cd "$src" && ./autogen.sh >/dev/null 2>&1) ||
		{ say "the source could not be copied into $src"; exit 1; }
fi
lib="$work/lib-build"
mkdir -p "$lib"
[ -x "$src/configure" ] || (cd "$src" && ./autogen.sh >/dev/null 2>&1)
cupti_flag=--without-cupti
[ -n "$cupti_dir" ] && cupti_flag="--with-cupti=$cupti_dir"
say "building libggmlviz ($cupti_flag) in $lib"
if ! { [ -f "$lib/Makefile" ] || (cd "$lib" && "$src/configure" "$cupti_flag" >configure.out 2>&1); } ||
	! (cd "$lib" && make -j"$(nproc)" >make.out 2>&1); then
	say "libggmlviz did not build: see $lib/configure.out and $lib/make.out"
	exit 1
fi

# ---- 3. the probe: CUPTI's correlation and times, without GGML ----
probe="$work/gpu-probe"
if [ -n "$nvcc" ] && [ "$cupti_flag" != --without-cupti ]; then
	say "compiling bench/gpu-probe.cu with $nvcc"
	"$nvcc" -std=c++17 -O2 -I"$top/include" "$top/bench/gpu-probe.cu" "$lib/lib/libggmlviz.a" \
		-lpthread -ldl -o "$probe" 2>"$work/probe-build.out" ||
		{ row "gpu-probe built with nvcc" "failed: $work/probe-build.out" "builds" miss; probe=; }
else
	probe=
	row "gpu-probe" "not built: no nvcc or no CUPTI headers" "builds" skip
fi
if [ -n "$probe" ] && [ "$have_gpu" = yes ]; then
	"$probe" "$work/probe.ggmlviz" "$work/probe-raw.log" >"$work/probe.out" 2>&1
	rc=$?
	st=$([ $rc -eq 0 ] && echo ok || echo miss)
	row "direct launches, tied to their run" "$(sed -n 's/^direct *//p' "$work/probe.out")" "all tied" "$st"
	row "CUDA graph launches, tied" "$(sed -n 's/^graph *//p' "$work/probe.out")" "all tied, one id a launch" "$st"
	row "memory copies and sets, tied" "$(sed -n 's/^copies *//p' "$work/probe.out")" "all tied" "$st"
	row "kernel times against CUPTI's records" "$(sed -n 's/^times *//p' "$work/probe.out")" "all, to the ns" "$st"
	[ $rc -le 1 ] || say "gpu-probe failed: $(tail -n 3 "$work/probe.out")"
elif [ -n "$probe" ]; then
	row "gpu-probe (correlation, graphs, copies, times)" "built; not run: no GPU" "all tied, exact" skip
fi

# ---- 3b. what a recorded kernel costs the GPU (CUPTI's own cost, without GGML) ----
if [ -n "$probe" ] && [ "$have_gpu" = yes ]; then
	say "compiling and running bench/gpu-kernel-cost.cu"
	if "$nvcc" -std=c++17 -O2 -I"$top/include" "$top/bench/gpu-kernel-cost.cu" \
		"$lib/lib/libggmlviz.a" -lpthread -ldl -o "$work/gpu-kernel-cost" 2>"$work/cost-build.out" &&
		"$work/gpu-kernel-cost" 9 2000 >"$work/cost.out" 2>&1; then
		row "a recorded kernel in a CUDA graph of 2 us kernels: speed traced / untraced, ns more" \
			"$(sed -n 's/^graph .*: \([0-9.]*\) of the speed, \(-\{0,1\}[0-9]*\) ns more.*/\1, \2 ns/p' "$work/cost.out")" \
			"(measured: CUPTI's own cost)"
	else
		row "gpu-kernel-cost" "failed: $work/cost-build.out, $work/cost.out" "runs" miss
	fi
fi

# ---- 3c. CUPTI's own modes: a record a kernel, a record a graph, and a kind disabled again ----
if [ -n "$probe" ] && [ "$have_gpu" = yes ]; then
	say "compiling and running bench/cupti-modes.cu"
	cupti_lib=$(find "$toolkit" -name 'libcupti.so' 2>/dev/null | head -n 1)
	cupti_dir=$(dirname "${cupti_lib:-$toolkit/lib64/libcupti.so}")
	if "$nvcc" -std=c++17 -O2 -I"$toolkit/include" "$top/bench/cupti-modes.cu" -L"$cupti_dir" \
		-lcupti -Xlinker -rpath -Xlinker "$cupti_dir" -o "$work/cupti-modes" \
		2>"$work/modes-build.out" && "$work/cupti-modes" 9 2000 >"$work/modes.out" 2>&1; then
		row "GRAPH_TRACE beside CONCURRENT_KERNEL (cuptiActivityEnable)" \
			"$(sed -n 's/^cupti-modes: GRAPH_TRACE enabled beside CONCURRENT_KERNEL: //p' "$work/modes.out")" \
			"(CUPTI's answer)"
		for m in off kernels graphs; do
			row "CUPTI $m: a 2 us kernel in a graph, speed against before CUPTI; records a round" \
				"$(sed -n "s/^$m *[0-9]* ns a kernel in the graph: \([0-9.]*\) of the speed before CUPTI, \([-+0-9]*\) ns a kernel; records a round: \(.*\)/\1, \2 ns; \3/p" "$work/modes.out")" \
				"(measured)"
		done
	else
		row "cupti-modes" "failed: $work/modes-build.out, $work/modes.out" "runs" miss
	fi
fi

# ---- 4. GGML and libllama with CUDA, and the benchmarks against them ----
ggml_cuda="$top/third_party/ggml-cuda"
cuda_build="$work/cuda-build"
if [ "$have_gpu" = yes ] && [ -n "$nvcc" ]; then
	[ -f "$top/third_party/ggml/src/CMakeLists.txt" ] || "$top/scripts/fetch-ggml.sh" --source >&2 ||
		say "the release's source could not be fetched (scripts/fetch-ggml.sh --source needs npm's registry)"
	[ -f "$ggml_cuda/VERSION" ] || "$top/scripts/build-ggml-cuda.sh" --arch "$arch" "$ggml_cuda" >&2 ||
		say "GGML with CUDA did not build (see $ggml_cuda.build.log)"
	mkdir -p "$cuda_build"
	if [ -f "$ggml_cuda/VERSION" ] &&
		{ [ -f "$cuda_build/Makefile" ] ||
			(cd "$cuda_build" && "$src/configure" "$cupti_flag" --with-ggml="$ggml_cuda" >configure.out 2>&1); } &&
		(cd "$cuda_build" && make -j"$(nproc)" >make.out 2>&1); then
		say "libggmlviz's benchmarks built against $ggml_cuda"
	else
		say "libggmlviz did not build against $ggml_cuda (see $cuda_build/*.out)"
		cuda_build=
	fi
else
	cuda_build=
fi

if [ -n "$cuda_build" ] && [ -x "$cuda_build/examples/llama_trace" ]; then
	model="$work/check.gguf"
	"$cuda_build/examples/make_tiny_llama" "$model" --layers 8 --embd 512 --heads 8 --kv-heads 4 \
		--ff 1408 --vocab 2048 --type q8_0 >/dev/null 2>&1
	say "llama.cpp decoding $tokens tokens on the GPU, traced"
	"$cuda_build/examples/llama_trace" --model "$model" --gpu-layers 99 --generate "$tokens" \
		--ctx $((tokens + 256)) --output "$work/tokens.ggmlviz" >"$work/tokens.out" 2>&1
	"$cuda_build/tools/ggmlviz" info "$work/tokens.ggmlviz" >"$work/tokens.info" 2>&1
	kernels=$(sed -n 's/^GPU:.*; \([0-9]*\) KERNEL records.*/\1/p' "$work/tokens.info")
	norun=$(sed -n 's/^GPU:.* \([0-9]*\) without their run.*/\1/p' "$work/tokens.info")
	lost=$(sed -n 's/^GPU:.* \([0-9]*\) lost (the profiler.*/\1/p' "$work/tokens.info")
	dropped=$(sed -n 's/^dropped: *\([0-9]*\) events.*/\1/p' "$work/tokens.info")
	st=miss
	[ -n "$kernels" ] && [ "${kernels:-0}" -gt 0 ] && [ "$norun" = 0 ] && [ "$lost" = 0 ] &&
		[ "$dropped" = 0 ] && st=ok
	row "$tokens tokens decoded: KERNEL records, without their run, lost, dropped" \
		"${kernels:-?}, ${norun:-?}, ${lost:-?}, ${dropped:-?}" "0, 0 and 0" "$st"
	# what recording slows the kernels by: the same decode with every kernel, in the tools'
	# windows, and with a record a CUDA graph only (no kernel recorded)
	for mode in every windows graphs; do
		case "$mode" in
		every) set -- GGML_VIZ_GPU_SAMPLE=1/1 ;;
		windows) set -- GGML_VIZ_GPU_SAMPLE=8/256 ;; # the tools' default (ggmlviz-llama-tools.cpp)
		graphs) set -- GGML_VIZ_CUPTI_GRAPHS=1 ;;
		esac
		env "$@" "$cuda_build/examples/llama_trace" --model "$model" --gpu-layers 99 \
			--generate "$tokens" --ctx $((tokens + 256)) --output "$work/ops-$mode.ggmlviz" \
			>"$work/ops-$mode.out" 2>&1
		"$cuda_build/tools/ggmlviz" stats -f json --phase generation --by "$([ "$mode" = graphs ] &&
			echo kernel || echo op)" "$work/ops-$mode.ggmlviz" >"$work/ops-$mode.json" 2>&1
	done
	python3 - "$work" >"$work/ops-table.txt" 2>&1 <<'PY'
import json, os, sys
work = sys.argv[1]
def load(mode):
    try:
        return json.load(open(os.path.join(work, 'ops-%s.json' % mode)))
    except (OSError, ValueError):
        return {}
every, windows, graphs = load('every'), load('windows'), load('graphs')
def per_token(js):
    t = js.get('tokens') or 0
    return {g['name']: g['total_ns'] / t / 1e3 for g in js.get('groups', [])} if t else {}
e, w = per_token(every), per_token(windows)
g = per_token(graphs).get('[CUDA graph]')
print('%-24s %14s %14s' % ('OP (generation)', 'EVERY KERNEL', 'IN WINDOWS'))
for name in sorted(e, key=e.get, reverse=True)[:12]:
    print('%-24s %11.1f us %11.1f us' % (name, e[name], w.get(name, float('nan'))))
te, tw = sum(e.values()), sum(w.values())
print('%-24s %11.1f us %11.1f us' % ('TOTAL a token', te, tw))
if g:
    print('untraced: the CUDA graphs\' GPU time a token %.1f us (no kernel recorded: '
          'GGML_VIZ_CUPTI_GRAPHS=1); recorded kernels sum to %.3f (every) and %.3f (windows) '
          'of it' % (g, te / g, tw / g))
sampled = (windows.get('gpu_windows') or {}).get('sampled_steps')
print('(windows: %s sampled steps of %s generated)' % (sampled, every.get('tokens')))
PY
	sed 's/^/gpu-check: /' "$work/ops-table.txt" >&2
	ratio=$(sed -n 's/.*recorded kernels sum to \([0-9.]*\) (every) and \([0-9.]*\) (windows).*/\1, \2/p' \
		"$work/ops-table.txt")
	row "kernels' GPU time a token / the CUDA graphs' untraced: every kernel, in windows" \
		"${ratio:-?} (per op: $work/ops-table.txt)" "(measured)"
	for graphs in on off; do
		say "bench_llama --gpu-layers 99, CUDA graphs $graphs"
		if [ "$graphs" = on ]; then
			"$cuda_build/bench/bench_llama" --gpu-layers 99 --rounds 9 >"$work/bench-gpu-on.out" 2>&1
		else
			GGML_CUDA_DISABLE_GRAPHS=1 "$cuda_build/bench/bench_llama" --gpu-layers 99 --rounds 9 \
				>"$work/bench-gpu-off.out" 2>&1
		fi
		ratio=$(sed -n 's/^ *generation, every op *\([0-9.]*\).*/\1/p' "$work/bench-gpu-$graphs.out" | head -n 1)
		st=$(awk -v r="${ratio:-0}" 'BEGIN { print (r >= 0.97 ? "ok" : "miss") }')
		[ "$graphs" = off ] && st=
		row "decode tokens/s traced / untraced, CUDA graphs $graphs" "${ratio:-?}" \
			"$([ "$graphs" = on ] && echo 'at least 0.97' || echo '(measured)')" "$st"
	done
	for graphs in on off; do
		share=$(sed -n 's/.* \([0-9.]*\)% of the GPU.s busy time.*/\1/p' "$work/bench-gpu-$graphs.out" |
			head -n 1)
		st=$(awk -v s="${share:-0}" 'BEGIN { print (s >= 95 && s <= 105 ? "ok" : "miss") }')
		row "the ops' GPU time / the GPU's busy time, CUDA graphs $graphs" "${share:-?}%" \
			"within 5%" "$st"
	done
else
	row "llama.cpp on the GPU ($tokens tokens; tokens/s traced/untraced)" \
		"not run: $([ "$have_gpu" = yes ] && echo 'GGML with CUDA did not build' || echo 'no GPU')" \
		"0 lost; at least 0.97" skip
fi

# ---- 4b. llama.cpp's llama-bench, built traced for CUDA, on SmolLM2-135M's shape ----
if [ "$llama_bench" = yes ] && [ "$have_gpu" = yes ] && [ -n "$nvcc" ]; then
	tools_out="$work/llama-tools-cuda"
	say "building llama-bench traced for CUDA (scripts/build-llama-tools.sh --cuda) in $tools_out"
	if tools_bin=$("$src/scripts/build-llama-tools.sh" --cuda --arch "$arch" --tools llama-bench \
		--source "$top/third_party/ggml/src" "$tools_out" 2>"$work/llama-tools.out" | tail -n 1) &&
		[ -x "$tools_bin/llama-bench" ]; then
		say "bench/llama-bench.sh on the GPU: plain, traced (windows), every kernel, steps only, NVTX"
		MODEL_WIDTH=576 ROUNDS=9 MODES="plain traced every steps nvtx" \
			GGMLVIZ="${cuda_build:-$lib}/tools/ggmlviz" sh "$top/bench/llama-bench.sh" "$tools_bin" \
			-- -ngl 99 -p 64 -n 64 -r 3 -t 2 >"$work/llama-bench.out" 2>&1
		for m in "as the build traces" "every GPU kernel" "steps and runs only" "NVTX ranges"; do
			r=$(grep "^  tg: .*$m" "$work/llama-bench.out" | sed -n 's/.*traced \/ untraced \([0-9.]*\).*/\1/p')
			st=
			[ "$m" = "as the build traces" ] &&
				st=$(awk -v r="${r:-0}" 'BEGIN { print (r >= 0.97 ? "ok" : "miss") }')
			row "llama-bench tg on SmolLM2-135M's shape, CUDA graphs on: $m / untraced" "${r:-?}" \
				"$([ -n "$st" ] && echo 'at least 0.97' || echo '(measured)')" "$st"
		done
	else
		row "llama-bench built traced for CUDA" "failed: $work/llama-tools.out" "builds" miss
	fi
fi

# ---- 5. the CPU: bench_llama by thread count, bench_writer by producers ----
cpu_build=${cuda_build:-}
[ -n "$cpu_build" ] || { [ -x "$lib/bench/bench_llama" ] && cpu_build=$lib; }
[ -n "$cpu_build" ] || { [ -x "$top/build/bench/bench_llama" ] && cpu_build="$top/build"; }
cores=$(nproc 2>/dev/null || echo 1)
# What a stamp and an event cost here, and from which clock: what every op's records cost
# the traced program rests on (a clock_gettime that is a system call, under a hypervisor
# without the TSC, costs 10 to 50 times what it does through the vDSO).
if [ "$cpu" = yes ] && [ -x "$lib/bench/bench_tracer" ]; then
	say "bench_tracer: one recorded event against one clock read"
	"$lib/bench/bench_tracer" >"$work/tracer.out" 2>&1
	GGML_VIZ_VERBOSE=1 GGML_VIZ_OUTPUT="$work/threads.ggmlviz" "$lib/examples/threads" \
		"$work/threads.ggmlviz" 2>&1 | sed -n 's/.*timestamps from \(.*\))$/\1/p' |
		head -n 1 >"$work/tracer-clock.out"
	gettime=$(sed -n 's/^clock_gettime(CLOCK_MONOTONIC): \([0-9.]*\) ns.*/\1/p' "$work/tracer.out")
	event=$(sed -n 's/^recorded event (.*), 1 thread: \([0-9.]*\) ns = \([0-9.]*\)x.*/\1 ns (\2x clock_gettime)/p' \
		"$work/tracer.out")
	source=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
	row "the tracer's clock: a recorded event, a clock_gettime" \
		"${event:-?}, ${gettime:-?} ns; stamps from $(cat "$work/tracer-clock.out"); clocksource ${source:-?}" \
		"(said, not judged)"
fi
for threads in 1 4 8 16; do
	[ "$cpu" = yes ] || break
	if [ "$threads" -gt "$cores" ]; then
		row "bench_llama, CPU, $threads threads" "not run: $cores cores here" "at least 0.98" skip
		continue
	fi
	if [ -z "$cpu_build" ]; then
		row "bench_llama, CPU, $threads threads" "not built: no GGML (scripts/fetch-ggml.sh)" "at least 0.98" skip
		continue
	fi
	say "bench_llama on the CPU, $threads threads"
	"$cpu_build/bench/bench_llama" --threads "$threads" --rounds 7 >"$work/bench-cpu-$threads.out" 2>&1
	ratio=$(sed -n 's/^ *generation, every op *\([0-9.]*\).*/\1/p' "$work/bench-cpu-$threads.out" | head -n 1)
	st=$(awk -v r="${ratio:-0}" 'BEGIN { print (r >= 0.98 ? "ok" : "miss") }')
	row "bench_llama, CPU, $threads threads: every op / untraced" "${ratio:-?} ($cores cores)" \
		"at least 0.98" "$st"
done
for producers in 4 8 16; do
	[ "$cpu" = yes ] || break
	say "bench_writer, $producers producers"
	"$lib/bench/bench_writer" --threads "$producers" --ring 65536 >"$work/writer-$producers.out" 2>&1
	ratio=$(sed -n 's/.*block mode: .* = \([0-9.]*\)x the page cache.*/\1/p' "$work/writer-$producers.out" | head -n 1)
	st=$(awk -v r="${ratio:-0}" 'BEGIN { print (r >= 0.8 ? "ok" : "miss") }')
	row "bench_writer, $producers producers, lossless: x the page cache" "${ratio:-?} ($cores cores)" \
		"at least 0.8" "$st"
done

# ---- the table ----
printf '\n%-62s  %-44s  %-26s  %s\n' "CHECK" "RESULT" "TARGET" ""
awk -F'\t' '{ printf "%-62s  %-44s  %-26s  %s\n", $1, $2, $3, $4 }' "$table"
printf '\n(the outputs behind each row are in %s)\n' "$work"
if [ "$have_gpu" != yes ] || [ -z "$nvcc" ]; then
	echo "gpu-check: no GPU or no CUDA toolkit here${missing}: the GPU rows were not run (exit 77)"
	exit 77
fi
exit $failed
