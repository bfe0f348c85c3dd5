#!/bin/sh
# scripts/amx-check.sh: GGML's native builds lose AMX exactly where a probe
# of GGML's tile setup dies, and keep it elsewhere. Fake compilers (scripts)
# say whether -march=native gives AMX and build a probe that dies of
# SIGILL or runs; the real compiler, on this CPU, gets flags that take
# every AMX feature away from -march=native, or none. Prints TAP.
top_srcdir=${top_srcdir:-.}
script="$top_srcdir/scripts/amx-check.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
. "$top_srcdir/tests/tap.sh"
no_amx="-mno-amx-tile -mno-amx-int8 -mno-amx-bf16"

# fake NAME AMX PROBE: a compiler whose -march=native has AMX (yes/no) and
# whose probe dies of SIGILL (ill), runs (runs), or does not build (fails)
fake() {
	cat >"$tmp/$1" <<FAKE
#!/bin/sh
case "\$*" in
*-dM*) [ $2 = yes ] && echo '#define __AMX_TILE__ 1'; echo '#define __x86_64__ 1'; exit 0 ;;
esac
[ $3 = fails ] && exit 1
while [ \$# -gt 0 ]; do [ "\$1" = -o ] && out=\$2; shift; done
case $3 in
ill) printf '#!/bin/sh\nkill -ILL \$\$\n' >"\$out" ;;
*) printf '#!/bin/sh\nexit 0\n' >"\$out" ;;
esac
chmod +x "\$out"
FAKE
	chmod +x "$tmp/$1"
}

decides() { # want compiler description
	got=$(sh "$script" "$tmp/$2" 2>"$tmp/err")
	[ "$got" = "$1" ]
	ok $? "$3"
	[ "$got" = "$1" ] || echo "# got '$got' ($(cat "$tmp/err")), want '$1'"
}

echo "1..7"
fake ill yes ill
decides "$no_amx" ill "AMX and a probe that dies of SIGILL: GGML built without AMX"
grep -q "dies in AMX's tile setup" "$tmp/err"
ok $? "it says why on stderr"
fake runs yes runs
decides "" runs "AMX and a probe that runs: AMX kept"
fake noamx no ill
decides "" noamx "no AMX from -march=native: nothing to take away, the probe is not run"
fake broken yes fails
decides "" broken "a probe that does not build: AMX kept (GGML's own build will say what is wrong)"
got=$(sh "$script" "$tmp/no-such-compiler" 2>&1)
[ -z "$got" ]
ok $? "no compiler: nothing printed"

# the real compiler on this CPU: whatever it decides, the flags do what they say
cxx=${CXX:-c++}
flags=$(sh "$script" "$cxx" 2>/dev/null)
if [ -n "$flags" ]; then
	# shellcheck disable=SC2086 # the flags are words
	if "$cxx" $flags -march=native -dM -E -x c++ - </dev/null | grep -q '__AMX_'; then
		ok 1 "$cxx here: '$flags' leaves -march=native no AMX feature"
	else
		ok 0 "$cxx here: '$flags' leaves -march=native no AMX feature"
	fi
else
	ok 0 "$cxx here: AMX kept or not on this CPU (nothing to check)"
fi
