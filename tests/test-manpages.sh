#!/bin/sh
# Keeps the man pages honest. Prints TAP.
#
# - Every function declared in the public headers has man/NAME.3: a page, or
#   a one-line ".so man/OTHER.3" to a page; that page names it in NAME, and
#   its SYNOPSIS shows the header's #include and the header's prototype.
# - Every page in man/ renders with groff -man -ww -z without a word of
#   output (with the preprocessors its first line asks for, as man(1) runs
#   them), and so it does in a terminal of 80 columns; its .TH names the
#   file; every .so link reaches a page.
# - Every page in man/ is listed in Makefile.am's dist_man_MANS, and every
#   page listed there exists; the overview, libggmlviz(7), refers to them all.
# - Every page reads with man -l man/PAGE from the top of the source tree,
#   and with man -M build/man NAME (the build's man/manN/ folders, made by
#   make, where a .so line reads ".so manN/OTHER.N", as installed), as the
#   README shows them read before make install.
# - (The variables the code reads, against ggmlviz_config_init(3) and
#   libggmlviz(7): tests/test-doc-sync.sh.)
#
# Needs groff (Debian: groff-base); without it, the checks that need it
# fail with "groff missing" rather than pass.
#
# shellcheck disable=SC2317 # the *_problems functions are called through check()
top_srcdir=${top_srcdir:-.}
man="$top_srcdir/man"
inc="$top_srcdir/include/ggmlviz"
HEADERS="format.h tracer.h reader.h nodes.h ggml.h llama.h"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

GROFF=
command -v groff >/dev/null 2>&1 && GROFF=groff

# Squeezes a C declaration to compare it: one space between words, none
# around punctuation, no storage class; "f(int *x)" is "f(int*x);".
NORM_AWK='
function norm(s,    p, n, k, c, i) {
	gsub(/[ \t\r\n]+/, " ", s)
	n = split("* ( ) , ; [ ]", p, " ")
	for (k = 1; k <= n; k++) {
		c = p[k]
		while ((i = index(s, " " c)))
			s = substr(s, 1, i - 1) substr(s, i + 1)
		while ((i = index(s, c " ")))
			s = substr(s, 1, i) substr(s, i + 2)
	}
	sub(/^ /, "", s)
	sub(/ $/, "", s)
	while (s ~ /^(static|inline|extern) /)
		sub(/^[a-z]+ /, "", s)
	return s
}'

# The public functions of header $1, one a line: NAME<TAB>PROTOTYPE (squeezed,
# ending with ";"). A declaration starts at column 0 outside comments and
# preprocessor lines; names with "__" are internal.
declarations() {
	awk "$NORM_AWK"'
	# Where the parenthesis opened at or after position 1 of s closes; 0 if not yet.
	function close_at(s,    i, c, depth) {
		depth = 0
		for (i = 1; i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "(")
				depth++
			else if (c == ")" && --depth == 0)
				return i
		}
		return 0
	}
	# The line without its comments (a comment may span lines).
	function code(line,    out, i, j) {
		out = ""
		while (line != "") {
			if (in_comment) {
				i = index(line, "*/")
				if (!i)
					return out
				line = substr(line, i + 2)
				in_comment = 0
				continue
			}
			i = index(line, "/*")
			j = index(line, "//")
			if (j && (!i || j < i))
				return out substr(line, 1, j - 1)
			if (!i)
				return out line
			out = out substr(line, 1, i - 1) " "
			line = substr(line, i + 2)
			in_comment = 1
		}
		return out
	}
	{
		line = code($0)
		if (in_define) {
			in_define = line ~ /\\$/
			next
		}
		if (line ~ /^[ \t]*#/) {
			in_define = line ~ /\\$/
			next
		}
		if (decl != "") {
			decl = decl " " line
		} else if (line ~ /^[A-Za-z_]/ && line !~ /^typedef/ &&
			   match(line, /ggmlviz_[A-Za-z0-9_]*[ \t]*\(/)) {
			name = substr(line, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", name)
			if (name ~ /__/)
				next
			decl = line
			# "type\nname(": the return type is on the line before.
			if (RSTART == 1)
				decl = prev " " decl
		}
		if (decl != "" && (end = close_at(decl))) {
			print name "\t" norm(substr(decl, 1, end) ";")
			decl = ""
		}
		if (line ~ /[^ \t]/)
			prev = line
	}' "$1"
}

# The page a name resolves to: itself, or the target of its .so line.
so_target() {
	sed -n '1s|^\.so[ \t]*man/\([^ \t]*\)[ \t]*$|\1|p' "$1"
}

is_so() {
	head -n 1 "$1" | grep -q '^\.so'
}

# The text of a page's NAME section (source).
name_section() {
	awk '/^\.SH/ { on = ($0 ~ /^\.SH "?NAME"?[ \t]*$/); next } on' "$1"
}

# Preprocessor options from a first line such as '\" t (as man(1) reads it).
preprocessors() {
	sed -n "1s/^'\\\\\" *\\([a-z]*\\).*/\\1/p" "$1" | sed 's/t/-t /; s/e/-e /; s/p/-p /; s/r/-R /; s/g/-g /'
}

# The rendered SYNOPSIS of a page, squeezed to one line.
rendered_synopsis() {
	# shellcheck disable=SC2046
	$GROFF $(preprocessors "$1") -man -Tascii -P-c -P-b -P-u -rLL=250n "$1" 2>/dev/null |
		awk "$NORM_AWK"'
		/^[A-Z]/ { on = ($0 == "SYNOPSIS"); next }
		on { text = text " " $0 }
		END { print norm(text) }'
}

# Pages listed in Makefile.am's dist_man_MANS, one a line.
listed_pages() {
	awk '/^dist_man_MANS[ \t]*\+?=/ { on = 1 }
	on { for (i = 1; i <= NF; i++) if ($i ~ /^man\//) print substr($i, 5); on = ($0 ~ /\\$/) }' \
		"$top_srcdir/Makefile.am" | sort -u
}

# ---- gather ----
for h in $HEADERS; do
	if [ -f "$inc/$h" ]; then
		declarations "$inc/$h" | sort -u >"$tmp/decl-$h"
	else
		: >"$tmp/decl-$h"
	fi
done
(cd "$man" && for f in *; do [ -f "$f" ] && echo "$f"; done) | sort >"$tmp/pages"
listed_pages >"$tmp/listed"

n_headers=$(echo "$HEADERS" | wc -w)
n_funcs=$(cat "$tmp"/decl-* | wc -l)
n_pages=$(wc -l <"$tmp/pages")
# Per page: renders, .TH (or its .so link) right, listed.
echo "1..$((n_headers + 2 * n_funcs + 3 * n_pages + 5))"

t=0
fail=0
ok() {
	t=$((t + 1))
	echo "ok $t - $1"
}
not_ok() {
	t=$((t + 1))
	fail=1
	echo "not ok $t - $1"
}
# check DESCRIPTION COMMAND...: ok if COMMAND prints nothing; its output as diagnostics.
check() {
	what=$1
	shift
	"$@" >"$tmp/out" 2>&1
	if [ -s "$tmp/out" ]; then
		not_ok "$what"
		sed 's/^/# /' "$tmp/out"
	else
		ok "$what"
	fi
}

# ---- every public function has a page ----
for h in $HEADERS; do
	n=$(wc -l <"$tmp/decl-$h")
	if [ "$n" -gt 0 ]; then
		ok "$h declares $n public functions"
	else
		not_ok "$h declares public functions (found none in $inc/$h)"
	fi
done

# The page that documents function $1: man/$1.3, or the page its .so line
# names; nothing if there is none.
documenting_page() {
	page="$man/$1.3"
	if [ -f "$page" ] && is_so "$page"; then
		page="$man/$(so_target "$page")"
	fi
	if [ -f "$page" ] && ! is_so "$page"; then
		echo "$page"
	fi
}

# Problems with the page of function $1, if any.
page_problems() {
	page=$(documenting_page "$1")
	if [ -n "$page" ]; then
		name_section "$page" | grep -qw "$1" ||
			echo "the NAME section of ${page#"$top_srcdir"/} does not name $1"
	elif [ -f "$man/$1.3" ]; then
		echo "man/$1.3 is a .so link to no page: $(head -n 1 "$man/$1.3")"
	else
		echo "man/$1.3 does not exist"
	fi
}

# Problems with the SYNOPSIS documenting $1 (declared in $2 as $3), if any.
synopsis_problems() {
	page=$(documenting_page "$1")
	if [ -z "$page" ]; then
		echo "no page documents $1"
		return
	fi
	syn=$(rendered_synopsis "$page")
	case "$syn" in
	*"#include <ggmlviz/$2>"*) ;;
	*) echo "the SYNOPSIS of ${page#"$top_srcdir"/} lacks #include <ggmlviz/$2>" ;;
	esac
	case "$syn" in
	*"$3"*) ;;
	*)
		echo "the SYNOPSIS of ${page#"$top_srcdir"/} lacks the prototype of $2:"
		echo "  header:   $3"
		echo "  SYNOPSIS: $syn"
		;;
	esac
}

for h in $HEADERS; do
	while IFS='	' read -r name proto; do
		check "$name has a man page that names it" page_problems "$name"
		if [ -z "$GROFF" ]; then
			not_ok "$name: SYNOPSIS shows the prototype (groff missing)"
		else
			check "$name: SYNOPSIS shows ggmlviz/$h and the prototype" \
				synopsis_problems "$name" "$h" "$proto"
		fi
	done <"$tmp/decl-$h"
done

# ---- every page renders, is named right, and is listed ----
# Problems of a page's .TH line: it must name the file (title and section).
th_problems() {
	file=$1
	base=${file%.*}
	section=${file##*.}
	th=$(sed -n '/^\.TH[ \t]/{p;q;}' "$man/$file")
	title=$(echo "$th" | awk '{ print $2 }' | tr -d '"')
	sec=$(echo "$th" | awk '{ print $3 }' | tr -d '"')
	want=$(echo "$base" | tr '[:lower:]' '[:upper:]')
	[ "$title" = "$want" ] && [ "$sec" = "$section" ] ||
		echo "man/$file: .TH says \"$title $sec\", expected \"$want $section\": '$th'"
}

so_problems() {
	lines=$(wc -l <"$man/$1")
	target=$(so_target "$man/$1")
	[ "$lines" -eq 1 ] || echo "man/$1: a .so page must be that one line; it has $lines"
	if [ -z "$target" ]; then
		echo "man/$1: not of the form .so man/PAGE (read from the top of the source tree): $(head -n 1 "$man/$1")"
	elif [ ! -f "$man/$target" ]; then
		echo "man/$1: links to man/$target, which does not exist"
	elif is_so "$man/$target"; then
		echo "man/$1: links to man/$target, itself a .so link"
	fi
}

# Renders page $1: from a folder where man/ is man/, so that a
# ".so man/OTHER.3" line is followed, as man(1) follows it; then as man(1)
# shows it in a terminal of 80 columns.
render() {
	# shellcheck disable=SC2046
	(cd "$tmp/root" && $GROFF $(preprocessors "$man_abs/$1") -man -ww -z "$man_abs/$1" &&
		$GROFF $(preprocessors "$man_abs/$1") -man -Tutf8 -rLL=78n -ww -z "$man_abs/$1" 2>&1 |
		sed 's/^/at 80 columns: /')
}
mkdir "$tmp/root"
man_abs=$(cd "$man" 2>/dev/null && pwd)
ln -s "$man_abs" "$tmp/root/man"

while read -r file; do
	if [ -z "$GROFF" ]; then
		not_ok "man/$file renders with groff -man -ww -z (groff missing)"
	else
		check "man/$file renders with groff -man -ww -z without output" render "$file"
	fi
	if is_so "$man/$file"; then
		check "man/$file is a .so link to a page" so_problems "$file"
	else
		check "man/$file: .TH names the file" th_problems "$file"
	fi
	if grep -qxF "$file" "$tmp/listed"; then
		ok "man/$file is listed in dist_man_MANS"
	else
		not_ok "man/$file is listed in dist_man_MANS (Makefile.am)"
	fi
done <"$tmp/pages"

# Pages that the overview's SEE ALSO does not refer to.
overview_problems() {
	while read -r file; do
		[ "$file" = libggmlviz.7 ] && continue
		grep -qF ".BR ${file%.*} (${file##*.})" "$man/libggmlviz.7" ||
			echo "man/libggmlviz.7 does not refer to ${file%.*}(${file##*.})"
	done <"$tmp/pages"
}
if [ -f "$man/libggmlviz.7" ]; then
	check "man/libggmlviz.7 refers to every other page" overview_problems
else
	not_ok "man/libggmlviz.7 refers to every other page (it does not exist)"
fi

# ggmlviz(5)'s words on the types it knows, against format.h's count of them.
types_problems() {
	last=$(($(sed -n 's/^[ \t]*GGMLVIZ_EVENT_TYPE_COUNT = \([0-9]*\).*/\1/p' "$inc/format.h") - 1))
	# the first table of the page whose rows are "N<tab>NAME<tab>...": the record types
	tbl=$(awk -F'\t' '/^[0-9]+\t[A-Z_]+\t/ { n = $1; seen = 1; next }
		/^\.TE/ && seen { exit } END { print n }' "$man/ggmlviz.5")
	[ "$tbl" = "$last" ] || echo "ggmlviz(5)'s table of types ends at $tbl; format.h's last type is $last"
	grep -o 'A type above [0-9]*' "$man/ggmlviz.5" | grep -v "above $last\$" |
		sed "s/\$/: format.h's last type is $last/"
}
check "ggmlviz(5) names the last type format.h knows" types_problems

# Every page as the README has it read before make install: man -M build/man NAME.
man_tree_problems() {
	command -v man >/dev/null 2>&1 || { echo "man is missing (apt-get install man-db)"; return; }
	while read -r file; do
		out=$(MANWIDTH=80 man -M "$top_builddir/man" "${file##*.}" "${file%.*}" 2>&1 >/dev/null) ||
			out="man -M $top_builddir/man ${file##*.} ${file%.*} failed${out:+: $out}"
		[ -z "$out" ] || echo "$file: $out"
	done <"$tmp/pages"
}
check "every page reads with man -M build/man NAME, .so links followed (README.md)" \
	man_tree_problems

# Every page read from the source tree: man -l man/PAGE, from its top.
man_l_problems() {
	command -v man >/dev/null 2>&1 || { echo "man is missing (apt-get install man-db)"; return; }
	while read -r file; do
		out=$(cd "$top_srcdir" && MANWIDTH=80 man -l "man/$file" 2>&1 >/dev/null) ||
			out="man -l man/$file failed${out:+: $out}"
		[ -z "$out" ] || echo "$file: $out"
	done <"$tmp/pages"
}
check "every page reads with man -l man/PAGE from the top of the source tree, .so links followed" \
	man_l_problems

comm -13 "$tmp/pages" "$tmp/listed" | sed 's|^|dist_man_MANS lists man/|; s|$|, which does not exist|' \
	>"$tmp/unlisted"
check "every page in dist_man_MANS exists" cat "$tmp/unlisted"
exit $fail
