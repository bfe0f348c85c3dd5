#!/bin/sh
# Fetches OpenTelemetry's OTLP message definitions as npm carries them
# (@opentelemetry/otlp-proto-exporter-base: the messages protobufjs
# generated from opentelemetry-proto, with protobufjs itself) into
# third_party/otlp-proto, for the test that checks `ggmlviz export --format
# otlp` against them (tests/otlp-check.js). Nothing of it is committed;
# nothing of the library or the command needs it.
#
#   scripts/fetch-otlp-proto.sh [DIR]     (default: third_party/otlp-proto)
#
# Prints the path of the definitions (root.js) on its last line.
# Incremental: a folder that has the right version is kept.
#
# SPDX-License-Identifier: MIT
set -eu

PACKAGE=@opentelemetry/otlp-proto-exporter-base
VERSION=0.41.2
top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$top/third_party/otlp-proto}
root=node_modules/$PACKAGE/build/src/generated/root.js

die() {
	echo "fetch-otlp-proto: $*" >&2
	exit 1
}

if [ -f "$dest/VERSION" ] && [ "$(cat "$dest/VERSION")" = "$VERSION" ] && [ -f "$dest/$root" ]; then
	echo "$dest/$root"
	exit 0
fi
command -v npm >/dev/null 2>&1 || die "'npm' is needed and was not found (apt-get install npm)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fetch-otlp-proto.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && npm install --prefix . --no-save --ignore-scripts --no-audit --no-fund \
	--loglevel=error "$PACKAGE@$VERSION" >install.out 2>install.err) ||
	die "npm install $PACKAGE@$VERSION failed: $(tail -n 3 "$tmp/install.err")"
[ -f "$tmp/$root" ] || die "$PACKAGE@$VERSION has no $root"
rm -rf "$dest"
mkdir -p "$dest"
mv "$tmp/node_modules" "$dest/node_modules"
echo "$VERSION" >"$dest/VERSION"
echo "$dest/$root"
