/*
 * Timings straight from a reader: its records fed to the reader's own
 * pairing engine.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggmlviz/reader.h>

#include "reader.h"

int ggmlviz_reader_next_timing(struct ggmlviz_reader *r, struct ggmlviz_timing *t)
{
	struct ggmlviz_event ev;
	int rc;

	if (ggmlviz_pairing_take(r->pairing, t))
		return 1; /* the rest of a GPU run completed earlier */
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		rc = ggmlviz_pairing_add(r->pairing, &ev, t);
		if (rc != 0)
			return rc;
	}
	if (rc == 0) {
		ggmlviz_pairing_finish(r->pairing);
		if (ggmlviz_pairing_take(r->pairing, t))
			return 1; /* GPU runs tied at the end: the next call finishes again */
	}
	return rc;
}

void ggmlviz_reader_pairing_counts(const struct ggmlviz_reader *r,
				   struct ggmlviz_pairing_counts *out)
{
	ggmlviz_pairing_counts(r->pairing, out);
}

uint64_t ggmlviz_reader_undescribed(const struct ggmlviz_reader *r)
{
	return ggmlviz_pairing_undescribed(r->pairing);
}

/* The names of 0.2 and before, kept. */

int ggmlviz_timings_next(struct ggmlviz_reader *r, struct ggmlviz_timing *t)
{
	return ggmlviz_reader_next_timing(r, t);
}

void ggmlviz_timings_counts(const struct ggmlviz_reader *r, struct ggmlviz_pairing_counts *out)
{
	ggmlviz_reader_pairing_counts(r, out);
}
