# shellcheck shell=sh
# Sourced by bench/op-self.sh and bench/op-pair.sh: llama-bench of the
# tools' build linked again, with a benchmark's own objects and flags.
#
#     relink_command TOOLS_BUILD OUT 'EXTRA' [LIB]
#
# prints llama-bench's own link command (ninja's, to run in TOOLS_BUILD)
# with -o OUT and EXTRA (objects, -Wl,--wrap=NAME flags) before its own
# inputs and, with LIB, that libggmlviz.a in place of the tools' own.
# Where the command is not understood, or names no libggmlviz.a to
# replace, it says so and fails (set -e then ends the script).
#
# SPDX-License-Identifier: MIT

relink_command() {
	_link=$(ninja -C "$1" -t commands bin/llama-bench | tail -n 1 | sed 's/^: && //; s/ && :$//')
	case "$_link" in *"-o bin/llama-bench "*) ;; *)
		echo "$0: llama-bench's link command not understood: $_link" >&2
		return 1 ;;
	esac
	_link=$(printf '%s' "$_link" | sed "s|-o bin/llama-bench |-o $2 $3 |")
	if [ -n "${4:-}" ]; then
		_lib=$(printf '%s' "$_link" | tr ' ' '\n' | grep '/libggmlviz\.a$' | head -n 1)
		[ -n "$_lib" ] || { echo "$0: no libggmlviz.a in llama-bench's link command" >&2; return 1; }
		_link=$(printf '%s' "$_link" | sed "s|$_lib|$4|")
	fi
	printf '%s' "$_link"
}
