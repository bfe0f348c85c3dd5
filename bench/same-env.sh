# Environments of one size for every mode a benchmark compares: sourced by
# bench/llama-bench.sh and bench/whisper-bench.sh.
#
# Why: GGML's CPU backend, built with OpenMP as llama.cpp's and
# whisper.cpp's are by default, calls setenv("KMP_BLOCKTIME", "200", 0) at
# its first use, and glibc then copies the environment's array of pointers
# onto the heap (malloc of 8 bytes a variable, in 16-byte steps): two
# variables more or fewer move by 16 bytes what the process allocates
# after it, GGML's work buffer among it, and one moves it by 0 or 16 as
# the count is even or odd. On this project's 2-core machine one variable
# more ("PAD=") made an untraced llama-bench 3.5 to 5% slower at 1
# thread (and none with KMP_BLOCKTIME already set, which GGML then leaves
# alone): as much as a traced mode, which adds GGML_VIZ_OUTPUT and
# GGML_VIZ_VERBOSE, had read as its cost, with nothing traced
# (GGML_VIZ_DISABLE=1) as well. doc/cost.md tells the measurements.
#
# So every mode gets variables no program reads (GGMLVIZ_BENCH_*: not the
# library's GGML_VIZ_ prefix) up to the same count and the same bytes as
# the largest mode's, and round i adds i % LAYOUTS pairs of empty ones to
# every mode (each pair moves the heap by 16 bytes), so that the rounds
# see LAYOUTS heap layouts in turn, every mode the same ones, and a mode
# is not judged on one layout that happens to be fast or slow. What the
# traced program allocates itself still gives each mode a layout of its
# own (doc/cost.md): this evens out only what the benchmark adds.
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

# same_env_pad COUNT BYTES MAX_COUNT TARGET LAYOUT: the assignments that
# bring a mode's COUNT variables of BYTES to every mode's size: a PAD (20
# bytes) for each variable it has fewer than the largest count, MAX_COUNT
# (10 at most); LAYOUT pairs of empty ones (0 to 9, 40 bytes a pair); and
# one FILL (20 bytes and its value) that makes up the bytes to TARGET +
# 40 * LAYOUT + 20. TARGET is the largest of BYTES + 20 * (MAX_COUNT -
# COUNT) over the modes (same_env_target). Fails where a count is past
# those bounds or TARGET is short of the mode's bytes.
same_env_pad() {
	fill=$(($4 - $2 - ($3 - $1) * 20))
	if [ $(($3 - $1)) -gt 10 ] || [ "$5" -lt 0 ] || [ "$5" -gt 9 ] || [ "$fill" -lt 0 ]; then
		echo "same_env_pad: $1 variables of $2 bytes cannot be made $3 of $4 with $5 pairs" >&2
		return 1
	fi
	i=$1
	pads=""
	while [ "$i" -lt "$3" ]; do
		pads="$pads GGMLVIZ_BENCH_PAD$((i % 10))="
		i=$((i + 1))
	done
	i=0
	while [ "$i" -lt "$5" ]; do
		pads="$pads GGMLVIZ_BENCH_LAY$i= GGMLVIZ_BENCH_LBY$i="
		i=$((i + 1))
	done
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
