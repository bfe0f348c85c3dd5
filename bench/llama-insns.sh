#!/bin/sh
# What timing every op costs llama.cpp in instructions, counted by callgrind
# (deterministic, where tokens/s on a shared machine are noisy): the same
# llama_trace run (a generated 8-layer model, a prompt and 8 tokens, 1
# thread) with op timing off and on; the instructions of the decode calls
# (llama_decode and the adapter's flush after it) are compared.
#
#   bench/llama-insns.sh [BUILD_DIR]    (default: build; needs valgrind)
#
# SPDX-License-Identifier: MIT
set -eu
build=${1:-build}
command -v valgrind >/dev/null || { echo "llama-insns: valgrind is not installed" >&2; exit 1; }
[ -x "$build/examples/llama_trace" ] || { echo "llama-insns: $build/examples/llama_trace is not built" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/examples/make_tiny_llama" "$tmp/m.gguf" --layers 8 --embd 512 --heads 8 --kv-heads 4 \
	--ff 1408 --vocab 2048 >/dev/null

# Inclusive instructions of a function, from callgrind's output.
incl() { # out function
	callgrind_annotate --inclusive=yes "$1" 2>/dev/null |
		awk -v f="$2" 'index($0, f) && $0 ~ /^ *[0-9,]+ / { gsub(/,/, "", $1); print $1; exit }'
}
for mode in 0 auto; do
	GGML_VIZ_OP_TIMING=$mode valgrind --tool=callgrind --callgrind-out-file="$tmp/$mode.cg" \
		"$build/examples/llama_trace" --model "$tmp/m.gguf" --generate 8 --threads 1 \
		--output "$tmp/$mode.ggmlviz" >/dev/null 2>&1
done
off=$(incl "$tmp/0.cg" "???:llama_decode")
on=$(incl "$tmp/auto.cg" "???:llama_decode")
flush=$(incl "$tmp/auto.cg" "nodes.c:ggmlviz_nodes_flush")
awk -v off="$off" -v on="$on" -v flush="${flush:-0}" 'BEGIN {
	printf "llama_decode, op timing off: %d instructions; every op timed: %d, and %d in the adapter after it\n", off, on, flush
	printf "every op timed / off: %.4f (+%.2f%% instructions)\n", (on + flush) / off, 100 * ((on + flush) / off - 1)
}'
