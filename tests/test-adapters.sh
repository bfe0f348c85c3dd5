#!/bin/sh
# The adapters' single-instance pattern, against the real GGML and llama.cpp
# headers (TAP): each header's implementation sits outside its include
# guard with a once-guard of its own, so that
#   - a file that included <ggmlviz/ggml.h> (or llama.h) and defines the
#     IMPLEMENTATION macro after it gets the implementation by including
#     the header again, once however often it is included;
#   - the llama.cpp adapter's implementation can live in another file than
#     the GGML adapter's (GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY), as C and C++;
# each program links, with no symbol missing or defined twice.
# Skips where configure found no GGML or no libllama.
#
# SPDX-License-Identifier: MIT
top_srcdir=${top_srcdir:-.}
top_builddir=${top_builddir:-.}
. "$top_srcdir/tests/tap.sh"
CC=${CC:-cc}
CXX=${CXX:-c++}
if [ -z "${GGML_LIBS:-}" ] || [ -z "${LLAMA_LIBS:-}" ]; then
	echo "1..0 # SKIP no GGML and libllama (scripts/fetch-ggml.sh, then configure)"
	exit 0
fi
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
lib="$top_builddir/lib/libggmlviz.a"
WFLAGS="-Wall -Wextra -Werror"

# shellcheck disable=SC2086 # flag lists
build() { # what output sources...
	what=$1 out=$2
	shift 2
	for src in "$@"; do
		case $src in
		*.cc) $CXX -std=c++11 $WFLAGS ${SAN_FLAGS:-} -I"$top_srcdir/include" $GGML_CFLAGS \
			-c "$src" -o "$src.o" ;;
		*) $CC -std=c11 $WFLAGS ${SAN_FLAGS:-} -I"$top_srcdir/include" $GGML_CFLAGS \
			-c "$src" -o "$src.o" ;;
		esac
	done >"$tmp/log" 2>&1 &&
		$CXX ${SAN_FLAGS:-} -o "$out" $(for s in "$@"; do printf '%s.o ' "$s"; done) "$lib" \
			$LLAMA_LIBS $GGML_LIBS -pthread -lm >>"$tmp/log" 2>&1
	rc=$?
	ok $rc "$what"
	[ $rc -eq 0 ] || sed 's/^/# /' "$tmp/log" | head -20
}

cat >"$tmp/late-ggml.c" <<'SRC'
#include <ggml.h>
#include <ggml-backend.h>
#include <ggmlviz/ggml.h>
#define GGMLVIZ_GGML_IMPLEMENTATION
#include <ggmlviz/ggml.h>
#include <ggmlviz/ggml.h> /* once more: still one implementation */
int main(void)
{
	return ggmlviz_ggml_chain(NULL, NULL, NULL) != 0 || ggmlviz_ggml_trace_sched(NULL, 1, NULL, NULL) != -EINVAL;
}
SRC
build "ggml.h included, then GGMLVIZ_GGML_IMPLEMENTATION defined and included again" \
	"$tmp/late-ggml" "$tmp/late-ggml.c"
"$tmp/late-ggml"
ok $? "its functions answer (ggmlviz_ggml_chain, ggmlviz_ggml_trace_sched)"

cat >"$tmp/late-llama.c" <<'SRC'
#include <llama.h>
#include <ggmlviz/llama.h>
#define GGMLVIZ_LLAMA_IMPLEMENTATION
#include <ggmlviz/llama.h>
#include <ggmlviz/llama.h>
static bool app_eval(struct ggml_tensor *t, bool ask, void *ud) { (void)t; (void)ask; (void)ud; return false; }
int main(void)
{
	struct llama_context_params p = llama_context_default_params();
	p.cb_eval = app_eval;
	return ggmlviz_llama_context_params(&p) != 0 || p.cb_eval != ggmlviz_ggml_eval_cb ||
	       p.cb_eval_user_data == NULL;
}
SRC
build "llama.h included, then GGMLVIZ_LLAMA_IMPLEMENTATION defined and included again" \
	"$tmp/late-llama" "$tmp/late-llama.c"
"$tmp/late-llama"
ok $? "an application's eval callback is chained through the GGML adapter's slots"

cat >"$tmp/ggml-impl.c" <<'SRC'
#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION
#include <ggmlviz/ggml.h>
SRC
cat >"$tmp/llama-impl.c" <<'SRC'
#include <llama.h>
#define GGMLVIZ_LLAMA_IMPLEMENTATION
#define GGMLVIZ_LLAMA_IMPLEMENTATION_ONLY
#include <ggmlviz/llama.h>
int main(void)
{
	struct llama_context_params p = llama_context_default_params();
	return ggmlviz_llama_context_params(&p) != 0 || p.abort_callback != ggmlviz_ggml_abort_cb;
}
SRC
build "the GGML adapter's implementation in one file, the llama.cpp adapter's in another (C)" \
	"$tmp/split" "$tmp/ggml-impl.c" "$tmp/llama-impl.c"
"$tmp/split"
ok $? "the split program sets up a context's callbacks"
cp "$tmp/llama-impl.c" "$tmp/llama-impl.cc"
build "the same with the llama.cpp adapter's file in C++11" "$tmp/split-cxx" "$tmp/ggml-impl.c" \
	"$tmp/llama-impl.cc"
echo "1..$n"
