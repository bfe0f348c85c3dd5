/*
 * A trace followed as it is written (see input.h, struct cli_follow): what
 * top and serve read at each refresh. The reader maps the file as it
 * grows and lets go of what was read, so that a follower's memory stays
 * flat however long the trace runs; a file replaced at its name (rotated
 * by logrotate, rewritten by rename, a new run's), shrunk or removed is
 * told, and read again from its start when it can be: a regular file
 * only, opened without waiting, so that a FIFO put at the name (whose
 * open(2) waits for a writer) or a device (/dev/zero, read without end)
 * never holds the follower. A trace the tracer writes in segments
 * (GGML_VIZ_ROTATE) is read on from segment to segment by the reader
 * itself: only another trace at its name is read again from its start.
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
#include <time.h>
#include <unistd.h>

#include "input/input.h"

#define NS_PER_S 1000000000ull

uint64_t cli_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* The rest of an opening: the pairing engine, the file's identity (st: NULL for a stream). */
static int opened(struct cli_follow *f, int rc, const struct stat *st)
{
	f->p = NULL;
	if (rc == 0)
		rc = ggmlviz_pairing_new(&f->p);
	if (rc < 0) {
		cli_follow_close(f);
		return rc;
	}
	f->dev = st ? st->st_dev : 0, f->ino = st ? st->st_ino : 0;
	f->grew_ns = cli_mono_ns();
	f->read_rc = 0, f->read_at = 0;
	f->pid = 0;
	f->missing = 0;
	return 0;
}

int cli_follow_open(struct cli_follow *f, const char *path)
{
	struct stat st;
	int err;
	const char *source = cli_path_source(path, &err);
	int rc = source ? ggmlviz_reader_open(source, &f->r) : err;

	f->path = path;
	f->copied = source && source != path;
	return opened(f, rc, stat(path, &st) == 0 && S_ISREG(st.st_mode) ? &st : NULL);
}

int cli_follow_open_file(struct cli_follow *f, const char *path)
{
	struct stat st;
	int rc, fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC); /* a FIFO's open() would wait */

	f->path = path, f->copied = false, f->r = NULL;
	if (fd < 0)
		return opened(f, -errno, NULL);
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		rc = S_ISDIR(st.st_mode) ? -EISDIR : CLI_FOLLOW_NOT_FILE;
		close(fd);
		return opened(f, rc, NULL);
	}
	/* the reader reads the file checked, not what the name holds by then; a rotated
	 * trace's other segments it opens as checked (regular files, without waiting) */
	rc = ggmlviz_reader_open_fd(fd, path, &f->r);
	close(fd);
	return opened(f, rc, &st);
}

const char *cli_follow_strerror(int rc)
{
	return rc == CLI_FOLLOW_NOT_FILE ? "not a regular file (a FIFO, a device): a follower reads"
					   " files only, and never waits to open one"
					 : ggmlviz_strerror(rc);
}

void cli_follow_close(struct cli_follow *f)
{
	ggmlviz_pairing_free(f->p);
	ggmlviz_reader_close(f->r);
	f->p = NULL, f->r = NULL;
}

/* Opens the trace again from its start; 1, or -1 with why in the note. */
static int reopen(struct cli_follow *f, const char *why)
{
	int rc;

	cli_follow_close(f);
	rc = cli_follow_open_file(f, f->path);
	f->reopened++;
	if (rc < 0)
		snprintf(f->note, sizeof f->note, "%s; cannot read it now (%s): trying again every"
			 " refresh", why, cli_follow_strerror(rc));
	else
		snprintf(f->note, sizeof f->note, "%s: read again from its start", why);
	return rc < 0 ? -1 : 1;
}

/* Whether the name now holds another file than the one read (rotated, rewritten by rename). */
static bool replaced(struct cli_follow *f)
{
	struct stat st;

	if (stat(f->path, &st) < 0) {
		snprintf(f->note, sizeof f->note, "the file was removed: what was read stays shown");
		return false;
	}
	return st.st_dev != f->dev || st.st_ino != f->ino;
}

/* A rotated trace read in a row: 1, with whether another trace took its name in *other. */
static int rotating(const struct cli_follow *f, bool *other)
{
	struct ggmlviz_segments s;

	if (ggmlviz_reader_segments(f->r, &s) != 1)
		return 0;
	*other = s.replaced;
	return 1;
}

int cli_follow_refresh(struct cli_follow *f)
{
	bool other = false;
	int rc;

	if (!f->r)
		return reopen(f, "the file went away");
	/* a rotated trace's next segment takes its name: the reader moves on to it by itself */
	if (rotating(f, &other) ? other : f->ino && replaced(f))
		return reopen(f, "a new file at its name");
	rc = ggmlviz_reader_refresh(f->r);
	if (rc > 0)
		f->grew_ns = cli_mono_ns();
	else if (rc == -ESTALE)
		return reopen(f, "the file shrank (replaced or truncated)");
	return 0;
}

/* A rotated trace's segments removed before the reader reached them: said in the note. */
static void note_missing(struct cli_follow *f)
{
	struct ggmlviz_segments s;

	if (!f->r || ggmlviz_reader_segments(f->r, &s) != 1 || s.missing <= f->missing)
		return;
	f->missing = s.missing;
	snprintf(f->note, sizeof f->note, "%" PRIu32 " segment%s removed before %s read "
		 "(GGML_VIZ_ROTATE keeps the newest): what follows was read on", s.missing,
		 s.missing == 1 ? "" : "s", s.missing == 1 ? "it was" : "they were");
}

int cli_follow_next(struct cli_follow *f, struct ggmlviz_event *ev)
{
	int rc = f->r ? ggmlviz_reader_next(f->r, ev) : 0;

	if (rc == 1) {
		cli_track_pid(&f->pid, ev);
		return 1;
	}
	note_missing(f);
	f->read_rc = rc;
	f->read_at = f->r ? ggmlviz_reader_offset(f->r) : 0;
	return 0;
}

void cli_follow_feed(struct cli_follow *f, const struct ggmlviz_event *ev,
		     void (*timing)(void *arg, const struct ggmlviz_timing *t), void *arg)
{
	struct ggmlviz_timing t;

	for (int rc = ggmlviz_pairing_add(f->p, ev, &t); rc == 1; rc = ggmlviz_pairing_take(f->p, &t))
		timing(arg, &t);
}

bool cli_follow_damaged(const struct cli_follow *f)
{
	return f->read_rc != 0 && f->read_rc != GGMLVIZ_ETRUNCATED;
}

int cli_follow_state(const struct cli_follow *f, int records_state)
{
	if (records_state != CLI_FOLLOW_WRITING)
		return records_state;
	if (cli_follow_damaged(f))
		return CLI_FOLLOW_DAMAGED;
	if (f->copied)
		return CLI_FOLLOW_CUT;
	if (!f->r)
		return CLI_FOLLOW_GONE;
	return cli_mono_ns() - f->grew_ns < CLI_FOLLOW_STILL_NS ? CLI_FOLLOW_WRITING : CLI_FOLLOW_IDLE;
}

const char *const cli_follow_state_names[CLI_FOLLOW_STATES] = {
	"writing", "ended", "crashed", "idle", "cut", "damaged", "gone"
};
