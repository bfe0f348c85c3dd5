/*
 * The report's page around its data (see report.h): the HTML skeleton, the
 * style and the script, both embedded at build time from tools/report/
 * (report-assets.c), so that the page needs nothing but a browser.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "report/report.h"
#include "output/output.h"

extern const char *const cli_report_css[];
extern const char *const cli_report_js[];

static void lines(struct cli_out *o, const char *const *l)
{
	for (; *l; l++)
		cli_out_str(o, *l);
}

static void html_text(struct cli_out *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			cli_out_str(o, "&lt;");
		else if (*s == '>')
			cli_out_str(o, "&gt;");
		else if (*s == '&')
			cli_out_str(o, "&amp;");
		else
			cli_out_char(o, *s);
	}
}

void cli_report_page_begin(struct cli_out *o, const char *title)
{
	cli_out_str(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		       "<meta name=\"generator\" content=\"ggmlviz " GGMLVIZ_VERSION_STRING "\">\n"
		       "<title>");
	html_text(o, title);
	cli_out_str(o, "</title>\n<style>\n");
	lines(o, cli_report_css);
	cli_out_str(o, "</style>\n</head>\n<body>\n<header><h1>");
	html_text(o, title);
	cli_out_str(o, "</h1><div id=\"summary\"></div></header>\n"
		       "<noscript><p>This report draws itself with JavaScript: allow scripts for "
		       "this file.</p></noscript>\n"
		       "<section id=\"findings-section\" hidden><h2>Findings</h2><div class=\"hint\">"
		       "what slows the run, from the whole trace (ggmlviz advise)</div>"
		       "<div id=\"findings\"></div></section>\n"
		       "<section id=\"health\"><h2>Health</h2><ul id=\"health-list\"></ul></section>\n"
		       "<section id=\"timeline-section\"><h2>Timeline</h2>"
		       "<div class=\"hint\">wheel or +/&minus; to zoom, drag to pan, click a slice "
		       "for its details, 0 to see it all</div>"
		       "<div id=\"timeline\"><canvas id=\"timeline-canvas\"></canvas>"
		       "<div id=\"tooltip\" hidden></div></div>"
		       "<div id=\"details\"></div></section>\n"
		       "<section id=\"ops-section\"><h2>Ops</h2><div class=\"hint\">"
		       "<select id=\"ops-phase\" hidden><option value=\"all\">every step</option>"
		       "<option value=\"prompt\">prompt only</option>"
		       "<option value=\"generation\">generation only</option></select> "
		       "<span id=\"ops-note\"></span></div><table id=\"ops\"></table></section>\n"
		       "<section id=\"groups-section\"><h2>Where the time went</h2>"
		       "<div id=\"groups\"></div></section>\n"
		       "<section id=\"memory-section\" hidden><h2>Memory</h2>"
		       "<canvas id=\"memory-canvas\"></canvas><div id=\"memory-text\"></div>"
		       "</section>\n"
		       "<footer id=\"footer\"></footer>\n"
		       "<div id=\"errors\" hidden></div>\n"
		       "<script id=\"data\" type=\"application/json\">");
}

void cli_report_page_end(struct cli_out *o)
{
	cli_out_str(o, "</script>\n<script>\n");
	lines(o, cli_report_js);
	cli_out_str(o, "</script>\n</body>\n</html>\n");
}
