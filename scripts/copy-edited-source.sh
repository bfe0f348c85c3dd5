#!/bin/sh
# Copies a llama.cpp source into COPY and applies libggmlviz's edits to
# the copy (contrib/llama.cpp/ggmlviz-edit.py EDITS: --cpu-shares,
# --server-requests, ...), for scripts/build-llama-tools.sh and
# scripts/build-ggml-cuda.sh; with --for whisper.cpp, a whisper.cpp source
# and contrib/whisper.cpp/ggmlviz-edit.py's edits, for
# scripts/build-whisper-tools.sh:
#
#     scripts/copy-edited-source.sh [--for whisper.cpp] SOURCE COPY [EDITS...]
#
# SOURCE is never written to. Its files are git's tracked and
# untracked-not-ignored ones where SOURCE is a work tree's top, else all
# but .git and build folders. The copy is made again only when a file of
# SOURCE, an edit's file, or EDITS changed (a stamp in COPY/.ggmlviz-copy).
# An edit that does not fit says where, and then COPY is removed and the
# exit status is 1.
#
# SPDX-License-Identifier: MIT
set -eu

die() {
	printf 'copy-edited-source: error: %s\n' "$*" >&2
	exit 1
}

top=$(cd "$(dirname "$0")/.." && pwd)
contrib="$top/contrib/llama.cpp"
edit_dir=$contrib
whisper=
if [ "${1:-}" = --for ]; then
	[ "${2:-}" = whisper.cpp ] || die "--for wants whisper.cpp, not '${2:-}'"
	edit_dir="$top/contrib/whisper.cpp"
	whisper=$(cat "$edit_dir/ggmlviz-edit.py" "$edit_dir/ggmlviz-server.h")
	shift 2
fi
[ $# -ge 2 ] || die "usage: $0 [--for whisper.cpp] SOURCE COPY [EDITS...]"
source_dir=$1
copy=$2
shift 2
edits="$*"

# The files of the checkout: git's tracked and untracked-not-ignored (where SOURCE is a work
# tree's top, not a folder another repository ignores), else all but build folders.
list_files() {
	if [ "$(git -C "$source_dir" rev-parse --show-toplevel 2>/dev/null)" = "$source_dir" ]; then
		git -C "$source_dir" ls-files -z --cached --others --exclude-standard
	else
		(cd "$source_dir" && find . -path ./.git -prune -o -path './build*' -prune -o -type f -print0)
	fi
}

stamp=$({ list_files | tr '\0' '\n' | (cd "$source_dir" && xargs -r ls -l --time-style=+%s 2>/dev/null)
	  cat "$contrib/ggmlviz-edit.py" "$contrib/ggmlviz-server.h" "$contrib/ggmlviz-vulkan.h" \
		"$contrib/ggmlviz-cpu.h" "$contrib/ggmlviz-sched.h" "$contrib/ggmlviz-rpc.h"; echo "$whisper$edits"; } |
	cksum | cut -d' ' -f1)
[ "$(cat "$copy/.ggmlviz-copy" 2>/dev/null)" != "$stamp" ] || exit 0
printf 'copy-edited-source: copying %s into %s\n' "$source_dir" "$copy" >&2
rm -rf "$copy"
mkdir -p "$copy"
list_files | (cd "$source_dir" && tar --null -T - -cf -) | tar -C "$copy" -xf - ||
	die "the source could not be copied into $copy"
if [ -n "$edits" ]; then
	# shellcheck disable=SC2086 # the options are words
	python3 "$edit_dir/ggmlviz-edit.py" "$copy" $edits >&2 || { rm -rf "$copy"; exit 1; }
fi
echo "$stamp" >"$copy/.ggmlviz-copy"
