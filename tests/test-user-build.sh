#!/bin/sh
# doc/install.md's build without root, run as printed by an unprivileged
# user (TAP): ./autogen.sh, configure --prefix=$HOME/.local, make, make
# install, a program built with pkg-config against the installed copy and
# run, its trace validated by the installed command.
#
# It runs as root (CI's Debian 12 machine): a user of its own is made with
# useradd, gets a copy of this checkout's files (those git tracks, and the
# untracked ones it does not ignore) in its home, runs the block there, and
# is removed with its home at the end. Not as root it is skipped, saying
# why: there is no other user to become.
#
#   tests/test-user-build.sh          (top_srcdir: the checkout, default .)
#
# SPDX-License-Identifier: MIT
set -u
top=$(cd "${top_srcdir:-.}" && pwd)
page=doc/install.md
echo "1..4"

skip_all() {
	for k in 1 2 3 4; do echo "ok $k - the build without root # SKIP $*"; done
	exit 0
}

[ "$(id -u)" -eq 0 ] || skip_all "not root: no unprivileged user to become (run as root, as CI does)"
for c in useradd userdel su git tar; do
	command -v "$c" >/dev/null 2>&1 || skip_all "no $c here"
done
git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || skip_all "$top is not a git checkout"

user=ggmlviz-build-$$
tmp=$(mktemp -d) || exit 1
chmod 755 "$tmp"
trap 'userdel -r "$user" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT TERM

# The page's block that starts with "./autogen.sh &&", as printed.
awk '/^```sh[ \t]*$/ { on = 1; first = 1; next }
     on && /^```/ { if (keep) exit; on = 0; next }
     on && first { first = 0; keep = /^\.\/autogen\.sh &&/ }
     on && keep' "$top/$page" >"$tmp/block.sh"
if [ -s "$tmp/block.sh" ]; then
	echo "ok 1 - $page has the build without root ($(wc -l <"$tmp/block.sh") lines)"
else
	echo "not ok 1 - $page has a shell block that starts with ./autogen.sh &&"
fi

useradd -m -s /bin/sh "$user" || { echo "Bail out! useradd $user failed"; exit 1; }
home=$(getent passwd "$user" | cut -d: -f6)
(cd "$top" && git ls-files -co --exclude-standard | while IFS= read -r f; do
	[ -f "$f" ] && printf '%s\n' "$f"
done) >"$tmp/files"
(cd "$top" && tar -cf "$tmp/tree.tar" -T "$tmp/files") &&
	su "$user" -s /bin/sh -c "mkdir -p '$home/src' && tar -xf '$tmp/tree.tar' -C '$home/src'"
echo $? >"$tmp/copied"

start=$(date +%s)
su "$user" -s /bin/sh -c "cd '$home/src' && HOME='$home' sh -e '$tmp/block.sh'" >"$tmp/out" 2>&1
rc=$?
if [ "$(cat "$tmp/copied")" -eq 0 ] && [ $rc -eq 0 ]; then
	echo "ok 2 - as $user, in a copy of the checkout: the block ran as printed ($(($(date +%s) - start)) s)"
else
	echo "not ok 2 - as $user, in a copy of the checkout: the block ran as printed (exit $rc)"
	tail -n 30 "$tmp/out" | sed 's/^/# /'
fi

owned=0
for f in lib/libggmlviz.a lib/pkgconfig/ggmlviz.pc include/ggmlviz/tracer.h bin/ggmlviz \
	share/man/man3/ggmlviz_start.3; do
	[ "$(stat -c %U "$home/.local/$f" 2>/dev/null)" = "$user" ] && owned=$((owned + 1))
done
if [ $owned -eq 5 ]; then
	echo "ok 3 - the library, its header, pkg-config file, command and man pages in \$HOME/.local, the user's"
else
	echo "not ok 3 - the library, its header, pkg-config file, command and man pages in \$HOME/.local ($owned of 5)"
	ls -lR "$home/.local" 2>&1 | head -20 | sed 's/^/# /'
fi

if grep -q '^app.ggmlviz: valid and complete' "$tmp/out" && [ -s "$home/src/app.ggmlviz" ]; then
	echo "ok 4 - the program built with pkg-config ran, and the installed ggmlviz validated its trace"
else
	echo "not ok 4 - the program built with pkg-config ran, and the installed ggmlviz validated its trace"
	tail -n 5 "$tmp/out" | sed 's/^/# /'
fi
