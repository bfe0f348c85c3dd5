#!/bin/sh
# scripts/cuda-cupti.sh: where CUPTI's headers are for the toolkit of an
# nvcc, in the layouts toolkits come in (CUDA 12.5 on, the older
# extras/CUPTI, conda's targets/, nvcc linked from elsewhere), and a clear
# failure where there are none; and configure --with-cupti taking the
# older layout, whose cupti.h needs cuda.h from two folders up. Fake
# toolkits: an nvcc that is a script, headers that are empty but for what
# configure's check compiles. Prints TAP.
top_srcdir=${top_srcdir:-.}
script="$top_srcdir/scripts/cuda-cupti.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/tap.sh"

# toolkit ROOT HEADER-DIR: a fake toolkit under ROOT, its cupti.h in HEADER-DIR (relative)
toolkit() {
	mkdir -p "$1/bin" "$1/$2"
	printf '#!/bin/sh\necho fake nvcc\n' >"$1/bin/nvcc"
	chmod +x "$1/bin/nvcc"
	: >"$1/$2/cupti.h"
}

finds() { # want nvcc description
	got=$(sh "$script" "$2" 2>"$tmp/err")
	[ "$got" = "$1" ]
	ok $? "$3"
	[ "$got" = "$1" ] || echo "# got '$got' ($(cat "$tmp/err")), want '$1'"
}

toolkit "$tmp/opt/cuda" include
finds "$tmp/opt/cuda" "$tmp/opt/cuda/bin/nvcc" "a toolkit with include/cupti.h (CUDA 12.5 on, /opt/cuda)"
toolkit "$tmp/old" extras/CUPTI/include
finds "$tmp/old/extras/CUPTI" "$tmp/old/bin/nvcc" "the older layout, extras/CUPTI/include"
toolkit "$tmp/conda" targets/x86_64-linux/include
finds "$tmp/conda/targets/x86_64-linux" "$tmp/conda/bin/nvcc" "conda's targets/x86_64-linux/include"
mkdir -p "$tmp/usr/bin"
ln -s "$tmp/opt/cuda/bin/nvcc" "$tmp/usr/bin/nvcc"
finds "$tmp/opt/cuda" "$tmp/usr/bin/nvcc" "an nvcc linked from elsewhere: the toolkit it links to"
mkdir -p "$tmp/bare/bin" && cp "$tmp/opt/cuda/bin/nvcc" "$tmp/bare/bin/"
sh "$script" "$tmp/bare/bin/nvcc" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/out" ] && grep -q "no cupti.h for $tmp/bare/bin/nvcc (looked in" "$tmp/err"
ok $? "a toolkit without CUPTI: exit 1, and where it looked"
sh "$script" "$tmp/nothing/nvcc" >/dev/null 2>"$tmp/err"
[ $? -eq 1 ] && grep -q "is not an executable nvcc" "$tmp/err"
ok $? "an nvcc that is not there: exit 1, said"

# configure --with-cupti=DIR of the older layout: cuda.h two folders up is found
if [ -x "$top_srcdir/configure" ] && [ -f /usr/local/cuda/include/cupti.h ]; then
	mkdir -p "$tmp/copy/extras/CUPTI/include" "$tmp/copy/include" "$tmp/conf"
	for h in /usr/local/cuda/include/*; do # links: every header but cuda.h, which is two up
		[ "$(basename "$h")" = cuda.h ] && dir="$tmp/copy/include" || dir="$tmp/copy/extras/CUPTI/include"
		ln -s "$h" "$dir/"
	done
	configure="$(cd "$top_srcdir" && pwd)/configure"
	(cd "$tmp/conf" && "$configure" --with-cupti="$tmp/copy/extras/CUPTI" --with-ggml=no >out 2>&1)
	grep -q "^#define HAVE_CUPTI 1" "$tmp/conf/config.h" 2>/dev/null
	ok $? "configure --with-cupti takes the older layout (cuda.h two folders up)"
else
	echo "ok $((n + 1)) # SKIP configure --with-cupti: no configure or no CUDA toolkit's headers here"
	n=$((n + 1))
fi
echo "1..$n"
