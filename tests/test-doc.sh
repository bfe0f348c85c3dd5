#!/bin/sh
# `make doc` gives no warning: Doxygen runs with WARN_AS_ERROR, so every
# public symbol must carry its documentation. Prints TAP.
top_builddir=${top_builddir:-.}
echo "1..1"
if ! command -v doxygen >/dev/null 2>&1; then
	echo "not ok 1 - make doc: doxygen is not installed (apt-get install doxygen)"
	exit 1
fi
out=$(cd "$top_builddir" && doxygen doc/Doxyfile 2>&1)
rc=$?
if [ $rc -eq 0 ] && [ -z "$out" ]; then
	echo "ok 1 - make doc: no warning"
else
	echo "not ok 1 - make doc: no warning"
	printf '%s\n' "$out" | sed 's/^/# /'
	exit 1
fi
