#!/bin/sh
# Fetches speedscope (npm `speedscope`, a web viewer of profiles, built for
# the browser) into third_party/speedscope, for the test that opens
# `ggmlviz export --format speedscope` in it with headless chromium
# (tests/test-speedscope.sh). Nothing of it is committed; nothing of the
# library or the command needs it.
#
#   scripts/fetch-speedscope.sh [DIR]     (default: third_party/speedscope)
#
# Prints the folder holding its index.html on its last line. Incremental:
# a folder that has the right version is kept.
#
# SPDX-License-Identifier: MIT
set -eu

VERSION=1.25.0
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$top/third_party/speedscope}

die() {
	echo "fetch-speedscope: $*" >&2
	exit 1
}

if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$VERSION" ] &&
	[ -f "$dest/dist/release/index.html" ]; then
	echo "$dest/dist/release"
	exit 0
fi
command -v npm >/dev/null 2>&1 || die "'npm' is needed and was not found (apt-get install npm)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-speedscope.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm pack --loglevel=error "speedscope@$VERSION" >pack.out 2>pack.err) ||
	die "npm pack speedscope@$VERSION failed: $(tail -n 3 "$tmp/pack.err")"
tar -xzf "$tmp/speedscope-$VERSION.tgz" -C "$tmp"
[ -f "$tmp/package/dist/release/index.html" ] ||
	die "speedscope@$VERSION has no dist/release/index.html"
rm -rf "$dest"
mkdir -p "$(dirname "$dest")"
mv "$tmp/package" "$dest"
echo "$VERSION" >"$dest/VERSION"
echo "$dest/dist/release"
