#!/bin/sh
# Fetches whisper.cpp's source into a git-ignored folder, for
# scripts/build-whisper-tools.sh, its tests and bench/whisper-bench.sh:
#
#     scripts/fetch-whisper.sh [--force] [DIR]     (DIR: third_party/whisper.cpp)
#
# whisper.cpp publishes no package of its source; the npm package
# nodejs-whisper carries one release whole (cpp/whisper.cpp: its own GGML,
# src/, include/, examples/ with whisper-cli, whisper-bench and
# whisper-server, and samples/jfk.mp3). DIR gets src/ (that folder as it
# is), LICENSE, and VERSION (the package, whisper.cpp's and GGML's
# versions), written last: a folder with a VERSION naming the wanted
# package is complete, and is left alone unless --force is given. Nothing
# of whisper.cpp is ever committed.
#
# SPDX-License-Identifier: MIT
set -eu

PACKAGE=nodejs-whisper@0.3.1

die() {
	printf 'fetch-whisper: error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf 'fetch-whisper: %s\n' "$*"
}

usage() {
	printf 'usage: %s [--force] [DIR]\n' "$0"
	printf '  fetches whisper.cpp'"'"'s source (npm package %s) into DIR\n' "$PACKAGE"
	printf '  (default: third_party/whisper.cpp)\n'
}

force=no
dest=
for arg in "$@"; do
	case "$arg" in
	--force) force=yes ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$arg'" ;;
	*) [ -z "$dest" ] || die "more than one DIR given ('$dest', '$arg')"; dest=$arg ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$dest" ] || dest="$top/third_party/whisper.cpp"

is_complete() {
	[ -f "$dest/VERSION" ] && grep -qxF "package=$PACKAGE" "$dest/VERSION" &&
		[ -f "$dest/src/CMakeLists.txt" ] && [ -f "$dest/src/include/whisper.h" ] &&
		[ -f "$dest/src/src/whisper.cpp" ] && [ -d "$dest/src/ggml" ]
}
if [ "$force" = no ] && is_complete; then
	say "whisper.cpp is already in $dest ($(sed -n 's/^whisper.cpp=//p' "$dest/VERSION"))"
	exit 0
fi

for tool in npm tar; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is needed and was not found (apt-get install npm tar)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-whisper.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

say "downloading $PACKAGE from $(npm config get registry 2>/dev/null || echo 'the npm registry')"
if ! (cd "$tmp" && npm pack --loglevel=error "$PACKAGE" >"$tmp/pack.out" 2>"$tmp/pack.err"); then
	grep -m 3 . "$tmp/pack.err" | sed 's/^/  /' >&2
	die "could not download $PACKAGE (no network, or the registry cannot be reached?)"
fi
tarball="$tmp/$(tail -n 1 "$tmp/pack.out")"
[ -f "$tarball" ] || die "npm pack $PACKAGE made no tarball"
mkdir -p "$tmp/pkg"
tar -xzf "$tarball" -C "$tmp/pkg" || die "cannot unpack $tarball"
src="$tmp/pkg/package/cpp/whisper.cpp"
[ -f "$src/include/whisper.h" ] && [ -f "$src/src/whisper.cpp" ] && [ -f "$src/CMakeLists.txt" ] ||
	die "$PACKAGE holds no whisper.cpp source in cpp/whisper.cpp"

version=$(sed -n 's/^project("whisper.cpp" VERSION \([0-9.]*\))$/\1/p' "$src/CMakeLists.txt")
ggml_version=$(sed -n 's/^set(GGML_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\))$/\2/p' \
	"$src/ggml/CMakeLists.txt" | paste -sd. -)
stage="$tmp/whisper.cpp"
mkdir -p "$stage"
mv "$src" "$stage/src"
cp "$stage/src/LICENSE" "$stage/LICENSE"
{
	echo "package=$PACKAGE"
	echo "whisper.cpp=${version:-unknown}"
	echo "ggml=${ggml_version:-unknown}"
} >"$stage/VERSION.new"

# Replace the folder in one step, VERSION last, so a cut run leaves no
# folder that looks complete.
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.old"
[ ! -e "$dest" ] || mv "$dest" "$dest.old"
mv "$stage" "$dest"
mv "$dest/VERSION.new" "$dest/VERSION"
rm -rf "$dest.old"
say "whisper.cpp ${version:-unknown} (GGML ${ggml_version:-unknown}) is in $dest"
