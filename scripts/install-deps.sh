#!/bin/sh
# Installs what libggmlviz needs to build, test and document itself on
# Debian 12 (run as root; apt-get is only called for packages missing).
#
#   scripts/install-deps.sh
#
# SPDX-License-Identifier: MIT
set -eu

# build: compilers, autotools, pkg-config; tests: Check, python3 (JSON
# checks), groff and man-db (man page checks), clang and its libFuzzer (fuzzing),
# chromium (the report drawn in a real browser), Mesa's Vulkan driver and
# loader (GGML's Vulkan backend on a software GPU); docs: doxygen; GGML
# fetch: git, npm; llama.cpp's own tools (scripts/build-llama-tools.sh):
# cmake, ninja, and for their Vulkan build (--vulkan) glslc, libvulkan-dev,
# glslang-tools, spirv-headers; the command's SQLite export: libsqlite3-dev, and sqlite3
# for its tests; its Perfetto export's tests: protobuf-compiler (protoc
# --decode); the README's shell blocks, run by the tests: jq, curl; ggmlviz
# top's screen, tested in tmux; ggmlviz serve's metrics, scraped by a real
# Prometheus and checked by its promtool: prometheus; whisper.cpp's tools'
# tests and demo: a few seconds of speech said by espeak-ng; GGML's RPC
# servers traced with their clocks shifted (tests/llama-rpc.py): libfaketime;
# waiting for a server to listen (doc/rpc.md): ss, of iproute2; where a
# server that hangs in exit() waits (tests/llama-fleet.py): gdb.
PACKAGES="build-essential autoconf automake pkg-config check doxygen groff-base
python3 git ca-certificates xz-utils npm clang libclang-rt-14-dev chromium
mesa-vulkan-drivers libvulkan1 cmake ninja-build patch libsqlite3-dev sqlite3 protobuf-compiler
glslc libvulkan-dev glslang-tools spirv-headers man-db jq curl tmux prometheus espeak-ng
libfaketime iproute2 gdb"

missing=""
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
		missing="$missing $p"
done
# A machine that already has Node.js and npm from elsewhere needs no Debian npm.
case " $missing " in *" npm "*) command -v npm >/dev/null 2>&1 && missing=$(echo "$missing" | sed 's/ npm//') ;; esac

if [ -z "$missing" ]; then
	echo "install-deps: everything needed is installed"
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing:$missing; run this as root (or install them)" >&2
	exit 1
fi
echo "install-deps: installing$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
echo "install-deps: done"
