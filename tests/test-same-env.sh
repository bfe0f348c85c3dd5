#!/bin/sh
# bench/same-env.sh: the modes a benchmark compares run with environments
# of one size. Each mode's assignments (none, a traced mode's two, three
# with a longer path, one long one) padded by same_env_pad are given to a
# process started with an empty environment, which prints its own: every
# mode's has as many variables, and as many bytes, as the others', with
# and without a round's pairs of LAYOUT variables, which add as many to
# every mode; and it refuses a count past its bounds. Prints TAP.
top_srcdir=${top_srcdir:-.}
. "$top_srcdir/tests/tap.sh"
. "$top_srcdir/bench/same-env.sh"

# shellcheck disable=SC2034 # each read through eval
{
modes_0=""
modes_1="GGML_VIZ_OUTPUT=/tmp/bench.AbCdEf/traced.ggmlviz GGML_VIZ_VERBOSE=1"
modes_2="GGML_VIZ_OUTPUT=/tmp/bench.AbCdEf/round.ggmlviz GGML_VIZ_VERBOSE=1 GGML_VIZ_CPU_SHARES=0"
modes_3="SOME_LONG_SETTING=0123456789012345678901234567890123456789012345678901234567890123"
}

# what_env VARS PADS: "COUNT BYTES" of the environment a process given
# only those assignments sees, as it prints it itself
what_env() {
	# shellcheck disable=SC2086 # the assignments are words
	env -i $1 $2 env | awk '{ n++; b += length($0) + 1 } END { print n + 0, b + 0 }'
}

max_count=0
sizes=""
for m in 0 1 2 3; do
	eval "vars=\$modes_$m"
	# shellcheck disable=SC2086,SC2154 # the assignments are words; vars set by eval
	size=$(same_env_size $vars)
	[ "${size% *}" -gt "$max_count" ] && max_count=${size% *}
	sizes="$sizes \"$size\""
done
target=$(eval "same_env_target $max_count $sizes")

echo "1..5"
for extra in 0 3 9; do
	seen=""
	for m in 0 1 2 3; do
		eval "vars=\$modes_$m"
		# shellcheck disable=SC2046,SC2086 # the assignments, and "COUNT BYTES", are words
		pads=$(same_env_pad $(same_env_size $vars) "$max_count" "$target" "$extra")
		seen="$seen|$(what_env "$vars" "$pads")"
	done
	want="$((max_count + 1 + 2 * extra)) $((target + 20 + 40 * extra))"
	all_same=0
	[ "$seen" = "|$want|$want|$want|$want" ] || all_same=1
	ok $all_same "four modes padded with $extra pairs of LAYOUT variables: every environment $want"
	[ $all_same -eq 0 ] || echo "# seen: $seen; want $want each"
done

# the unpadded environments do differ, or the check above proves nothing
seen=""
differ=1
for m in 0 1 2 3; do
	eval "vars=\$modes_$m"
	got=$(what_env "$vars" "")
	[ -n "$seen" ] && [ "$got" != "${seen##*|}" ] && differ=0
	seen="$seen|$got"
done
ok $differ "the same modes unpadded: environments of other sizes ($seen)"

# past its bounds it says so and gives nothing, rather than a wrong size
same_env_pad 0 0 11 220 0 >/dev/null 2>&1
r1=$?
same_env_pad 1 300 2 100 0 >/dev/null 2>&1
r2=$?
same_env_pad 0 0 2 40 10 >/dev/null 2>&1
r3=$?
[ $r1 -ne 0 ] && [ $r2 -ne 0 ] && [ $r3 -ne 0 ]
ok $? "same_env_pad fails for 11 pads, bytes past TARGET, or 10 pairs ($r1 $r2 $r3)"
