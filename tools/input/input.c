/*
 * Reading one trace for a subcommand: open it with a clear error, hand
 * out its records (or timings) with a progress line, stop at damage and
 * remember where, and say so in one sentence naming the file and the byte.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "input/input.h"
#include "base/opts.h"

int cli_input_start(struct cli_input *in, const char *cmd, const char *path)
{
	const char *source;
	int rc;

	memset(in, 0, sizeof *in);
	in->cmd = cmd;
	in->path = path;
	source = cli_path_source(path, &rc);
	if (source)
		rc = ggmlviz_reader_open(source, &in->r);
	if (rc == 0)
		cli_progress_init(&in->progress, path, ggmlviz_reader_size(in->r));
	return rc;
}

bool cli_is_gguf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool gguf = fd >= 0 && read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
		    !memcmp(magic, "GGUF", sizeof magic);

	if (fd >= 0)
		close(fd);
	return gguf;
}

const char *cli_unreadable_why(const char *path, int rc)
{
	if (rc == GGMLVIZ_EMAGIC && cli_is_gguf(path))
		return "it is a GGUF model, not a trace: run a program on it with "
		       "GGML_VIZ_OUTPUT=FILE set (llama.cpp's tools of scripts/build-llama-tools.sh, "
		       "or your own), then give FILE";
	return ggmlviz_strerror(rc);
}

int cli_input_open(struct cli_input *in, const char *cmd, const char *path)
{
	int rc = cli_input_start(in, cmd, path);

	if (rc < 0)
		cli_error("%s: cannot read it: %s", path, cli_unreadable_why(path, rc));
	return rc < 0 ? -1 : 0;
}

/* A rotated trace whose segments were removed while read: said, once a pass (cli_error). */
static void say_segments_missing(const struct cli_input *in)
{
	struct ggmlviz_segments s;

	if (ggmlviz_reader_segments(in->r, &s) == 1 && s.missing)
		cli_error("%s: %" PRIu32 " segment%s of the trace removed while read (GGML_VIZ_ROTATE "
			  "keeps the newest): what follows them was read on", in->path, s.missing,
			  s.missing == 1 ? "" : "s");
}

/* Ends the reading with rc (0 at a clean end). */
static int stop(struct cli_input *in, int rc)
{
	say_segments_missing(in);
	if (rc < 0 && !in->error) {
		in->error = rc;
		in->error_offset = ggmlviz_reader_offset(in->r);
		if (rc == GGMLVIZ_ECORRUPT || rc == GGMLVIZ_ETRUNCATED || rc == -ESTALE)
			ggmlviz_reader_describe(in->r, in->what, sizeof in->what);
		else
			snprintf(in->what, sizeof in->what, "reading stopped at byte %" PRIu64 ": %s",
				 in->error_offset, ggmlviz_strerror(rc));
	}
	cli_progress_done(&in->progress);
	return 0;
}

static void note_trace_end(struct cli_input *in, const struct ggmlviz_event *ev)
{
	bool meta = ev->type == GGMLVIZ_EVENT_META;

	in->ended = meta && ev->data.meta.kind == GGMLVIZ_META_TRACE_END;
	in->crashed = meta && ev->data.meta.kind == GGMLVIZ_META_CRASH;
	/* a segment read alone (a rotated trace read in a row ends with the live one's end) */
	in->segment_next = meta && ev->data.meta.kind == GGMLVIZ_META_SEGMENT_END &&
			   ggmlviz_reader_segments(in->r, &(struct ggmlviz_segments){ 0 }) == 0 ?
		ev->data.meta.key : 0;
	if (in->segment_next)
		in->end_written = ev->data.meta.value, in->end_dropped = ev->data.meta.value2;
	if (!in->ended && !in->crashed)
		return;
	in->end_written = ev->data.meta.value;
	in->end_dropped = ev->data.meta.value2;
	in->end_offset = ev->offset;
	if (in->crashed) {
		in->crash_signal = ev->data.meta.key;
		snprintf(in->crash_name, sizeof in->crash_name, "%.*s",
			 (int)(ev->label_len < 15 ? ev->label_len : 15), ev->label ? ev->label : "");
	}
}

int cli_input_next(struct cli_input *in, struct ggmlviz_event *ev)
{
	int rc = in->error ? in->error : ggmlviz_reader_next(in->r, ev);

	if (rc != 1)
		return stop(in, rc);
	in->records++;
	note_trace_end(in, ev);
	cli_progress_update(&in->progress, ev->offset);
	return 1;
}

int cli_input_timing(struct cli_input *in, struct ggmlviz_timing *t)
{
	int rc;

	do {
		rc = in->error ? in->error : ggmlviz_reader_next_timing(in->r, t);
		if (rc != 1)
			return stop(in, rc);
	} while (cli_as_ticks_on && !cli_as_ticks_apply(in, t));
	cli_progress_update(&in->progress, t->end_offset);
	return 1;
}

void cli_input_describe(const struct cli_input *in, char *buf, size_t size)
{
	snprintf(buf, size, "%s", in->what);
}

bool cli_path_is_file(const char *path)
{
	struct stat st;

	return path && ((stat(path, &st) == 0 && S_ISREG(st.st_mode)) || cli_path_is_copied(path));
}

int cli_path_reopen(const char *path, struct ggmlviz_reader **r)
{
	int err;

	path = cli_path_is_file(path) ? cli_path_source(path, &err) : NULL;
	return path && ggmlviz_reader_open(path, r) == 0 ? 0 : -1;
}

bool cli_input_is_file(const struct cli_input *in)
{
	return cli_path_is_file(in->path);
}

int cli_input_report(const struct cli_input *in)
{
	char what[256];

	if (!in->error)
		return CLI_EXIT_OK;
	cli_input_describe(in, what, sizeof what);
	if (in->records)
		cli_error("%s: %s; the %" PRIu64 " records before it were used", in->path,
			       what, in->records);
	else
		cli_error("%s: %s; what came before it was used", in->path, what);
	return CLI_EXIT_DAMAGED;
}

void cli_input_close(struct cli_input *in)
{
	cli_as_ticks_free(in);
	cli_progress_done(&in->progress);
	ggmlviz_reader_close(in->r);
	in->r = NULL;
}
