# Turns the report's style and script into C: for each input file NAME.EXT,
# an array cli_report_EXT of its lines as string literals, then NULL (lines
# stay short: no string longer than ISO C's 4095 bytes). Run at build time.
#
#   awk -f embed.awk report.css report.js > report-assets.c
#
# SPDX-License-Identifier: MIT
BEGIN {
	print "/* Generated from tools/report/ by tools/report/embed.awk: do not edit. */"
	print "#include <stddef.h>"
}
FNR == 1 {
	if (NR > 1)
		print "\tNULL\n};"
	ext = FILENAME
	sub(/.*\./, "", ext)
	print "extern const char *const cli_report_" ext "[];"
	print "const char *const cli_report_" ext "[] = {"
}
{
	# character by character: the escapes of gsub()'s replacement differ between awks
	out = ""
	for (i = 1; i <= length($0); i++) {
		c = substr($0, i, 1)
		if (c == "\\" || c == "\"")
			out = out "\\" c
		else if (c == "\t")
			out = out "\\t"
		else
			out = out c
	}
	print "\t\"" out "\\n\","
}
END {
	print "\tNULL\n};"
}
