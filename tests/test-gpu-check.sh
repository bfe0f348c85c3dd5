#!/bin/sh
# bench/gpu-check.sh in a checkout configured in place (./configure &&
# make, as many build it): it builds libggmlviz from a copy of the source
# there, where configure refuses a second build out of tree ("source
# directory already configured"), and, without a GPU, says what is missing
# and exits 77 (TAP). Runs on a clone of this checkout; skipped where this
# is not a git checkout (distcheck's tarball), and in sanitized builds.
#
# SPDX-License-Identifier: MIT
set -u
top_srcdir=${top_srcdir:-.}
. "$(dirname "$0")/tap.sh"

src=$(cd "$top_srcdir" && pwd)
if ! git -C "$src" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	[ "$(git -C "$src" rev-parse --show-toplevel)" != "$src" ]; then
	echo "1..0 # SKIP not a git checkout (gpu-check.sh copies a checkout's files)"
	exit 0
fi
if [ -n "${SAN_FLAGS:-}" ]; then
	echo "1..0 # SKIP sanitized build: gpu-check.sh builds the plain library"
	exit 0
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/ggmlviz-gpu-check.XXXXXX") || exit 99
trap 'rm -rf "$T"' EXIT

# the checkout as it is now (its uncommitted files too), a git work tree, configured in place
mkdir -p "$T/checkout"
(cd "$src" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) |
	tar -C "$T/checkout" -xf -
(cd "$T/checkout" && git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm t &&
	./autogen.sh && ./configure --with-ggml=no --without-cupti) >"$T/configure.out" 2>&1
ok $? "a checkout configured in place"
[ ! -f "$T/checkout/config.status" ] && { echo "1..$n"; exit 0; }

PATH=/usr/bin:/bin GPU_CHECK_DIR="$T/work" sh "$T/checkout/bench/gpu-check.sh" --no-cpu \
	--no-llama-bench >"$T/out" 2>&1
rc=$?
[ $rc -eq 77 ] && [ -f "$T/work/lib-build/lib/libggmlviz.a" ]
ok $? "gpu-check.sh builds libggmlviz from a copy of it, and exits 77 without a GPU"
[ $rc -eq 77 ] || sed 's/^/# /' "$T/out" | tail -n 20
grep -q "configured in place: building from a copy of its source" "$T/out"
ok $? "and says why it copied the source"
echo "1..$n"
