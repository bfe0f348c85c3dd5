# Sourced by bench/llama-bench.sh and bench/ticks-truth.sh: llama-bench's
# arguments with the model: -m as given, else a model make_tiny_llama
# writes into $tmp: the quick start's (q8_0, 8 layers, 512 wide: 26 MiB,
# which fits a server CPU's last-level cache), or with MODEL_WIDTH=1024 or
# 2048 the same 8 layers that wide (109 MiB, 400 MiB: weights streamed
# from memory at every token, as a real model's are), or with
# MODEL_WIDTH=576 the shape of the smallest model llama.cpp's users run,
# SmolLM2-135M (30 layers, 9 heads and 3 for keys and values, 1536 wide
# feed-forward, 49152 tokens: 515 ops a token; 165 MiB in q8_0 with an
# output matrix of its own where the real one reuses its embeddings, which
# changes no token's work). Its weights are random: the times are a real
# model's, the words are not.
#
#     args=$(tiny_model_args "$top" "$tmp" "$*")
#
# SPDX-License-Identifier: MIT
tiny_model_args() {
	case " $3 " in
	*" -m "*) echo "$3" ;;
	*)
		case "${MODEL_WIDTH:-512}" in
		512) shape="--embd 512 --heads 8 --ff 1408 --vocab 2048" ;;
		1024) shape="--embd 1024 --heads 16 --ff 2816 --vocab 8192" ;;
		2048) shape="--embd 2048 --heads 16 --ff 5632 --vocab 8192" ;;
		576) shape="--embd 576 --heads 9 --kv-heads 3 --ff 1536 --vocab 49152 --layers 30" ;;
		*) echo "MODEL_WIDTH=$MODEL_WIDTH: 512, 1024, 2048, or 576 (SmolLM2-135M's shape)" >&2
		   return 1 ;;
		esac
		# shellcheck disable=SC2086 # the shape's words (the last --layers, --kv-heads given win)
		"$1/build/examples/make_tiny_llama" "$2/model.gguf" --layers 8 --kv-heads 4 $shape \
			--type q8_0 >/dev/null || return 1
		echo "-m $2/model.gguf $3" ;;
	esac
}
