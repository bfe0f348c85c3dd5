/*
 * Every tracing setting, one row each (settings.c): its name for
 * ggmlviz_setting_set(), its GGML_VIZ_* variable, its default, what it
 * accepts and where it lives. The rows drive everything that reads,
 * checks or prints a setting: ggmlviz_config_init() and
 * ggmlviz_config_from_env() (setup.c), the tracer's own settings and
 * ggmlviz_setting_*() (store.c), the checks and messages of
 * ggmlviz_start(). How a value is read, written and checked is its kind
 * (kinds.c).
 *
 * Files, bottom to top: kinds.c, kind-rotate.c, kind-flight.c, settings.c (the rows,
 * and the kind of a preset, which looks rows up), store.c, setup.c;
 * session.c uses them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SETTINGS_H
#define GGMLVIZ_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/tracer.h>

#include "tracer/base/base.h"

/*
 * A session's settings. struct ggmlviz_config is 0.2's, frozen (its size
 * and offsets are asserted in settings.c): a setting added since goes
 * below it, with its row (LATER(member) in settings.c), and needs no
 * change to any public header.
 */
/* GGML_VIZ_ROTATE (kind-rotate.c): segments of bytes at most, the newest keep kept (0: all). */
struct ggmlviz__rotate {
	uint64_t bytes; /* 0: no rotation */
	uint32_t keep;
};
#define GGMLVIZ__ROTATE_MIN_BYTES ((uint64_t)64 << 10) /* a segment holds more than its start */
#define GGMLVIZ__ROTATE_MAX_KEEP 1000000u

/*
 * GGML_VIZ_FLIGHT (kind-flight.c): the last seconds of every op kept in
 * memory, in bytes at most, for snapshots; the newest keep snapshots kept
 * (0: all).
 */
struct ggmlviz__flight {
	uint32_t seconds; /* 0: no flight recorder */
	uint32_t keep;
	uint64_t bytes;
};
#define GGMLVIZ__FLIGHT_MAX_SECONDS 3600u
#define GGMLVIZ__FLIGHT_MAX_KEEP 1000000u
#define GGMLVIZ__FLIGHT_MIN_BYTES ((uint64_t)1 << 20)
#define GGMLVIZ__FLIGHT_BYTES ((uint64_t)256 << 20) /* unless said */

/* GGML_VIZ_FLIGHT_ON (kind-flight.c): a request slower than these makes a snapshot (0: not judged). */
struct ggmlviz__flight_on {
	uint32_t ttft_ms, token_ms;
};
#define GGMLVIZ__FLIGHT_ON_MAX_MS 3600000u

struct ggmlviz__settings {
	struct ggmlviz_config cfg; /* the settings of 0.2, as a config holds them */
	/* settings added since 0.2: */
	struct ggmlviz__rotate rotate;
	int preset; /* GGML_VIZ_PRESET (settings.c): 0 none, 1 server */
	struct ggmlviz__flight flight;
	struct ggmlviz__flight_on flight_on;
	int pack;           /* GGML_VIZ_PACK: runs of a thread's records packed (PACK records) */
	uint32_t op_window; /* GGML_VIZ_OP_WINDOW: seconds a window of op sums spans (0: a step's own) */
};
#define GGMLVIZ__OP_WINDOW_MAX_SECONDS 3600u

struct ggmlviz__setting;

/* How the values of a kind of setting are read, written and checked. */
struct ggmlviz__setting_kind {
	/*
	 * Text as its GGML_VIZ_* variable takes it, into s: 0, or
	 * GGMLVIZ_EVALUE leaving s unchanged.
	 */
	int (*parse)(const struct ggmlviz__setting *row, const char *text,
		     struct ggmlviz__settings *s);
	/* A number into s: 0 or GGMLVIZ_EVALUE; NULL where the kind is not a number. */
	int (*from_int)(const struct ggmlviz__setting *row, int64_t value,
			struct ggmlviz__settings *s);
	/* The value as text that parse takes back ("" when unset); as snprintf returns. */
	int (*format)(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
		      char *buf, size_t size);
	/* Whether the value in s is one the setting takes (a program may have set a member). */
	int (*valid)(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s);
	int text; /* its value is a string: the tracer keeps a copy, messages quote it */
};

/* A word a choice takes, and the value it stands for. */
struct ggmlviz__choice {
	const char *word;
	int value;
};

/* Row flags. */
#define GGMLVIZ__SET_ZERO_OK 1u  /* a number: 0 too, besides min to max */
#define GGMLVIZ__SET_POW2 2u     /* a number: a power of two */
#define GGMLVIZ__SET_NEGATED 4u  /* a boolean stored as its opposite (the config's *_off members) */
#define GGMLVIZ__SET_BOOLEAN 8u  /* a choice that takes the booleans' words (alone: nonzero is 1) */
#define GGMLVIZ__SET_REQUIRED 16u /* a string: never unset (NULL) */
#define GGMLVIZ__SET_FIRST 32u    /* its variable read before the others' (a preset: they override it) */

/*
 * One setting. Settings are never renamed, removed or reordered once
 * released (their order is the order variables are read in: verbose first,
 * which decides whether the others are said).
 */
struct ggmlviz__setting {
	const char *name;    /* ggmlviz_setting_set()'s: the variable's, lower case, no prefix */
	const char *env;     /* its GGML_VIZ_* variable */
	const struct ggmlviz__setting_kind *kind;
	size_t offset, size; /* where in struct ggmlviz__settings */
	const char *member;  /* its member of struct ggmlviz_config; NULL if added since 0.2 */
	const char *def;     /* the default, as parse takes it; NULL: zero (unset) */
	/* what a refused value is told, "{min}" and "{max}" standing for those */
	const char *refusal;
	uint64_t min, max;   /* a number's range */
	unsigned flags;      /* GGMLVIZ__SET_* */
	const struct ggmlviz__choice *choices; /* a choice's words, NULL-ended; the first of a value names it */
	const char *unset;   /* what an unset value is called in messages, or NULL: "" */
	/*
	 * A check against other settings, or NULL: 0, or nonzero with why
	 * filled ("is below the ring's size (...)").
	 */
	int (*against)(const struct ggmlviz__settings *s, char *why, size_t size);
};

/* The kinds (kinds.c). */
extern const struct ggmlviz__setting_kind ggmlviz__kind_choice;
extern const struct ggmlviz__setting_kind ggmlviz__kind_number;
extern const struct ggmlviz__setting_kind ggmlviz__kind_text;
extern const struct ggmlviz__setting_kind ggmlviz__kind_ratio;
extern const struct ggmlviz__setting_kind ggmlviz__kind_rotate; /* kind-rotate.c */
extern const struct ggmlviz__setting_kind ggmlviz__kind_flight;    /* kind-flight.c */
extern const struct ggmlviz__setting_kind ggmlviz__kind_flight_on; /* kind-flight.c */
extern const struct ggmlviz__setting_kind ggmlviz__kind_preset; /* settings.c, beside the rows */
extern const struct ggmlviz__choice ggmlviz__bool_words[];
/*
 * A size as GGML_VIZ_ROTATE takes it (kind-rotate.c): decimal digits
 * [s, end), and K, M, G or T after them (KiB to TiB); 0 or GGMLVIZ_EVALUE.
 */
int ggmlviz__size_parse(const char *s, const char *end, uint64_t *out);
/* bytes with the largest unit that says it exactly ("256M"); as snprintf returns. */
int ggmlviz__size_format(uint64_t bytes, char *buf, size_t size);

/* The rows (settings.c). */
#define GGMLVIZ__SETTINGS_MAX 256 /* rows at most (settings.c asserts it) */
const struct ggmlviz__setting *ggmlviz__setting_at(size_t i); /* NULL past the last */
size_t ggmlviz__setting_index(const struct ggmlviz__setting *row);
/* By name ("buffer_size") or variable ("GGML_VIZ_BUFFER_SIZE"); NULL if none. */
const struct ggmlviz__setting *ggmlviz__setting_find(const char *name);
/* Whether the setting is a member of struct ggmlviz_config (0.2's). */
int ggmlviz__setting_in_config(const struct ggmlviz__setting *row);
/* Its default into s (always valid: tests/test-settings.c checks each). */
void ggmlviz__setting_default(const struct ggmlviz__setting *row, struct ggmlviz__settings *s);
/* Every setting's default. */
void ggmlviz__settings_defaults(struct ggmlviz__settings *s);
/* What the row refuses, in words, its range written in. */
void ggmlviz__setting_refusal(const struct ggmlviz__setting *row, char *buf, size_t size);
/* Its value as a message says it: quoted if text, its unset words if unset. */
void ggmlviz__setting_said(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			   char *buf, size_t size);
/* Whether a and b hold the same value of the row. */
int ggmlviz__setting_same(const struct ggmlviz__setting *row, const struct ggmlviz__settings *a,
			  const struct ggmlviz__settings *b);

/*
 * The tracer's own settings (store.c): what ggmlviz_setting_set() sets and
 * ggmlviz_start() begins from. A session takes them (a copy, and they are
 * frozen: ggmlviz_setting_set() then returns GGMLVIZ_EACTIVE) and gives
 * them back when it ends or does not begin.
 */
void ggmlviz__settings_take(struct ggmlviz__settings *out);
void ggmlviz__settings_give_back(void);
/* A copy, without taking them. */
void ggmlviz__settings_copy(struct ggmlviz__settings *out);
/*
 * The rows of s that struct ggmlviz_config does not hold (added since 0.2)
 * into the tracer's settings, those that differ: 0, GGMLVIZ_EACTIVE (a
 * session has them; nothing kept), or -ENOMEM (nothing kept).
 */
int ggmlviz__settings_keep_later(const struct ggmlviz__settings *s);
/* Around fork(): the child has no session, and the lock is free in it. */
void ggmlviz__settings_before_fork(void);
void ggmlviz__settings_after_fork(int child);

/* A session's setup (setup.c). */
/* Checks s whole as ggmlviz_start() does; 0 or -EINVAL (said to sink). */
int ggmlviz__settings_check(const struct ggmlviz__settings *s, const struct ggmlviz__log_sink *sink);
/* The GGML_VIZ_* variables over s, each refused one said to s's sink; 0 or -EINVAL. */
int ggmlviz__settings_from_env(struct ggmlviz__settings *s);
/* Says (INFO) the settings of s that are not their defaults, by name. */
void ggmlviz__settings_say(const struct ggmlviz__settings *s, const struct ggmlviz__log_sink *sink);
/* The most events a ring may grow to: buffer_events_max, or its default for 0. */
uint64_t ggmlviz__ring_max_events(const struct ggmlviz_config *cfg);

#endif /* GGMLVIZ_SETTINGS_H */
