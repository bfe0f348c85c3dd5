#!/bin/sh
# libggmlviz quick start, on a fresh Debian 12 machine (as root):
#   installs what is missing, fetches a real GGML and llama.cpp, builds
#   everything, traces llama.cpp running a small model (a prompt, then token
#   by token), and shows where the time went.
#
#   ./quickstart.sh
#
# The trace is left in demo.ggmlviz for later: build/tools/ggmlviz --help.
#
# SPDX-License-Identifier: MIT
set -eu

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
trace="$top/demo.ggmlviz"

step() { printf '\n== %s\n' "$*"; }

step "installing what is missing"
scripts/install-deps.sh

step "fetching GGML (prebuilt, from the npm registry) into third_party/ggml"
ggml=yes
scripts/fetch-ggml.sh || {
	ggml=no
	echo "quickstart: GGML could not be fetched; the demo falls back to the GGML-free example"
}

# speedscope, a profile viewer: only a test opens an export in it (chromium)
scripts/fetch-speedscope.sh >/dev/null 2>&1 ||
	echo "quickstart: speedscope could not be fetched; its browser test will say so"
# OpenTelemetry's OTLP definitions: only a test checks export --format otlp against them
scripts/fetch-otlp-proto.sh >/dev/null 2>&1 ||
	echo "quickstart: the OTLP definitions could not be fetched; their test will say so"

step "building (out of tree, in build/)"
# automake's notes on the files it installs are not news: said only if it fails
[ -x configure ] || out=$(./autogen.sh 2>&1) || { echo "$out"; exit 1; }
mkdir -p build
cd build
../configure --enable-werror >configure.out 2>&1 || { tail -30 configure.out; exit 1; }
sed -n '/libggmlviz [0-9]/,$p' configure.out
make -j2 >make.out 2>&1 || { tail -40 make.out; exit 1; }
echo "built: lib/libggmlviz.a, tools/ggmlviz, examples/"

if [ "$ggml" = yes ] && [ -x examples/llama_trace ]; then
	step "writing a small llama model (8 layers, 512 wide, random weights, q8_0) to build/demo.gguf"
	examples/make_tiny_llama demo.gguf --layers 8 --embd 512 --heads 8 --kv-heads 4 \
		--ff 1408 --vocab 2048 --type q8_0
	step "tracing llama.cpp: a 64-token prompt, then 32 tokens generated, on 2 CPU threads"
	# GGML_VIZ_PEAK=2: the machine's peak measured first, so that stats says what bounds each op;
	# GGML_VIZ_MEMORY_TRACKING=1: the model's, the KV cache's and the compute buffers by device
	GGML_VIZ_PEAK=2 GGML_VIZ_MEMORY_TRACKING=1 examples/llama_trace --model demo.gguf \
		--generate 32 --threads 2 --output "$trace"
	step "where the time went, by phase: prompt processing and generation, per token"
	tools/ggmlviz stats "$trace" --by phase
	step "each generated token, by op"
	tools/ggmlviz stats "$trace" --by op --phase generation --top 8
	step "each generated token, by layer"
	tools/ggmlviz stats "$trace" --by layer --phase generation
	step "the same in a browser: one HTML file, nothing fetched, opening on the findings"
	tools/ggmlviz report "$trace" -o "$top/report.html"
	echo "open $top/report.html"
	step "what slows it: each finding with its figures, why, and what to try"
	tools/ggmlviz advise "$trace"
elif [ "$ggml" = yes ] && [ -x examples/ggml_transformer ]; then
	step "tracing a 4-layer transformer, 8 graph computations, on GGML's CPU backend"
	examples/ggml_transformer --layers 4 --steps 8 --output "$trace"
	step "where the time went, by op"
	tools/ggmlviz stats "$trace" --by op --top 10
	step "the same, by layer"
	tools/ggmlviz stats "$trace" --by layer
else
	step "tracing a small multi-threaded workload"
	examples/threads "$trace"
fi

step "next"
cat <<TXT
The trace is $trace. Try:
  build/tools/ggmlviz info $trace
  build/tools/ggmlviz stats $trace --by step --top 5   (the 5 slowest steps)
  build/tools/ggmlviz stats $trace --by name --top 20
  build/tools/ggmlviz stats $trace --by part --phase generation   (the model's parts, per layer)
  build/tools/ggmlviz report $trace -o report.html  (open it in any browser, offline)
  build/tools/ggmlviz export $trace -o demo.json   (open it in https://ui.perfetto.dev)
  build/tools/ggmlviz export -f perfetto $trace -o demo.pftrace   (Perfetto's own format, for long runs)
TXT
[ "$ggml" != yes ] || [ ! -x examples/llama_trace ] || cat <<'TXT'
The CPU op times above are estimated from the CPU backend's ticks (its thread 0's
end of each op): this demo links the prebuilt GGML, which says no more. To
measure every worker thread's share of every op instead, and to trace
llama.cpp's own tools (llama-bench, llama-cli, llama-server), build them with
GGML from source (about 8 minutes on 2 cores, the first time):
  scripts/build-llama-tools.sh
  GGML_VIZ_OUTPUT=bench.ggmlviz third_party/llama-tools/build/bin/llama-bench -m build/demo.gguf -t 2
  build/tools/ggmlviz stats bench.ggmlviz --by thread
TXT
echo "Run every test with: tests/run-all.sh"
