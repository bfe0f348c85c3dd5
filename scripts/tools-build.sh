# shellcheck shell=sh disable=SC2154,SC2034 # reads and sets the sourcing script's variables
# The steps that scripts/build-llama-tools.sh and scripts/build-whisper-tools.sh
# share once their source is copied and edited, sourced by both (not run):
# libggmlviz installed where CMake finds it, GGML's backend options, the
# targets built and checked. Reads top, out, log, backend, arch and tools,
# and the scripts' die and say.
#
# SPDX-License-Identifier: MIT

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
