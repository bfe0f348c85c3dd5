#!/bin/sh
# bench/same-env.sh: the modes a benchmark compares run with environments
# of one size. Each mode's assignments (none, a traced mode's two, three
# with a longer path, one long one) padded by same_env_pad are given to a
# process started with an empty environment, which prints its own: every
# mode's has as many variables, and as many bytes, as the others', with
# and without a round's LAYOUT variables, and those add as many to every
# mode. Prints TAP.
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

echo "1..4"
for extra in 0 3; do
	seen=""
	for m in 0 1 2 3; do
		eval "vars=\$modes_$m"
		# shellcheck disable=SC2046,SC2086 # the assignments, and "COUNT BYTES", are words
		pads=$(same_env_pad $(same_env_size $vars) "$max_count" "$target" "$extra")
		seen="$seen|$(what_env "$vars" "$pads")"
	done
	want="$((max_count + 1 + extra)) $((target + 20 + 20 * extra))"
	all_same=0
	[ "$seen" = "|$want|$want|$want|$want" ] || all_same=1
	ok $all_same "four modes padded with $extra LAYOUT variables: every environment $want"
	[ $all_same -eq 0 ] || echo "# seen: $seen; want $want each"
done

# the unpadded environments do differ, or the check above proves nothing
seen=""
for m in 0 1 2 3; do
	eval "vars=\$modes_$m"
	seen="$seen|$(what_env "$vars" "")"
done
[ "$seen" != "|0 0|0 0|0 0|0 0" ] && [ "${seen#|0 0|}" != "$seen" ]
ok $? "the same modes unpadded: environments of other sizes ($seen)"

# a round's count of LAYOUT variables: 0 to LAYOUTS - 1, and 0 at LAYOUTS=1
bad=0
i=0
while [ $i -lt 50 ]; do
	l=$(same_env_layouts 4)
	[ "$l" -ge 0 ] && [ "$l" -le 3 ] || bad=1
	[ "$(same_env_layouts 1)" = 0 ] || bad=1
	i=$((i + 1))
done
ok $bad "same_env_layouts 4 gives 0 to 3 and same_env_layouts 1 gives 0, 50 rounds"
