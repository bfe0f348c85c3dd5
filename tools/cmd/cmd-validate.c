/*
 * ggmlviz validate: is a trace valid, and complete? The exit status says
 * it for scripts: 0 valid and complete, 1 valid but incomplete, 2 damaged.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "cmd/commands.h"
#include "input/input.h"
#include "base/opts.h"

static const char help[] =
	"Usage: ggmlviz validate [OPTIONS] FILE...\n"
	"\n"
	"Read each trace to its end and say whether it is valid and complete, with the\n"
	"first problem and its byte offset.\n"
	"\n"
	"Options:\n"
	"  -q, --quiet   print nothing; the exit status says it all\n"
	"  -h, --help    show this help\n"
	"\n"
	"Exit status (the worst of all the files):\n"
	"  0  valid and complete: every record is whole and the last is TRACE_END;\n"
	"     also a whole trace from a writer that never ends its traces (no META\n"
	"     record at all: the original ggml-viz)\n"
	"  1  valid but incomplete: no TRACE_END at the end (the program did not stop\n"
	"     tracing, or is still writing), or the last record is cut short; also\n"
	"     a trace ended by a crash (a CRASH record: what the program emitted\n"
	"     before it was saved)\n"
	"  2  damaged or not a trace: unreadable, bad magic or version, a corrupt\n"
	"     record (has_label not 0 or 1, a label longer than 1 MiB); also for a bad\n"
	"     command line\n"
	"Records of types this version does not know are valid: the format skips them.\n";

enum { VALID = 0, INCOMPLETE = 1, DAMAGED = 2 };

static int option(void *ctx, int c, char *arg)
{
	(void)arg;
	if (c != 'q')
		return CLI_EXIT_USAGE;
	*(bool *)ctx = true;
	return 0;
}

static const struct option longopts[] = { { "quiet", no_argument, NULL, 'q' },
					  { "help", no_argument, NULL, 'h' },
					  { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "validate", help, "q", longopts, 1, -1, option };

struct verdict {
	uint64_t unknown;         /* records of unknown types */
	uint64_t metas;           /* META records: none means a writer that never ends traces */
	uint64_t trace_end_at;    /* offset of the first TRACE_END not last, or UINT64_MAX */
};

static void note(struct verdict *v, const struct cli_input *in,
		 const struct ggmlviz_event *ev)
{
	if (ev->type >= GGMLVIZ_EVENT_TYPE_COUNT)
		v->unknown++;
	v->metas += ev->type == GGMLVIZ_EVENT_META;
	if (v->trace_end_at == UINT64_MAX && !in->ended && !in->crashed && in->end_offset)
		v->trace_end_at = in->end_offset; /* a TRACE_END was followed by this record */
}

static int judge(const struct cli_input *in, const struct verdict *v, bool quiet)
{
	char what[256];
	bool never_ended = !in->error && !in->ended && !in->crashed && in->records && !v->metas;
	int rc = in->error == GGMLVIZ_ETRUNCATED ? INCOMPLETE
		 : in->error ? DAMAGED
		 : (in->ended && v->trace_end_at == UINT64_MAX) || never_ended ? VALID
		 : in->segment_next ? VALID
		 : INCOMPLETE;

	if (quiet)
		return rc;
	printf("%s: ", in->path);
	if (in->error) {
		cli_input_describe(in, what, sizeof what);
		printf("%s: %s (the %" PRIu64 " records before it are valid)\n",
		       rc == DAMAGED ? "damaged" : "valid but incomplete", what, in->records);
	} else if (v->trace_end_at != UINT64_MAX) {
		printf("valid but incomplete: the TRACE_END record at byte %" PRIu64 " is not the"
		       " last record (%" PRIu64 " records)\n", v->trace_end_at, in->records);
	} else if (in->ended && in->end_dropped) {
		printf("valid and complete, with loss (%" PRIu64 " records, TRACE_END at byte %" PRIu64
		       ": %" PRIu64 " events written, %" PRIu64 " dropped)\n", in->records,
		       in->end_offset, in->end_written, in->end_dropped);
	} else if (in->ended) {
		printf("valid and complete (%" PRIu64 " records, TRACE_END at byte %" PRIu64 ")\n",
		       in->records, in->end_offset);
	} else if (never_ended) {
		printf("valid, from a writer that never ends its traces (%" PRIu64 " whole records,"
		       " no META record at all, as the original ggml-viz wrote them): whether it is"
		       " complete cannot be told\n", in->records);
	} else if (in->segment_next) {
		printf("valid, a segment of a rotated trace, whole (%" PRIu64 " records): the trace goes"
		       " on in segment %" PRIu64 "; its name reads the segments kept as one\n",
		       in->records, in->segment_next);
	} else if (in->crashed) {
		printf("valid, ended by a crash (%s; CRASH at byte %" PRIu64 "): %" PRIu64
		       " events saved, %" PRIu64 " dropped\n", in->crash_name[0] ? in->crash_name : "?",
		       in->end_offset, in->end_written, in->end_dropped);
	} else {
		printf("valid but incomplete: no TRACE_END record at the end (%" PRIu64
		       " records; the file ends at byte %" PRIu64 ")\n", in->records,
		       ggmlviz_reader_size(in->r));
	}
	if (v->unknown)
		printf("%s: note: %" PRIu64 " records of types unknown to this version (skipped)\n",
		       in->path, v->unknown);
	return rc;
}

static int validate(const char *path, bool quiet)
{
	struct verdict v = { 0, 0, UINT64_MAX };
	struct cli_input in;
	struct ggmlviz_event ev;
	int rc = cli_input_start(&in, "validate", path);

	if (rc < 0) {
		if (!quiet && rc == GGMLVIZ_EMAGIC && cli_is_gguf(path))
			printf("%s: %s\n", path, cli_unreadable_why(path, rc));
		else if (!quiet && (rc == GGMLVIZ_EMAGIC || rc == GGMLVIZ_EVERSION))
			printf("%s: damaged at byte %d: %s\n", path, rc == GGMLVIZ_EMAGIC ? 0 : 8,
			       ggmlviz_strerror(rc));
		else if (!quiet)
			printf("%s: cannot be read: %s\n", path, ggmlviz_strerror(rc));
		return DAMAGED;
	}
	while (cli_input_next(&in, &ev) == 1)
		note(&v, &in, &ev);
	rc = judge(&in, &v, quiet);
	cli_input_close(&in);
	return rc;
}

int cli_cmd_validate(struct cli *cli, int argc, char **argv)
{
	bool quiet = false;
	int first, worst = VALID, status = cli_parse(&cmd, argc, argv, &quiet, &first);

	(void)cli; /* validate names nothing */

	if (status >= 0)
		return status;
	for (int i = first; i < argc; i++) {
		int rc = validate(argv[i], quiet);
		worst = rc > worst ? rc : worst;
	}
	return fflush(stdout) ? DAMAGED : worst;
}
