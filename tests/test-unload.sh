#!/bin/sh
# A traced plugin unloaded (TAP): a shared object that linked
# lib/libggmlviz.a is loaded, traces its host's threads, is unloaded (with
# ggmlviz_stop() before, or without: then its unloading stops the session)
# and loaded again, and the host's threads exit after: no thread runs a
# destructor of the unloaded copy's (glibc calls a thread key's destructor
# at every thread's exit), the first copy's claim on the process is gone
# with it (the second starts), and both traces are complete. Also with
# rolling mode (ops held by step: the stage's memory per thread).
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/tap.sh"
CC=${CC:-cc}
lib="$top_builddir/lib/libggmlviz.a"
ggmlviz="$top_builddir/tools/ggmlviz"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086 # SAN_FLAGS is a list of flags
$CC ${SAN_FLAGS:-} -fPIC -shared -I"$top_srcdir/include" "$top_srcdir/tests/unload-so.c" \
	"$lib" -pthread -o "$tmp/libplugin.so" 2>"$tmp/so.err"
ok $? "a plugin links lib/libggmlviz.a"
sed 's/^/# /' "$tmp/so.err"
# shellcheck disable=SC2086
$CC ${SAN_FLAGS:-} -I"$top_srcdir/tests" "$top_srcdir/tests/unload-main.c" -o "$tmp/host" -pthread -ldl \
	2>"$tmp/host.err"
ok $? "the host builds"
sed 's/^/# /' "$tmp/host.err"

marks() { "$ggmlviz" dump "$1" --format jsonl 2>/dev/null | grep -c '"MARK"'; }

for how in stop nostop; do
	for mode in ops rolling; do
		rm -f "$tmp"/t1.ggmlviz "$tmp"/t2.ggmlviz
		"$tmp/host" "$tmp/libplugin.so" "$tmp/t1.ggmlviz" "$tmp/t2.ggmlviz" "$how" "$mode" \
			>"$tmp/out" 2>&1
		rc=$?
		ok $rc "$how, $mode: loaded, traced, unloaded, loaded again; the threads exit after (status $rc)"
		sed 's/^/# /' "$tmp/out"
		grep -qx 'round 1: unloaded yes' "$tmp/out" && grep -qx 'round 2: unloaded yes' "$tmp/out"
		ok $? "$how, $mode: the plugin was unmapped both times"
		grep -qx 'round 2: start 0' "$tmp/out"
		ok $? "$how, $mode: the copy loaded again starts (the first one's claim left with it)"
		grep -qx 'threads exited' "$tmp/out"
		ok $? "$how, $mode: every host thread exited after the unloads"
		"$ggmlviz" validate "$tmp/t1.ggmlviz" >"$tmp/v1" 2>&1 &&
			"$ggmlviz" validate "$tmp/t2.ggmlviz" >"$tmp/v2" 2>&1
		ok $? "$how, $mode: both traces are complete"
		cat "$tmp/v1" "$tmp/v2" 2>/dev/null | sed 's/^/# /'
		m1=$(marks "$tmp/t1.ggmlviz")
		m2=$(marks "$tmp/t2.ggmlviz")
		[ "$m1" = 400 ] && [ "$m2" = 800 ]
		ok $? "$how, $mode: 4 threads' marks in the first trace, 8 threads' in the second ($m1, $m2)"
	done
done
# a plugin that recorded GPU kernels through CUPTI (the tests' stand-in): unloaded, CUPTI keeps
# none of its buffer callbacks, which it would call with its next buffer
standin="$top_builddir/tests/libcupti-standin.so"
if [ -f "$standin" ]; then
	standin=$(cd "$(dirname "$standin")" && pwd)/libcupti-standin.so
	rm -f "$tmp"/t1.ggmlviz "$tmp"/t2.ggmlviz
	UNLOAD_CUPTI="$standin" "$tmp/host" "$tmp/libplugin.so" "$tmp/t1.ggmlviz" "$tmp/t2.ggmlviz" \
		nostop >"$tmp/out" 2>&1
	rc=$?
	sed 's/^/# /' "$tmp/out"
	[ $rc -eq 0 ] && grep -qx 'round 1: cupti callbacks 0' "$tmp/out" &&
		grep -qx 'round 2: cupti callbacks 0' "$tmp/out" && grep -qx 'threads exited' "$tmp/out"
	ok $? "kernels recorded through CUPTI, the plugin unloaded: CUPTI holds none of its callbacks"
	k1=$("$ggmlviz" dump "$tmp/t1.ggmlviz" --format jsonl 2>/dev/null | grep -c '"KERNEL"')
	[ "$k1" = 4 ]
	ok $? "and the first trace has its 4 threads' kernels ($k1)"
else
	echo "ok $((n + 1)) # SKIP no stand-in libcupti (a build without CUPTI's headers)"
	n=$((n + 1))
fi
echo "1..$n"
