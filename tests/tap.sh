# TAP helpers for the shell tests, sourced by them: ". "$(dirname "$0")/tap.sh"".
# SPDX-License-Identifier: MIT

n=0

# ok STATUS TEXT: one TAP result, passed when STATUS is 0.
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fi
}

# skip_if_sanitized PROGRAM: the whole script skips under ASan or TSan,
# whose allocators would be what the memory figures measured.
skip_if_sanitized() {
	if grep -q __asan_init "$1" 2>/dev/null || grep -q __tsan_init "$1" 2>/dev/null; then
		echo "1..0 # SKIP sanitizer build: memory figures would measure the sanitizer"
		exit 0
	fi
}
