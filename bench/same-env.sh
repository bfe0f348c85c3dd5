# Environments of one size for every mode a benchmark compares: sourced by
# bench/llama-bench.sh and bench/whisper-bench.sh.
#
# Why: GGML's CPU backend, built with OpenMP as llama.cpp's and
# whisper.cpp's are by default, calls setenv("KMP_BLOCKTIME", "200", 0) at
# its first use, and glibc then copies the environment's array of pointers
# onto the heap: one variable more or less moves by 8 bytes (16 for
# two) what the process allocates after it, GGML's work buffer among it.
# On this project's 2-core machine that alone made an untraced
# llama-bench 3.5 to 5% slower at 1 thread ("PAD=" added to its
# environment; none with KMP_BLOCKTIME already set, which GGML then leaves
# alone): as much as a traced mode, which adds GGML_VIZ_OUTPUT and
# GGML_VIZ_VERBOSE, had read as its cost, with nothing traced
# (GGML_VIZ_DISABLE=1) as well. doc/cost.md tells the measurements.
#
# So every mode gets variables no program reads (GGMLVIZ_BENCH_*: not the
# library's GGML_VIZ_ prefix) up to the same count and the same bytes as
# the largest mode's, and each round may add the same number of empty ones
# to every mode, so that the rounds see several heap layouts, every mode
# the same ones, and a mode is not judged on one layout that happens to be
# fast or slow.
#
# SPDX-License-Identifier: MIT

# same_env_size WORDS...: "COUNT BYTES" of the assignments given (each
# word's bytes and its NUL, as they lie in the process's environment)
same_env_size() {
	n=0
	b=0
	for w in "$@"; do
		n=$((n + 1))
		b=$((b + ${#w} + 1))
	done
	echo "$n $b"
}

# same_env_pad COUNT BYTES MAX_COUNT TARGET EXTRA: the assignments that
# bring a mode's COUNT variables of BYTES to every mode's size: a PAD (20
# bytes) for each variable it has fewer than the largest count, MAX_COUNT;
# EXTRA empty LAYOUT ones (20 bytes each); and one FILL (20 bytes and its
# value) that makes up the bytes to TARGET + 20 * EXTRA + 20. TARGET is the
# largest of BYTES + 20 * (MAX_COUNT - COUNT) over the modes (same_env_target)
same_env_pad() {
	i=$1
	pads=""
	while [ "$i" -lt "$3" ]; do
		pads="$pads GGMLVIZ_BENCH_PAD$((i % 10))="
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt "$5" ]; do
		pads="$pads GGMLVIZ_BENCH_LAY$((i % 10))="
		i=$((i + 1))
	done
	fill=$(($4 - $2 - ($3 - $1) * 20))
	echo "$pads GGMLVIZ_BENCH_FILL=$(printf '%*s' "$fill" '' | tr ' ' x)"
}

# same_env_target MAX_COUNT "COUNT BYTES"...: TARGET for same_env_pad
same_env_target() {
	m=$1
	shift
	t=0
	for cb in "$@"; do
		u=$((${cb#* } + 20 * (m - ${cb% *})))
		[ "$u" -gt "$t" ] && t=$u
	done
	echo "$t"
}

# same_env_layouts LAYOUTS: how many LAYOUT variables this round adds to
# every mode, 0 to LAYOUTS - 1, at random (LAYOUTS 1: none)
same_env_layouts() {
	r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
	echo $((r % $1))
}
