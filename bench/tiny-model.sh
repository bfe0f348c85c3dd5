# Sourced by bench/llama-bench.sh and bench/ticks-truth.sh: llama-bench's
# arguments with the model: -m as given, else the quick start's model
# (make_tiny_llama's q8_0, 8 layers, 512 wide) written into $tmp.
#
#     args=$(tiny_model_args "$top" "$tmp" "$*")
#
# SPDX-License-Identifier: MIT
tiny_model_args() {
	case " $3 " in
	*" -m "*) echo "$3" ;;
	*)
		"$1/build/examples/make_tiny_llama" "$2/model.gguf" --layers 8 --embd 512 --heads 8 \
			--kv-heads 4 --ff 1408 --vocab 2048 --type q8_0 >/dev/null || return 1
		echo "-m $2/model.gguf $3" ;;
	esac
}
