/*
 * speedscope's own file format (see export.h; its schema is
 * https://www.speedscope.app/file-format-schema.json): one "evented"
 * profile per thread or GPU track, whose events open ("O") and close
 * ("C") frames at nanoseconds from the trace's start, and one table of
 * frames shared by all, a frame per name. speedscope keys the frames of a
 * Chrome JSON trace by their name and args, so that no two ops group
 * together in its sandwich and left-heavy views; here an op is its op's
 * frame, a step its label's ("decode (1 tokens)"), and args stay in the
 * JSON and Perfetto exports.
 *
 * Events are written in nesting order (nest.c) into a temporary file per
 * track, since a profile's events must be one array; at the end the
 * file is the profiles, copied, then the frames. Memory stays bounded:
 * the held slices, at most TRACKS_MAX tracks (slices of more are counted
 * and left out) and FRAMES_MAX frame names (more share one frame).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

#define TRACKS_MAX 256
#define FRAMES_MAX 65536
#define NAME_MAX_LEN 256

static const char other_frame[] = "(other names)";

struct frame {
	uint64_t hash;
	uint32_t index, len;
	char name[];
};

struct track {
	uint64_t pid;
	uint32_t id;
	FILE *f;          /* its events, as JSON objects separated by commas */
	uint64_t events, first, last;
	char name[NAME_MAX_LEN];
};

struct cli_speedscope_state {
	struct cli_htab frames;    /* by name */
	struct frame **by_index;   /* n_frames of them, in index order */
	uint32_t n_frames;
	struct track *tracks[TRACKS_MAX];
	uint32_t n_tracks;
	struct cli_nest nest;
	struct cli_nest_slice cur;
	uint32_t cur_frame;
	bool holding, step;
	uint64_t left_out;
	int error;
};

/* What a frame is looked up by: its name. */
struct frame_key {
	const char *name;
	size_t len;
};

static bool frame_eq(const void *item, const void *key)
{
	const struct frame *f = item;
	const struct frame_key *k = key;

	return f->len == k->len && !memcmp(f->name, k->name, k->len);
}

/* A new frame named k's name, last in the list; its index, or 0 without memory. */
static uint32_t frame_add(struct cli_speedscope_state *st, const struct frame_key *k,
			  uint64_t hash)
{
	struct frame *f = malloc(sizeof *f + k->len + 1);

	if (!f || cli_htab_add(&st->frames, hash, f) < 0) {
		free(f);
		st->error = -ENOMEM;
		return 0;
	}
	*f = (struct frame){ hash, st->n_frames, (uint32_t)k->len };
	memcpy(f->name, k->name, k->len);
	f->name[k->len] = '\0';
	st->by_index[st->n_frames] = f;
	return st->n_frames++;
}

/*
 * The index of the frame named name (len bytes), made on first sight;
 * past FRAMES_MAX - 1 names, a new one is "(other names)".
 */
static uint32_t frame_of(struct cli_speedscope_state *st, const char *name, size_t len)
{
	struct frame_key k = { name, len < NAME_MAX_LEN ? len : NAME_MAX_LEN };
	uint64_t hash = cli_hash_bytes(k.name, k.len, 0);
	struct frame *f = cli_htab_find(&st->frames, hash, frame_eq, &k);

	if (f)
		return f->index;
	if (st->n_frames >= FRAMES_MAX - 1) {
		k = (struct frame_key){ other_frame, sizeof other_frame - 1 };
		hash = cli_hash_bytes(k.name, k.len, 0);
		if ((f = cli_htab_find(&st->frames, hash, frame_eq, &k)))
			return f->index;
	}
	return frame_add(st, &k, hash);
}

/* The index of the track of (pid, id), made on first sight; -1 past TRACKS_MAX or without memory. */
static int track_of(struct cli_speedscope_state *st, uint64_t pid, uint32_t id)
{
	struct track *t;

	for (uint32_t i = 0; i < st->n_tracks; i++) /* a few threads and GPU streams */
		if (st->tracks[i]->pid == pid && st->tracks[i]->id == id)
			return (int)i;
	if (st->n_tracks == TRACKS_MAX)
		return -1;
	if (!(t = calloc(1, sizeof *t)) || !(t->f = tmpfile())) {
		free(t);
		st->error = -ENOMEM;
		return -1;
	}
	t->pid = pid, t->id = id;
	if (id & 0x80000000u) /* a GPU track: named by the trace, else by its number */
		snprintf(t->name, sizeof t->name, "GPU track %" PRIu32, id & 0x7fffffffu);
	else
		snprintf(t->name, sizeof t->name, "thread %" PRIu32, id);
	st->tracks[st->n_tracks] = t;
	return (int)st->n_tracks++;
}

static struct cli_speedscope_state *state(struct cli_esink *s)
{
	return ((struct cli_speedscope *)s)->st;
}

/* ---- events, in nesting order ---- */

static void event(struct cli_speedscope_state *st, const struct cli_nest_slice *h, char type,
		  const uint8_t *bytes, uint64_t at)
{
	struct track *t = st->tracks[h->track];
	uint32_t frame;

	memcpy(&frame, bytes, sizeof frame);
	if (!t->events)
		t->first = at;
	t->last = at;
	if (fprintf(t->f, "%s{\"type\":\"%c\",\"frame\":%" PRIu32 ",\"at\":%" PRIu64 "}",
		    t->events++ ? "," : "", type, frame, at) < 0)
		st->error = -EIO;
}

static void open_frame(void *ctx, const struct cli_nest_slice *h, const uint8_t *bytes)
{
	event(ctx, h, 'O', bytes, h->begin);
}

static void close_frame(void *ctx, const struct cli_nest_slice *h, const uint8_t *bytes)
{
	event(ctx, h, 'C', bytes, h->end);
}

/* ---- the sink ---- */

static void slice(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name, size_t len,
		  const char *cat, uint64_t ts, uint64_t dur, bool encloses)
{
	struct cli_speedscope_state *st = state(s);
	int track = track_of(st, pid, id);
	uint64_t begin = ts > s->t0 ? ts - s->t0 : 0;
	uint64_t end = dur > UINT64_MAX - begin ? UINT64_MAX : begin + dur;

	(void)encloses; /* exact nanoseconds, opened and closed in order: nothing to round */
	st->holding = track >= 0;
	st->step = !strcmp(cat, "step");
	if (track < 0) {
		st->left_out++;
		return;
	}
	st->cur_frame = frame_of(st, name ? name : "", name ? len : 0);
	st->cur = (struct cli_nest_slice){ .track = (uint64_t)track, .begin = begin, .end = end,
					   .rank = cli_nest_rank(cat), .slice = true };
}

static void end(struct cli_esink *s)
{
	struct cli_speedscope_state *st = state(s);

	if (st->holding &&
	    cli_nest_hold(&st->nest, &st->cur, &st->cur_frame, sizeof st->cur_frame) < 0)
		st->error = -ENOMEM;
	else if (st->holding && st->step)
		cli_nest_flush(&st->nest);
	st->holding = false;
}

/* speedscope has no instants, counters or args: what the other formats show of them. */
static void instant(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name, size_t len,
		    uint64_t ts)
{
	(void)pid, (void)id, (void)name, (void)len, (void)ts;
	state(s)->holding = false;
}

static void counter(struct cli_esink *s, uint64_t pid, const char *name, size_t len, uint64_t ts,
		    const char *key, double v)
{
	(void)s, (void)pid, (void)name, (void)len, (void)ts, (void)key, (void)v;
}

static void arg_u64(struct cli_esink *s, const char *key, uint64_t v)
{
	(void)s, (void)key, (void)v;
}

static void arg_i64(struct cli_esink *s, const char *key, int64_t v)
{
	(void)s, (void)key, (void)v;
}

static void arg_str(struct cli_esink *s, const char *key, const char *v, size_t len)
{
	(void)s, (void)key, (void)v, (void)len;
}

static void arg_shape(struct cli_esink *s, const char *key, const int64_t ne[4])
{
	(void)s, (void)key, (void)ne;
}

static void name_process(struct cli_esink *s, uint64_t pid, const char *name, size_t len)
{
	(void)s, (void)pid, (void)name, (void)len; /* a profile is a thread's: named by it */
}

static void name_track(struct cli_esink *s, uint64_t pid, uint32_t id, const char *name,
		       size_t len)
{
	int track = track_of(state(s), pid, id);
	struct track *t = track >= 0 ? state(s)->tracks[track] : NULL;

	if (!t || !name)
		return;
	if (id & 0x80000000u)
		snprintf(t->name, sizeof t->name, "%.*s", (int)(len < 200 ? len : 200), name);
	else
		snprintf(t->name, sizeof t->name, "%.*s (tid %" PRIu32 ")",
			 (int)(len < 200 ? len : 200), name, id);
}

static const struct cli_esink_ops speedscope_ops = {
	name_process, name_track, slice, instant, counter,
	arg_u64, arg_i64, arg_str, arg_u64, arg_shape, end,
};

int cli_speedscope_begin(struct cli_speedscope *p, struct cli_out *o, uint64_t t0)
{
	struct cli_speedscope_state *st;

	*p = (struct cli_speedscope){ .base = { .ops = &speedscope_ops, .t0 = t0, .nested = true, .unnumbered = true }, .o = o };
	if (!(st = p->st = calloc(1, sizeof *st)) ||
	    !(st->by_index = calloc(FRAMES_MAX, sizeof *st->by_index)))
		return -ENOMEM;
	st->nest.open = open_frame;
	st->nest.close = close_frame;
	st->nest.ctx = st;
	return 0;
}

/* ---- the file ---- */

/* A profile: its header, its events copied from its temporary file, its end. */
static void write_profile(struct cli_out *o, struct track *t, int *error)
{
	char buf[1 << 16];
	size_t n;

	cli_out_str(o, "{\"type\":\"evented\",\"name\":");
	cli_json_cstr(o, t->name);
	cli_out_printf(o, ",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64 ",\"endValue\":%"
		       PRIu64 ",\"events\":[", t->first, t->last);
	rewind(t->f);
	while ((n = fread(buf, 1, sizeof buf, t->f)) > 0)
		cli_out_write(o, buf, n);
	if (ferror(t->f))
		*error = -EIO;
	cli_out_str(o, "]}");
}

static void write_file(struct cli_speedscope *p, const char *name)
{
	struct cli_speedscope_state *st = p->st;
	struct cli_out *o = p->o;
	bool first = true;

	cli_out_str(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
		       "\"exporter\":\"ggmlviz " GGMLVIZ_VERSION_STRING "\",\"name\":");
	cli_json_cstr(o, name);
	cli_out_str(o, ",\"activeProfileIndex\":0,\"profiles\":[");
	for (uint32_t i = 0; i < st->n_tracks; i++) {
		if (!st->tracks[i]->events)
			continue;
		cli_out_str(o, first ? "\n" : ",\n");
		first = false;
		write_profile(o, st->tracks[i], &st->error);
	}
	cli_out_str(o, "],\n\"shared\":{\"frames\":[");
	for (uint32_t i = 0; i < st->n_frames; i++) {
		cli_out_str(o, i ? ",{\"name\":" : "{\"name\":");
		cli_json_str(o, st->by_index[i]->name, st->by_index[i]->len);
		cli_out_char(o, '}');
	}
	cli_out_str(o, "]}}\n");
}

int cli_speedscope_end(struct cli_speedscope *p, const char *name, uint64_t *left_out)
{
	struct cli_speedscope_state *st = p->st;
	size_t cursor = 0;
	void *item;
	int error;

	if (!st)
		return 0;
	cli_nest_flush(&st->nest);
	write_file(p, name);
	error = st->error;
	*left_out = st->left_out;
	while ((item = cli_htab_next(&st->frames, &cursor)))
		free(item);
	cli_htab_free(&st->frames);
	for (uint32_t i = 0; i < st->n_tracks; i++) {
		fclose(st->tracks[i]->f);
		free(st->tracks[i]);
	}
	cli_nest_free(&st->nest);
	free(st->by_index);
	free(st);
	p->st = NULL;
	return error;
}
