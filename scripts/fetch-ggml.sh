#!/bin/sh
# Fetches a prebuilt GGML and libllama (llama.cpp) with their headers into a
# git-ignored folder, for the GGML and llama.cpp examples, tests and benchmarks:
#
#     scripts/fetch-ggml.sh [--force] [--source] [DIR]   (DIR: third_party/ggml)
#     ./configure --with-ggml="$PWD/third_party/ggml"
#
# Debian has no GGML package; the npm registry has one, prebuilt:
#   @node-llama-cpp/linux-x64  bins/linux-x64/libggml*.so and libllama.v*.so
#                              (x86-64 Linux only)
#   node-llama-cpp             llama/gitRelease.bundle, the matching
#                              llama.cpp source, whose ggml/include/ and
#                              include/ hold the headers;
#   @node-llama-cpp/linux-x64-vulkan  (optional) bins/linux-x64-vulkan/
#                              libggml-vulkan.so, GGML's Vulkan backend of
#                              the same release, whose libggml-base.so is the
#                              CPU package's byte for byte: it loads beside
#                              the CPU backends (on Mesa's software device,
#                              GGML_VK_VISIBLE_DEVICES=0, for the GPU tests).
# DIR gets lib/ (the shared libraries, with the libggml-cpu-<arch>.so
# variants that ggml_backend_load_all_from_path() picks from, libllama and,
# when it could be fetched, libggml-vulkan.so), include/ (ggml*.h, gguf.h,
# llama.h), LICENSE, and VERSION (with vulkan=yes or vulkan=no and why),
# written last: a folder with a
# VERSION naming the wanted release is complete, and is left alone unless
# --force is given. With --source, DIR/src also gets the release's
# llama.cpp source needed to build GGML, libllama and llama.cpp's tools
# (about 50 MB: scripts/build-ggml-cuda.sh builds them with CUDA from it).
# Nothing of GGML is ever committed.
#
# SPDX-License-Identifier: MIT
set -eu

NLC_VERSION=3.22.1
BINS_PACKAGE="@node-llama-cpp/linux-x64@$NLC_VERSION"
SOURCE_PACKAGE="node-llama-cpp@$NLC_VERSION"
VULKAN_PACKAGE="@node-llama-cpp/linux-x64-vulkan@$NLC_VERSION"

die() {
	printf 'fetch-ggml: error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf 'fetch-ggml: %s\n' "$*"
}

usage() {
	printf 'usage: %s [--force] [--source] [DIR]\n' "$0"
	printf '  fetches GGML (node-llama-cpp %s) into DIR (default: third_party/ggml)\n' \
		"$NLC_VERSION"
	printf '  --source  also the release'"'"'s llama.cpp source, in DIR/src\n'
}

force=no
source=no
dest=
for arg in "$@"; do
	case "$arg" in
	--force) force=yes ;;
	--source) source=yes ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; die "unknown option '$arg'" ;;
	*) [ -z "$dest" ] || die "more than one DIR given ('$dest', '$arg')"; dest=$arg ;;
	esac
done
top=$(cd "$(dirname "$0")/.." && pwd)
[ -n "$dest" ] || dest="$top/third_party/ggml"

# A complete folder for this release: nothing to do.
is_complete() {
	[ -f "$dest/VERSION" ] &&
		grep -qxF "package=$SOURCE_PACKAGE" "$dest/VERSION" &&
		[ -f "$dest/include/ggml.h" ] && [ -f "$dest/include/ggml-backend.h" ] &&
		ls "$dest"/lib/libggml.v*.so >/dev/null 2>&1 &&
		[ -f "$dest/lib/libggml-base.so" ] &&
		ls "$dest"/lib/libllama.v*.so >/dev/null 2>&1 && [ -f "$dest/include/llama.h" ] &&
		grep -q '^vulkan=' "$dest/VERSION" &&
		{ [ "$source" = no ] || [ -d "$dest/src/scripts" ]; }
}
if [ "$force" = no ] && is_complete; then
	say "GGML is already in $dest ($(sed -n 's/^ggml=//p' "$dest/VERSION"))"
	exit 0
fi

# The prebuilt libraries exist for x86-64 Linux only.
os=$(uname -s)
arch=$(uname -m)
[ "$os" = Linux ] || die "the prebuilt GGML is for Linux only, this is $os;" \
	"build GGML yourself and use configure --with-ggml=PREFIX"
[ "$arch" = x86_64 ] || die "the prebuilt GGML is for x86-64 only, this is $arch;" \
	"build GGML yourself and use configure --with-ggml=PREFIX"
for tool in npm git tar; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is needed and was not found (apt-get install npm git tar)"
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-ggml.XXXXXX") || die "cannot make a temporary folder"
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

# npm pack downloads NAME@VERSION's tarball into the current folder and
# unpacks it into $tmp/$2; with a third argument "optional", a failure
# returns 1 instead of ending the script.
npm_pack() {
	say "downloading $1 from $(npm config get registry 2>/dev/null || echo 'the npm registry')"
	if ! (cd "$tmp" && npm pack --loglevel=error "$1" >"$tmp/pack.out" 2>"$tmp/pack.err"); then
		grep -m 3 . "$tmp/pack.err" | sed 's/^/  /' >&2
		[ "${3:-}" = optional ] && return 1
		die "could not download $1 (no network, or the registry cannot be reached?)"
	fi
	tarball="$tmp/$(tail -n 1 "$tmp/pack.out")"
	[ -f "$tarball" ] || die "npm pack $1 made no tarball"
	mkdir -p "$tmp/$2"
	tar -xzf "$tarball" -C "$tmp/$2" || die "cannot unpack $tarball"
	rm -f "$tarball"
}
npm_pack "$BINS_PACKAGE" bins
npm_pack "$SOURCE_PACKAGE" source

bins="$tmp/bins/package/bins/linux-x64"
bundle="$tmp/source/package/llama/gitRelease.bundle"
ls "$bins"/libggml.v*.so >/dev/null 2>&1 || die "$BINS_PACKAGE holds no libggml.v*.so"
ls "$bins"/libllama.v*.so >/dev/null 2>&1 || die "$BINS_PACKAGE holds no libllama.v*.so"
[ -f "$bundle" ] || die "$SOURCE_PACKAGE holds no llama/gitRelease.bundle"

# Only the headers and the license are needed from the source: fetch the
# bundle into an empty repository and export those paths, no checkout.
stage="$tmp/ggml"
mkdir -p "$stage/lib" "$stage/include"
git init -q "$tmp/src" || die "git init failed"
git -C "$tmp/src" fetch -q "$bundle" HEAD 2>"$tmp/git.err" ||
	{ cat "$tmp/git.err" >&2; die "cannot read $bundle"; }
commit=$(git -C "$tmp/src" rev-parse FETCH_HEAD)
git -C "$tmp/src" archive FETCH_HEAD ggml/include include/llama.h LICENSE ggml/CMakeLists.txt |
	tar -x -C "$tmp/src" || die "cannot extract ggml/include and include/llama.h from $bundle"
cp "$tmp/src"/ggml/include/*.h "$tmp/src/include/llama.h" "$stage/include/"
cp "$tmp/src/LICENSE" "$stage/LICENSE"
cp "$bins"/libggml*.so "$bins"/libllama.v*.so "$stage/lib/"
if [ "$source" = yes ]; then
	mkdir -p "$stage/src"
	git -C "$tmp/src" archive FETCH_HEAD CMakeLists.txt cmake ggml src include common tools \
		vendor licenses LICENSE app scripts | tar -x -C "$stage/src" ||
		die "cannot extract llama.cpp's source from $bundle"
fi

# GGML's Vulkan backend, optional: it drops in beside the CPU backends only
# if its libggml-base.so is the one they load.
vulkan="no (not fetched)"
if npm_pack "$VULKAN_PACKAGE" vulkan optional; then
	vk="$tmp/vulkan/package/bins/linux-x64-vulkan"
	if [ ! -f "$vk/libggml-vulkan.so" ]; then
		vulkan="no ($VULKAN_PACKAGE holds no libggml-vulkan.so)"
	elif ! cmp -s "$vk/libggml-base.so" "$stage/lib/libggml-base.so"; then
		vulkan="no (its libggml-base.so differs from the CPU package's)"
	else
		cp "$vk/libggml-vulkan.so" "$stage/lib/"
		vulkan=yes
	fi
fi
[ "$vulkan" = yes ] || say "the Vulkan backend is left out: ${vulkan#no }"

ggml_version=$(sed -n 's/^set(GGML_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\))$/\2/p' \
	"$tmp/src/ggml/CMakeLists.txt" | paste -sd. -)
release=$(sed -n 's/.*"release": *"\([^"]*\)".*/\1/p' \
	"$tmp/source/package/llama/binariesGithubRelease.json" 2>/dev/null || true)
{
	echo "package=$SOURCE_PACKAGE"
	echo "ggml=${ggml_version:-unknown}"
	echo "llama.cpp=${release:-unknown}"
	echo "commit=$commit"
	echo "vulkan=$vulkan"
	echo "source=$source"
} >"$stage/VERSION.new"

# Replace the folder in one step, VERSION last, so a cut run leaves no
# folder that looks complete.
mkdir -p "$(dirname "$dest")"
rm -rf "$dest.old"
[ ! -e "$dest" ] || mv "$dest" "$dest.old"
mv "$stage" "$dest"
mv "$dest/VERSION.new" "$dest/VERSION"
rm -rf "$dest.old"
say "GGML ${ggml_version:-unknown} (llama.cpp ${release:-unknown}) is in $dest"
say "next: ./configure --with-ggml=$dest"
