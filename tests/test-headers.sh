#!/bin/sh
# Every public header compiles on its own and twice over (include guards),
# as C99 and C11 with every warning an error, and as C++11; and the emit
# macros expand to valid expressions both ways (inline check on and off).
# Prints TAP.
top_srcdir=${top_srcdir:-.}
CC=${CC:-cc}
CXX=${CXX:-c++}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
headers="format.h tracer.h reader.h nodes.h"
n=0
fail=0

result() { # status description
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; sed 's/^/# /' "$tmp/log"; fi
}

echo "1..18"
for h in $headers; do
	printf '#include <ggmlviz/%s>\n#include <ggmlviz/%s>\nint main(void) { return 0; }\n' "$h" "$h" >"$tmp/h.c"
	$CC -std=c99 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Werror \
		-I"$top_srcdir/include" -c "$tmp/h.c" -o "$tmp/h.o" >"$tmp/log" 2>&1
	result $? "$h alone as C99, pedantic, warnings as errors"
	$CC -std=c11 -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion -Wstrict-prototypes -Werror \
		-I"$top_srcdir/include" -c "$tmp/h.c" -o "$tmp/h.o" >"$tmp/log" 2>&1
	result $? "$h alone as C11, pedantic, warnings as errors"
	cp "$tmp/h.c" "$tmp/h.cc"
	$CXX -std=c++11 -Wall -Wextra -Wpedantic -Werror -I"$top_srcdir/include" \
		-c "$tmp/h.cc" -o "$tmp/h.o" >"$tmp/log" 2>&1
	result $? "$h alone as C++11, pedantic, warnings as errors"
done

# The adapters, with their implementation, in a C++ program (llama.cpp's tools are C++):
# GGML's own headers as system headers, so that only ours are judged.
for h in ggml llama; do
	what="ggmlviz/$h.h with GGMLVIZ_$(echo "$h" | tr a-z A-Z)_IMPLEMENTATION, twice, as C++17, pedantic, warnings as errors"
	if [ -z "${GGML_CFLAGS:-}" ]; then
		n=$((n + 1))
		echo "ok $n - $what # SKIP configure found no GGML"
		continue
	fi
	printf '#define GGMLVIZ_%s_IMPLEMENTATION\n#include <ggmlviz/%s.h>\n#include <ggmlviz/%s.h>\nint main(void) { return 0; }\n' \
		"$(echo "$h" | tr a-z A-Z)" "$h" "$h" >"$tmp/a.cc"
	# shellcheck disable=SC2046 # the flags are words
	$CXX -std=c++17 -Wall -Wextra -Wpedantic -Werror -I"$top_srcdir/include" \
		$(echo "$GGML_CFLAGS" | sed 's/-I/-isystem /g') -c "$tmp/a.cc" -o "$tmp/a.o" >"$tmp/log" 2>&1
	result $? "$what"
done

cat >"$tmp/use.c" <<'SRC'
#include <ggmlviz/tracer.h>
#include <stddef.h>
#include <stdlib.h>
void use(void);
void fresh(size_t n);
/* The tracer stores addresses, never reads them: no "may be used uninitialized". */
void fresh(size_t n)
{
	void *buf = malloc(n);
	ggmlviz_tensor_alloc(buf, n, "fresh");
	ggmlviz_op_begin(buf, 1, n, buf, "fresh");
	ggmlviz_graph_begin(buf, 1, 1, buf);
	ggmlviz_op_info(buf, NULL, 0, NULL);
	ggmlviz_barrier_wait(buf, 0);
	free(buf);
}
void use(void)
{
	const int64_t ne[4] = { 1, 2, 3, 4 };
	void (*fn)(const void *, uint32_t, uint64_t, const void *, const char *) = ggmlviz_op_begin;
	ggmlviz_graph_begin(NULL, 1, 1, NULL);
	ggmlviz_op_begin(NULL, 1, 2, NULL, "x");
	ggmlviz_op_info(NULL, ne, 3, "f32");
	ggmlviz_op_end(NULL, 1, 2, NULL, "x");
	ggmlviz_graph_end(NULL, 1, 1, NULL);
	ggmlviz_tensor_alloc(NULL, 1, "a");
	ggmlviz_tensor_free(NULL, 1, NULL);
	ggmlviz_mark("m", 1);
	ggmlviz_counter("c", -1);
	ggmlviz_scope_begin("s", 0);
	ggmlviz_scope_end("s", 0);
	ggmlviz_op_node(NULL, 3, GGMLVIZ_OP_METHOD_TICK, GGMLVIZ_NODE_FUSED, NULL, NULL);
	fn(NULL, 1, 2, NULL, NULL);
}
SRC
for opt in "" "-DGGMLVIZ_NO_INLINE_CHECK"; do
	$CC -std=c11 -O2 -Wall -Wextra -Wpedantic -Wconversion -Werror $opt -I"$top_srcdir/include" \
		-c "$tmp/use.c" -o "$tmp/use.o" >"$tmp/log" 2>&1
	result $? "emit calls compile as C11 ${opt:-with the inline check}"
done
# The names of 0.2 and before still compile, and say what replaces them.
cat >"$tmp/old.c" <<'SRC'
#include <ggmlviz/reader.h>
int old(struct ggmlviz_reader *r);
int old(struct ggmlviz_reader *r)
{
	struct ggmlviz_timing t;
	struct ggmlviz_pairing_counts c;
	enum ggmlviz_timing_method m = GGMLVIZ_METHOD_TICK;
	int rc = ggmlviz_timings_next(r, &t);

	ggmlviz_timings_counts(r, &c);
	return rc + (m == GGMLVIZ_METHOD_SYNC) + (t.method == GGMLVIZ_METHOD_UNKNOWN);
}
SRC
$CC -std=c11 -Wall -Wextra -Wpedantic -Werror -Wno-deprecated-declarations -I"$top_srcdir/include" \
	-c "$tmp/old.c" -o "$tmp/old.o" >"$tmp/log" 2>&1
result $? "0.2's names (ggmlviz_timings_next, GGMLVIZ_METHOD_*) still compile"
$CC -std=c11 -Wall -I"$top_srcdir/include" -c "$tmp/old.c" -o "$tmp/old.o" >"$tmp/log" 2>&1
grep -q 'use ggmlviz_reader_next_timing()' "$tmp/log" && grep -q 'use ggmlviz_reader_pairing_counts()' "$tmp/log"
result $? "and the compiler says what replaces the deprecated functions"
exit $fail
