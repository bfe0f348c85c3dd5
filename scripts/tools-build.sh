# shellcheck shell=sh disable=SC2154,SC2034 # reads and sets the sourcing script's variables
# What scripts/build-llama-tools.sh and scripts/build-whisper-tools.sh share,
# sourced by both (not run): their messages, their options, and the steps
# once their source is copied and edited: libggmlviz installed where CMake
# finds it, GGML's backend options, the targets built and checked. Reads
# the scripts' top, me (the script's name in messages), project (llama.cpp
# or whisper.cpp) and tools (the default targets); sets source_dir,
# backend, arch, tools and out from the options, and reads log later.
#
# SPDX-License-Identifier: MIT

die() {
	printf '%s: error: %s\n' "$me" "$*" >&2
	exit 1
}

say() {
	printf '%s: %s\n' "$me" "$*" >&2
}

# The options both scripts take (their --help: the script's header); $1 an
# example of --tools, the rest the script's arguments.
tools_parse_options() {
	example=$1
	shift
	source_dir='' backend=cpu arch=native out='' rpc='' portable=''
	while [ $# -gt 0 ]; do
		case "$1" in
		-h | --help) awk 'NR > 1 && /^# SPDX/ { exit } NR > 1' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		--source) [ $# -ge 2 ] || die "--source wants a $project checkout"; source_dir=$2; shift ;;
		--cuda) backend=cuda ;;
		--vulkan) backend=vulkan ;;
		--rpc) [ "$project" = llama.cpp ] || die "--rpc: $project has no RPC server"; rpc=1 ;;
		--portable) portable=1 ;;
		--arch) [ $# -ge 2 ] || die "--arch wants a value (90, native, ...)"; arch=$2; shift ;;
		--tools) [ $# -ge 2 ] || die "--tools wants a list ($example)"; tools=$2; shift ;;
		-*) die "unknown option '$1' (--help)" ;;
		*) [ -z "$out" ] || die "more than one OUT given ('$out', '$1')"; out=$1 ;;
		esac
		shift
	done
}

# The commands a build needs, each named where it is missing.
tools_need_commands() {
	for tool in cmake cc c++ python3; do
		command -v "$tool" >/dev/null 2>&1 ||
			die "'$tool' is needed (scripts/install-deps.sh installs cmake, g++ and python3)"
	done
}

# libggmlviz built and installed into $out/ggmlviz for CMake; for CUDA with
# CUPTI's headers of the toolkit whose nvcc builds the tools
# (scripts/cuda-cupti.sh), wherever it is: without them no kernel is
# recorded. Sets nvcc and ggmlviz_dir.
tools_install_ggmlviz() {
	nvcc=
	with_cupti=
	if [ "$backend" = cuda ]; then
		nvcc=$(command -v nvcc 2>/dev/null || true)
		[ -n "$nvcc" ] || [ ! -x /usr/local/cuda/bin/nvcc ] || nvcc=/usr/local/cuda/bin/nvcc
		[ -n "$nvcc" ] || die "--cuda: no nvcc (install the CUDA toolkit, or add /usr/local/cuda/bin to PATH)"
		cupti_dir=$("$top/scripts/cuda-cupti.sh" "$nvcc") ||
			die "--cuda: the toolkit of $nvcc has no CUPTI headers (the message above): the tools would record no GPU kernel"
		with_cupti="--with-cupti=$cupti_dir"
		if [ -f "$top/config.status" ] && ! grep -q '^#define HAVE_CUPTI 1' "$top/config.h" 2>/dev/null; then
			die "--cuda: $top is configured in place without CUPTI's headers; configure it again with $with_cupti (or make distclean there)"
		fi
	fi
	say "building libggmlviz and installing it into $out/ggmlviz"
	# shellcheck disable=SC2086 # none, or one word
	ggmlviz_dir=$("$top/scripts/install-ggmlviz-cmake.sh" "$out/ggmlviz" "$log" $with_cupti) ||
		die "libggmlviz could not be installed for CMake (the message above)"
}

# GGML's options for the backend (backend_flags), without AMX where GCC 12
# miscompiles it on this CPU (amx: scripts/amx-check.sh), and Ninja where
# it is (generator).
tools_cmake_options() {
	case "$backend" in
	cpu) backend_flags="-DGGML_NATIVE=ON" ;;
	cuda)
		backend_flags="-DGGML_NATIVE=ON -DGGML_CUDA=ON -DCMAKE_CUDA_COMPILER=$nvcc -DCMAKE_CUDA_ARCHITECTURES=$arch" ;;
	vulkan)
		command -v glslc >/dev/null 2>&1 || die "--vulkan: no glslc (apt-get install glslc libvulkan-dev)"
		backend_flags="-DGGML_NATIVE=ON -DGGML_VULKAN=ON" ;;
	esac
	if [ -n "$portable" ]; then
		[ "$backend" = cpu ] || die "--portable is for the CPU build only"
		# AVX2's instructions, none of AVX-512's, which valgrind 3.19 (Debian 12's) stops at
		backend_flags="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
	fi
	amx=$("$top/scripts/amx-check.sh")
	generator=
	if command -v ninja >/dev/null 2>&1; then generator="-G Ninja"; fi
}

# The targets of $tools built in $out/build, each one there.
tools_build_targets() {
	targets=$(echo "$tools" | tr ',' ' ')
	# shellcheck disable=SC2086 # the targets are words
	cmake --build "$out/build" -j "$(nproc 2>/dev/null || echo 2)" --target $targets >>"$log" 2>&1 ||
		{ tail -n 30 "$log" >&2; die "the build failed (the whole log: $log)"; }
	for t in $targets; do
		[ -x "$out/build/bin/$t" ] || die "$t was not built (see $log)"
	done
}
