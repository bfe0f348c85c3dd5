/*
 * What info says of a flight recorder (info-flight.c): the trace's META
 * FLIGHT (what it keeps) and its META SNAPSHOT records (the snapshots
 * taken, each with its name and why), or, for a snapshot, why it was
 * taken.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_INFO_FLIGHT_H
#define CLI_INFO_FLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "output/output.h"

#define CLI_SNAPSHOTS_SHOWN 16

struct cli_snapshot {
	uint64_t key, request, figure, ts;
	const char *name; /* the label (borrowed from the reader) */
	uint32_t name_len;
};

struct cli_flight {
	const char *note; /* META FLIGHT's label (borrowed), or NULL: no flight recorder */
	uint32_t note_len;
	bool is_snapshot;  /* the trace's first record is META SNAPSHOT */
	struct cli_snapshot shown[CLI_SNAPSHOTS_SHOWN];
	uint64_t taken;    /* META SNAPSHOT records (after the first, in a snapshot) */
	bool seen_first;   /* a record was seen */
};

/* Every record, in order. */
void cli_flight_note(struct cli_flight *f, const struct ggmlviz_event *ev);
/* Why a snapshot was taken, from its META SNAPSHOT's key, value and value2, in words. */
const char *cli_snapshot_why(uint64_t key, uint64_t request, uint64_t figure, char *buf,
			     size_t size);
/* info's lines: flight, snapshots or snapshot; t_min the trace's start. */
void cli_flight_print(struct cli_out *o, const struct cli_flight *f, uint64_t t_min);

#endif /* CLI_INFO_FLIGHT_H */
