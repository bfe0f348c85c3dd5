/*
 * Tracks without partial overlaps, for export: viewers draw the slices of
 * one track nested by time, so a slice that begins inside another of its
 * thread and ends after it (the original ggml-viz wrote such ops) would
 * turn the track into a staircase. Such a slice goes to a track of its own
 * beside its thread's: "TID (overlapping slices 1)", up to
 * CLI_TRACK_LEVELS of them; past that it stays on the last one.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_TRACKS_H
#define CLI_TRACKS_H

#include <stdbool.h>
#include <stdint.h>

#include "htab.h"

#define CLI_TRACK_LEVELS 4 /* tracks per thread: its own and 3 for overlaps */
#define CLI_TRACK_RECENT 8 /* slices of a track an offender is looked for among */

struct cli_tracks {
	struct cli_htab threads;
	uint64_t moved; /* slices put on an overlap track */
};

/*
 * The track of a slice [begin, end) of thread tid, given in the order of
 * their ends: tid itself, or an overlap track's id (tid + level * 2^28).
 * *level is 0, or which overlap track; *first says it is that track's
 * first slice (name it). Memory grows with the threads, not the slices.
 */
uint32_t cli_track_of(struct cli_tracks *t, uint32_t tid, uint64_t begin, uint64_t end,
		      int *level, bool *first);

void cli_tracks_free(struct cli_tracks *t);

#endif /* CLI_TRACKS_H */
