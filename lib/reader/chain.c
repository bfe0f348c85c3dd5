/*
 * A rotated trace read as one (see chain.h). A writer that rotates keeps
 * its live segment at the trace's name, NAME, and gives each segment that
 * ended a second name, NAME.N, before the next one is renamed to NAME
 * (lib/tracer/writer/rotate.c); so opening NAME finds the live segment,
 * and the ended ones are found by their numbers, down from its own. Each
 * segment's META SEGMENT says its number, the trace's id (a file of
 * another trace at one of those names is not taken) and where the records
 * it repeats from the segments before end: the reader reads the first
 * segment whole and skips that start in each one after.
 *
 * The reader moves on at the end of a segment when the next one is there:
 * NAME.N+1, or the live one at NAME (after its SEGMENT_END, or when the
 * live segment is a later one). Segments removed before the reader reached
 * them (GGML_VIZ_ROTATE keeps the newest KEEP) are skipped and counted.
 * The mappings of the segments read stay until the reader is closed, as
 * one file's do: the labels of their events stay valid.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ggmlviz/format.h>

#include "chain.h"
#include "reader.h"
#include "window.h"

/* Segment numbers below this (a hostile one near 2^32 would wrap the next's). */
#define SEGMENT_MAX ((uint64_t)UINT32_MAX - 1)
/* Numbers looked at past a gap (segments removed while read) before the live one is taken. */
#define PROBES_MAX 4096u

/* What a segment's SEGMENT record says. */
struct seg {
	uint32_t n;    /* its number */
	uint64_t skip; /* where its own records begin */
	uint64_t id;   /* the trace's */
};

/* The SEGMENT record that begins the trace at fd: 1 (*s), 0 (none: not a segment), -errno. */
static int segment_at(int fd, struct seg *s)
{
	uint8_t buf[GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ_LABEL_MAX];
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	struct ggmlviz_event ev;

	if (n < 0)
		return -errno;
	if ((size_t)n < GGMLVIZ_HEADER_SIZE || memcmp(buf, GGMLVIZ_MAGIC, 8) != 0 ||
	    ggmlviz_decode_record(buf + GGMLVIZ_HEADER_SIZE, (size_t)n - GGMLVIZ_HEADER_SIZE,
				  &ev) < 0 ||
	    ev.type != GGMLVIZ_EVENT_META || ev.data.meta.kind != GGMLVIZ_META_SEGMENT ||
	    ev.data.meta.key == 0 || ev.data.meta.key >= SEGMENT_MAX)
		return 0;
	*s = (struct seg){ (uint32_t)ev.data.meta.key, ev.data.meta.value, ev.data.meta.value2 };
	return 1;
}

/*
 * Segment n of the chain's trace, open (NAME.N; live: NAME, any number
 * from n on): the fd, with *s; or -1 when it is not there (or is another
 * trace's).
 */
static int open_segment(const struct ggmlviz__chain *c, uint32_t n, int live, struct seg *s)
{
	size_t size = strlen(c->name) + 16;
	char *name = malloc(size);
	struct stat st;
	int fd = -1;

	if (!name)
		return -1;
	snprintf(name, size, live ? "%s" : "%s.%" PRIu32, c->name, n);
	fd = open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	free(name);
	if (fd >= 0 && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || segment_at(fd, s) != 1 ||
			s->id != c->trace_id || (live ? s->n < n : s->n != n))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Whether the trace's name holds a file that is not a segment of this trace (a new trace). */
static int holds_another(const struct ggmlviz__chain *c)
{
	int fd = open(c->name, O_RDONLY | O_NONBLOCK | O_CLOEXEC), rc = 0;
	struct seg s;
	struct stat st;

	if (fd < 0)
		return 0; /* gone: nothing says another trace is there */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= GGMLVIZ_HEADER_SIZE)
		rc = segment_at(fd, &s) != 1 || s.id != c->trace_id;
	close(fd);
	return rc;
}

/*
 * The mappings of the segments before the one before `now` whose files
 * were removed (KEEP passed): given up, so that a reader following a
 * rotated trace for days holds no removed segment's disk. Their labels
 * read as zeros from then on. The oldest are removed first: the first one
 * still there ends the look.
 */
static void forget_removed(struct ggmlviz_reader *r, uint32_t now)
{
	struct ggmlviz__chain *c = r->chain;
	size_t size = strlen(c->name) + 16;
	char *name = malloc(size);
	struct stat st;

	for (; name && c->held_from + 1 < now; c->held_from++) {
		snprintf(name, size, "%s.%" PRIu32, c->name, c->held_from);
		if (stat(name, &st) == 0)
			break;
		ggmlviz__window_forget_segment(r, c->held_from);
	}
	free(name);
}

/*
 * Reading goes on in the segment open at fd (taken): from its own records
 * on, or whole (its start too: the first segment read). 0 or -errno.
 */
static int switch_to(struct ggmlviz_reader *r, int fd, const struct seg *s, int whole)
{
	struct stat st;
	int rc = fstat(fd, &st) < 0 ? -errno : 0;

	if (rc == 0 && (uint64_t)st.st_size < GGMLVIZ_HEADER_SIZE)
		rc = GGMLVIZ_EMAGIC;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	ggmlviz__window_release_all(r); /* the old one's pages go back; its labels stay valid */
	close(r->fd);
	r->fd = fd;
	r->base = whole ? 0 : r->base + r->size;
	r->size = (uint64_t)st.st_size;
	r->segment_now = s->n;
	rc = ggmlviz__window_map_for(r, r->size);
	if (rc < 0)
		return rc;
	forget_removed(r, s->n);
	r->pos = whole ? GGMLVIZ_HEADER_SIZE
		       : (s->skip >= GGMLVIZ_HEADER_SIZE && s->skip <= r->size ? s->skip : r->size);
	r->release_from = 0;
	r->release_at = r->pos + GGMLVIZ__RELEASE_STEP;
	r->chain->at = s->n;
	r->chain->ended = 0;
	return 0;
}

/* Whether path is NAME.N for its own segment number n: a segment named as such, read alone. */
static int named_by_number(const char *path, uint32_t n)
{
	char suffix[16];
	size_t len = strlen(path), k = (size_t)snprintf(suffix, sizeof suffix, ".%" PRIu32, n);

	return len > k && strcmp(path + len - k, suffix) == 0;
}

/* The oldest segment from n down that is still there, in a row: its number. */
static uint32_t oldest_from(const struct ggmlviz__chain *c, uint32_t n)
{
	struct seg s;
	int fd;

	while (n > 1 && (fd = open_segment(c, n - 1, 0, &s)) >= 0) {
		close(fd);
		n--;
	}
	return n;
}

int ggmlviz__chain_open(struct ggmlviz_reader *r, const char *path)
{
	struct ggmlviz__chain *c;
	struct seg s, first;
	int rc = r->spooled ? 0 : segment_at(r->fd, &s), fd;

	if (rc <= 0 || named_by_number(path, s.n))
		return rc;
	c = calloc(1, sizeof *c);
	if (!c || !(c->name = strdup(path))) {
		free(c);
		return -ENOMEM;
	}
	c->trace_id = s.id;
	c->at = s.n;
	r->chain = c;
	r->segment_now = s.n;
	r->window->segment = s.n;
	c->first = oldest_from(c, s.n);
	for (fd = -1; c->first < s.n; c->first++) { /* the oldest removed since: the next one */
		fd = open_segment(c, c->first, 0, &first);
		if (fd >= 0)
			break;
	}
	c->held_from = c->first;
	return fd < 0 ? 0 : switch_to(r, fd, &first, 1);
}

void ggmlviz__chain_saw(struct ggmlviz_reader *r, const struct ggmlviz_event *ev)
{
	if (r->chain && ev->type == GGMLVIZ_EVENT_META &&
	    ev->data.meta.kind == GGMLVIZ_META_SEGMENT_END)
		r->chain->ended = 1;
}

/*
 * Whether the segment read now grew since its size was taken (its last
 * records were written before the next segment was made, which the
 * caller has seen): mapped on, 1; 0 when it did not; -errno.
 */
static int grew(struct ggmlviz_reader *r)
{
	struct stat st;

	if (fstat(r->fd, &st) < 0)
		return -errno;
	if ((uint64_t)st.st_size <= r->size)
		return 0;
	return ggmlviz__window_grow(r, (uint64_t)st.st_size) < 0 ? -EIO : 1;
}

/* Moves on to the segment open at fd, unless the one read now grew: 1, or -errno. */
static int move_on(struct ggmlviz_reader *r, int fd, const struct seg *s, uint32_t skipped)
{
	int rc = grew(r);

	if (rc != 0) {
		close(fd);
		return rc;
	}
	r->chain->missing += skipped;
	rc = switch_to(r, fd, s, 0);
	return rc < 0 ? rc : 1;
}

int ggmlviz__chain_next(struct ggmlviz_reader *r)
{
	struct ggmlviz__chain *c = r->chain;
	struct seg s, live;
	int fd = open_segment(c, c->at + 1, 0, &s), live_fd;

	if (fd >= 0)
		return move_on(r, fd, &s, 0);
	live_fd = open_segment(c, c->at + 1, 1, &live);
	if (live_fd < 0) {
		c->replaced = holds_another(c);
		return 0; /* the live segment is the one read now (or the trace is gone) */
	}
	/* segments between were removed before the reader reached them: the oldest left */
	for (uint32_t n = c->at + 2; n < live.n && n - c->at < PROBES_MAX; n++) {
		fd = open_segment(c, n, 0, &s);
		if (fd >= 0) {
			close(live_fd);
			return move_on(r, fd, &s, n - (c->at + 1));
		}
	}
	return move_on(r, live_fd, &live, live.n - (c->at + 1));
}

int ggmlviz__chain_rewind(struct ggmlviz_reader *r)
{
	struct ggmlviz__chain *c = r->chain;
	struct seg s;
	int fd = -1;

	for (uint32_t n = c->first; n < c->at && fd < 0; n++)
		fd = open_segment(c, n, 0, &s);
	if (fd < 0) { /* the oldest is the one read now */
		r->pos = GGMLVIZ_HEADER_SIZE;
		r->base = 0;
		c->first = c->at;
		c->missing = 0;
		return 0;
	}
	c->first = s.n;
	c->missing = 0;
	r->base = 0;
	return switch_to(r, fd, &s, 1);
}

int ggmlviz_reader_segments(const struct ggmlviz_reader *r, struct ggmlviz_segments *out)
{
	if (!r || !out)
		return -EINVAL;
	memset(out, 0, sizeof *out);
	if (!r->chain)
		return 0;
	out->first = r->chain->first;
	out->current = r->chain->at;
	out->missing = r->chain->missing;
	out->replaced = (uint32_t)r->chain->replaced;
	return 1;
}

void ggmlviz__chain_free(struct ggmlviz_reader *r)
{
	if (!r->chain)
		return;
	free(r->chain->name);
	free(r->chain);
	r->chain = NULL;
}
