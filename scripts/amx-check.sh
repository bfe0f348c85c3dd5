#!/bin/sh
# Prints the compiler flags a GGML_NATIVE build needs on this machine to run:
# nothing, or "-mno-amx-tile -mno-amx-int8 -mno-amx-bf16" where this CPU has
# AMX and this C++ compiler miscompiles GGML's AMX code.
#
#     flags=$(scripts/amx-check.sh [CXX])     (CXX: $CXX, else c++)
#
# Why: GGML's AMX matrix multiply (ggml-cpu/amx/mmq.cpp) fills a 64-byte
# tile configuration on the stack and hands it to _tile_loadconfig().
# GCC 12.2, Debian 12's, does not count that as a read of the 64 bytes and
# drops the stores of the rows and column widths: only the palette byte is
# written, so every tile is configured empty and the first tilezero is an
# illegal instruction. llama-bench and llama-cli built with -march=native
# on an AMX Xeon (Sapphire Rapids and later) die of SIGILL at their first
# quantized matrix multiply. The flags keep -march=native's other features
# (AVX-512, VNNI) and build GGML without its AMX path; explicit -mno-*
# flags win over -march=native wherever they stand on the command line.
#
# The check is the failure itself: the same pattern built with
# -O2 -march=native and run. Where -march=native gives no AMX, or the
# probe runs, it prints nothing. A note goes to stderr when it disables.
#
# SPDX-License-Identifier: MIT
set -eu
cxx=${1:-${CXX:-c++}}
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

command -v "$cxx" >/dev/null 2>&1 || exit 0
"$cxx" -march=native -dM -E -x c++ - </dev/null 2>/dev/null | grep -q '__AMX_TILE__' || exit 0

tmp=$(mktemp -d "${TMPDIR:-/tmp}/amx-check.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/probe.cpp" <<'EOF'
// The shape of ggml_tile_config_init() in GGML's ggml-cpu/amx/mmq.cpp.
#include <immintrin.h>
#include <unistd.h>
#include <sys/syscall.h>
struct tile_config_t {
	unsigned char palette_id, start_row, reserved_0[14];
	unsigned short colsb[16];
	unsigned char rows[16];
};
static void __attribute__((noinline)) tile_config_init(void)
{
	alignas(64) tile_config_t tc = {};
	tc.palette_id = 1;
	for (int i = 0; i < 8; i++) {
		tc.rows[i] = 16;
		tc.colsb[i] = 64;
	}
	_tile_loadconfig(&tc);
}
int main(void)
{
	// ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA: without leave, GGML turns
	// its AMX path off by itself ("AMX is not ready"), so nothing to do.
	if (syscall(SYS_arch_prctl, 0x1023, 18) != 0)
		return 0;
	tile_config_init();
	_tile_zero(4);
	_tile_release();
	return 0;
}
EOF
"$cxx" -O2 -march=native -o "$tmp/probe" "$tmp/probe.cpp" 2>"$tmp/log" || exit 0
if ! "$tmp/probe" 2>/dev/null; then
	echo "amx-check: $cxx's -march=native code dies in AMX's tile setup on this CPU; GGML is built without AMX ($no_amx)" >&2
	echo "$no_amx"
fi
exit 0
