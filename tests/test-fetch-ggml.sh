#!/bin/sh
# scripts/fetch-ggml.sh without the network: its options, its errors, and
# that a complete folder is left alone (no download); a folder without the
# source is fetched again when --source asks for it; and
# scripts/build-ggml-cuda.sh's options and errors (an edit that does not
# fit its source included). Prints TAP.
top_srcdir=${top_srcdir:-.}
script="$top_srcdir/scripts/fetch-ggml.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
fail=0

result() { # status description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		fail=1
		sed 's/^/# /' "$tmp/out"
	fi
}

# run EXPECTED-STATUS PATTERN [ARG]...: the script exits so and says PATTERN
run() {
	want=$1 pattern=$2
	shift 2
	sh "$script" "$@" >"$tmp/out" 2>&1
	got=$?
	[ "$got" -eq "$want" ] && grep -q -- "$pattern" "$tmp/out"
}

# A PATH with the tools the script uses, but no npm.
mkdir "$tmp/bin"
for tool in sh dirname uname sed grep ls rm mkdir mktemp cat git tar paste tail mv cp cmp; do
	p=$(command -v "$tool") && ln -s "$p" "$tmp/bin/$tool"
done

# A folder that looks complete for the wanted release.
fake="$tmp/ggml"
mkdir -p "$fake/include" "$fake/lib"
touch "$fake/include/ggml.h" "$fake/include/ggml-backend.h" "$fake/lib/libggml.v0.5.0.so" \
	"$fake/lib/libggml-base.so" "$fake/include/llama.h" "$fake/lib/libllama.v0.5.0.so"
printf 'package=node-llama-cpp@3.22.1\nggml=0.25.1\nvulkan=no (not fetched)\n' >"$fake/VERSION"
# The same, fetched by an older script that left libllama out.
old="$tmp/old"
cp -r "$fake" "$old"
rm "$old/include/llama.h" "$old/lib/libllama.v0.5.0.so"
# The same, fetched by a script that did not yet say whether Vulkan is there.
novk="$tmp/novk"
cp -r "$fake" "$novk"
sed -i '/^vulkan=/d' "$novk/VERSION"

echo "1..13"
run 0 "usage:" --help
result $? "--help prints the usage"
run 1 "unknown option '--bogus'" --bogus
result $? "an unknown option is named"
run 1 "more than one DIR" a b
result $? "two folders are refused"
PATH="$tmp/bin" run 0 "already in $fake (0.25.1)" "$fake"
result $? "a complete folder is left alone, without npm or network"
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
	PATH="$tmp/bin" run 1 "'npm' is needed and was not found" "$old"
else
	PATH="$tmp/bin" run 1 "the prebuilt GGML is for" "$old"
fi
result $? "a folder without libllama and llama.h is fetched again"
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
	PATH="$tmp/bin" run 1 "'npm' is needed and was not found" "$novk"
else
	PATH="$tmp/bin" run 1 "the prebuilt GGML is for" "$novk"
fi
result $? "a folder that does not say whether the Vulkan backend was fetched is fetched again"
sed -i 's/3.22.1/3.0.0/' "$fake/VERSION"
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
	PATH="$tmp/bin" run 1 "'npm' is needed and was not found" "$fake"
	result $? "a folder of another release is fetched again: without npm, a clear error"
else
	PATH="$tmp/bin" run 1 "the prebuilt GGML is for" "$fake"
	result $? "another system than x86-64 Linux gets a clear error"
fi
test -f "$fake/include/ggml.h" && grep -q 3.0.0 "$fake/VERSION"
result $? "a failed fetch leaves the folder as it was"
sed -i 's/3.0.0/3.22.1/' "$fake/VERSION"
if [ "$(uname -s)/$(uname -m)" = Linux/x86_64 ]; then
	PATH="$tmp/bin" run 1 "'npm' is needed and was not found" --source "$fake"
else
	PATH="$tmp/bin" run 1 "the prebuilt GGML is for" --source "$fake"
fi
result $? "--source: a folder without the source is fetched again"

# scripts/build-ggml-cuda.sh: what it needs, said before it builds anything
script="$top_srcdir/scripts/build-ggml-cuda.sh"
run 1 "run scripts/fetch-ggml.sh --source first" --src "$fake/src" "$tmp/out-prefix"
result $? "build-ggml-cuda: no source, a clear error naming what to run"
run 1 "unknown option '--bogus'" --bogus
result $? "build-ggml-cuda: an unknown option is named"
run 1 "--arch wants a value" --arch
result $? "build-ggml-cuda: --arch without a value is refused"
# a source whose CPU backend the shares' edit does not fit: that feature left out and
# said (ggmlviz-edit.py makes each feature whole or not at all), the source untouched;
# this one is no llama.cpp, so the install is refused after the build
odd="$tmp/odd"
mkdir -p "$odd/ggml/src/ggml-cpu"
echo 'project(odd C)' >"$odd/CMakeLists.txt"
echo 'int ggml_graph_compute_thread;' >"$odd/ggml/src/ggml-cpu/ggml-cpu.c"
if command -v cmake >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
	run 1 "lacks include/ggml.h" --cpu --src "$odd" "$tmp/odd-prefix" &&
		grep -q "ggml-cpu.c: not made (found no single place" "$tmp/out" &&
		grep -q "timed by the backend's ticks and estimated" "$tmp/out" &&
		[ ! -e "$tmp/odd-prefix/lib/libllama.so" ] &&
		cmp -s "$odd/ggml/src/ggml-cpu/ggml-cpu.c" - <<EOF
int ggml_graph_compute_thread;
EOF
	result $? "build-ggml-cuda: a source the CPU shares' edit does not fit: the feature left out and said, what the trace then lacks, the source untouched"
else
	n=$((n + 1))
	echo "ok $n # SKIP build-ggml-cuda's edit: no cmake or python3 here"
fi
exit $fail
