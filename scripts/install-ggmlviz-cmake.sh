#!/bin/sh
# Builds libggmlviz from this checkout, whatever state it is in (configured
# in place, out of tree, or not at all), and installs what a CMake project
# needs (the library, the headers, the CMake package) into PREFIX, for
# scripts/build-llama-tools.sh and scripts/build-whisper-tools.sh:
#
#     scripts/install-ggmlviz-cmake.sh PREFIX LOG [--with-cupti=DIR]
#
# The build's output goes to LOG. An unconfigured checkout is configured
# in PREFIX-build (--with-ggml=no, and --with-cupti=DIR where given). The
# last line printed is the folder of ggmlviz-config.cmake, for CMake's
# -Dggmlviz_DIR.
#
# SPDX-License-Identifier: MIT
set -eu

die() {
	printf 'install-ggmlviz-cmake: error: %s\n' "$*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: $0 PREFIX LOG [--with-cupti=DIR]"
top=$(cd "$(dirname "$0")/.." && pwd)
prefix=$1
log=$2
with_cupti=${3:-}

want="lib/libggmlviz.a cmake/ggmlviz-config.cmake cmake/ggmlviz-config-version.cmake"
installs="install-libLIBRARIES install-ggmlvizincludeHEADERS install-cmakeDATA"
if [ -f "$top/config.status" ]; then
	# configured in place: built there, installed into a staging folder (the package is relocatable)
	# shellcheck disable=SC2086 # the targets are words
	(cd "$top" && make $want && rm -rf "$prefix.stage" &&
		make $installs DESTDIR="$prefix.stage") >>"$log" 2>&1 ||
		die "libggmlviz did not build in $top (see $log)"
	cfg=$(find "$prefix.stage" -name ggmlviz-config.cmake | head -n 1)
	rm -rf "$prefix"
	mv "$(dirname "$(dirname "$(dirname "$(dirname "$cfg")")")")" "$prefix" ||
		die "libggmlviz's staged install could not be moved into $prefix"
	rm -rf "$prefix.stage"
else
	[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh) >>"$log" 2>&1 ||
		die "autogen.sh failed (see $log)"
	mkdir -p "$prefix-build"
	# shellcheck disable=SC2086 # the targets are words
	(cd "$prefix-build" &&
		{ [ -f Makefile ] || "$top/configure" --prefix="$prefix" --with-ggml=no $with_cupti; } &&
		make $want && make $installs) >>"$log" 2>&1 ||
		die "libggmlviz did not build (see $log)"
fi
cfg=$(find "$prefix" -name ggmlviz-config.cmake | head -n 1)
[ -n "$cfg" ] || die "no ggmlviz-config.cmake was installed under $prefix"
dirname "$cfg"
