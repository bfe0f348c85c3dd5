# Sourced by bench/llama-bench.sh and bench/ticks-truth.sh: llama-bench's
# arguments with the model: -m as given, else a model make_tiny_llama
# writes into $tmp: the quick start's (q8_0, 8 layers, 512 wide: 26 MiB,
# which fits a server CPU's last-level cache), or with MODEL_WIDTH=1024 or
# 2048 the same 8 layers that wide (109 MiB, 400 MiB: weights streamed
# from memory at every token, as a real model's are).
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
		*) echo "MODEL_WIDTH=$MODEL_WIDTH: 512, 1024 or 2048" >&2; return 1 ;;
		esac
		# shellcheck disable=SC2086 # the shape's words
		"$1/build/examples/make_tiny_llama" "$2/model.gguf" --layers 8 $shape --kv-heads 4 \
			--type q8_0 >/dev/null || return 1
		echo "-m $2/model.gguf $3" ;;
	esac
}
