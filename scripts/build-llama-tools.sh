#!/bin/sh
# Builds llama.cpp's own tools traced by libggmlviz: llama-bench, llama-cli
# (the chat tool), llama-completion and llama-server, from the source of the
# release that scripts/fetch-ggml.sh fetches, with the project's patch
# (contrib/llama.cpp/ggmlviz-tools.patch: common/trace.h, which the tools
# call around their contexts and their llama_decode() calls). When a
# GGML_VIZ_* variable is set (GGML_VIZ_OUTPUT=run.ggmlviz), a tool traces from
# its start to its exit; unset, it runs as the original does.
#
#     scripts/build-llama-tools.sh [DIR]   (DIR: third_party/llama-tools)
#     GGML_VIZ_OUTPUT=bench.ggmlviz DIR/bin/llama-bench -m model.gguf
#
# It fetches the source if it is missing (scripts/fetch-ggml.sh --source),
# builds libggmlviz if build/ has none, copies the source into DIR/src and
# applies the patch there (again only when the patch changed), and builds
# with CMake (Ninja when there is one) in DIR/build: GGML and libllama
# statically, for the CPU (GGML_NATIVE), in a few minutes on 2 cores; run
# again, it builds what changed only. The last line it prints is the folder
# holding the tools.
#
# SPDX-License-Identifier: MIT
set -eu

die() {
	printf 'build-llama-tools: error: %s\n' "$*" >&2
	exit 1
}

say() {
	printf 'build-llama-tools: %s\n' "$*" >&2
}

top=$(cd "$(dirname "$0")/.." && pwd)
dest=
for arg in "$@"; do
	case "$arg" in
	-h | --help)
		printf 'usage: %s [DIR]\n  builds llama-bench, llama-cli, llama-completion and ' "$0"
		printf 'llama-server traced by libggmlviz into DIR/bin\n  (default: third_party/llama-tools)\n'
		exit 0 ;;
	-*) die "unknown option '$arg'" ;;
	*) [ -z "$dest" ] || die "more than one DIR given ('$dest', '$arg')"; dest=$arg ;;
	esac
done
[ -n "$dest" ] || dest="$top/third_party/llama-tools"
patch_file="$top/contrib/llama.cpp/ggmlviz-tools.patch"
[ -f "$patch_file" ] || die "the patch $patch_file is missing"
for tool in cmake patch cc c++; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is needed (scripts/install-deps.sh installs it: cmake, patch, g++)"
done

# 1. the release's source
src="$top/third_party/ggml/src"
if [ ! -d "$src/scripts" ]; then
	say "fetching the release's llama.cpp source (scripts/fetch-ggml.sh --source)"
	"$top/scripts/fetch-ggml.sh" --source >&2 || die "the source could not be fetched"
fi

# 2. libggmlviz
lib="$top/build/lib/libggmlviz.a"
if [ ! -f "$lib" ]; then
	say "building libggmlviz in build/"
	[ -x "$top/configure" ] || (cd "$top" && ./autogen.sh >/dev/null)
	mkdir -p "$top/build"
	(cd "$top/build" && { [ -f Makefile ] || ../configure >configure.out 2>&1; } &&
		make -j"$(nproc 2>/dev/null || echo 2)" lib/libggmlviz.a >make.out 2>&1) ||
		die "libggmlviz did not build (see build/configure.out and build/make.out)"
fi

# 3. the patched source, made again when the source or the patch changed
stamp=$({ cat "$patch_file" "$top/third_party/ggml/VERSION"; ls "$src"; } | cksum | cut -d' ' -f1)
if [ "$(cat "$dest/src/.ggmlviz-patch" 2>/dev/null)" != "$stamp" ]; then
	say "copying the source into $dest/src and applying $(basename "$patch_file")"
	rm -rf "$dest/src"
	mkdir -p "$dest"
	cp -R "$src" "$dest/src"
	(cd "$dest/src" && patch -p1 --quiet --forward <"$patch_file") ||
		die "the patch does not apply to this release's source"
	echo "$stamp" >"$dest/src/.ggmlviz-patch"
fi

# 4. the tools
generator=
command -v ninja >/dev/null 2>&1 && generator="-G Ninja"
log="$dest/build.log"
say "configuring and building in $dest/build (the log: $log)"
# shellcheck disable=SC2086 # the generator's words
cmake -S "$dest/src" -B "$dest/build" $generator -DCMAKE_BUILD_TYPE=Release \
	-DBUILD_SHARED_LIBS=OFF -DGGML_NATIVE=ON -DGGML_BACKEND_DL=OFF \
	-DLLAMA_GGMLVIZ=ON -DLLAMA_GGMLVIZ_INCLUDE="$top/include" -DLLAMA_GGMLVIZ_LIB="$lib" \
	-DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
	-DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON -DLLAMA_BUILD_APP=OFF \
	-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF >"$log" 2>&1 ||
	{ tail -n 20 "$log" >&2; die "cmake could not configure (the whole log: $log)"; }
cmake --build "$dest/build" -j "$(nproc 2>/dev/null || echo 2)" \
	--target llama-bench llama-cli llama-completion llama-server >>"$log" 2>&1 ||
	{ tail -n 30 "$log" >&2; die "the build failed (the whole log: $log)"; }
for t in llama-bench llama-cli llama-completion llama-server; do
	[ -x "$dest/build/bin/$t" ] || die "$t was not built (see $log)"
done
say "llama-bench, llama-cli, llama-completion and llama-server, traced when GGML_VIZ_OUTPUT is set:"
echo "$dest/build/bin"
