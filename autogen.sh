#!/bin/sh
# Regenerates the build system from configure.ac and Makefile.am.
set -e
cd "$(dirname "$0")"
mkdir -p build-aux m4
autoreconf --install --force
# automake does not install the TAP driver by itself.
cp -f "$(automake --print-libdir)/tap-driver.sh" build-aux/tap-driver.sh
