/*
 * What info says of a flight recorder (see info-flight.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "cmd/info-flight.h"

void cli_flight_note(struct cli_flight *f, const struct ggmlviz_event *ev)
{
	bool first = !f->seen_first;
	struct cli_snapshot *s;

	f->seen_first = true;
	if (ev->type != GGMLVIZ_EVENT_META)
		return;
	if (ev->data.meta.kind == GGMLVIZ_META_FLIGHT && !f->note && ev->label)
		f->note = ev->label, f->note_len = ev->label_len;
	if (ev->data.meta.kind != GGMLVIZ_META_SNAPSHOT)
		return;
	if (first) { /* a snapshot: its own, saying why */
		f->is_snapshot = true;
		s = &f->shown[0];
	} else if (f->taken < CLI_SNAPSHOTS_SHOWN) {
		s = &f->shown[f->taken++];
	} else {
		f->taken++;
		return;
	}
	*s = (struct cli_snapshot){ ev->data.meta.key, ev->data.meta.value, ev->data.meta.value2,
				    ev->timestamp_ns, ev->label, ev->label ? ev->label_len : 0 };
}

const char *cli_snapshot_why(uint64_t key, uint64_t request, uint64_t figure, char *buf,
			     size_t size)
{
	char t[32];

	switch (key >> 32) {
	case GGMLVIZ_SNAPSHOT_ASKED:
		snprintf(buf, size, "asked (ggmlviz snapshot)");
		break;
	case GGMLVIZ_SNAPSHOT_TTFT:
		snprintf(buf, size, "request %" PRIu64 ": time to first token %s", request,
			 cli_fmt_ns((double)figure, t));
		break;
	case GGMLVIZ_SNAPSHOT_TOKEN:
		snprintf(buf, size, "request %" PRIu64 ": time per output token %s", request,
			 cli_fmt_ns((double)figure, t));
		break;
	default:
		snprintf(buf, size, "why %" PRIu64 " (unknown to this version)", key >> 32);
	}
	return buf;
}

static void print_one(struct cli_out *o, const struct cli_snapshot *s, uint64_t t_min)
{
	char why[160], rel[32];

	cli_out_printf(o, "  %-4" PRIu32 " ", (uint32_t)s->key);
	cli_text_str(o, s->name ? s->name : "?", s->name ? s->name_len : 1);
	cli_out_printf(o, "  at +%s  %s\n",
		       cli_fmt_ns((double)(s->ts > t_min ? s->ts - t_min : 0), rel),
		       cli_snapshot_why(s->key, s->request, s->figure, why, sizeof why));
}

void cli_flight_print(struct cli_out *o, const struct cli_flight *f, uint64_t t_min)
{
	char why[160];

	if (f->is_snapshot) {
		const struct cli_snapshot *s = &f->shown[0];

		cli_out_printf(o, "snapshot:   number %" PRIu32 " of a flight recorder (every op of"
			       " its last seconds), taken because: %s\n", (uint32_t)s->key,
			       cli_snapshot_why(s->key, s->request, s->figure, why, sizeof why));
	}
	if (f->note) {
		cli_out_str(o, "flight:     ");
		cli_text_str(o, f->note, f->note_len);
		cli_out_char(o, '\n');
	}
	if (f->is_snapshot || (!f->note && !f->taken))
		return;
	cli_out_printf(o, "snapshots:  %" PRIu64 " taken (the flight recorder's: each a trace of its"
		       " own beside this one)\n", f->taken);
	for (uint64_t i = 0; i < f->taken && i < CLI_SNAPSHOTS_SHOWN; i++)
		print_one(o, &f->shown[i], t_min);
	if (f->taken > CLI_SNAPSHOTS_SHOWN)
		cli_out_printf(o, "  (%" PRIu64 " more)\n", f->taken - CLI_SNAPSHOTS_SHOWN);
}
