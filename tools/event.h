/*
 * One event as a text line or a JSON Lines object (event.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_EVENT_H
#define CLI_EVENT_H

#include <stdbool.h>

#include <ggmlviz/reader.h>

#include "out.h"

/* One event as a text line or a JSON Lines object, with its newline (event.c). */
void cli_event_print(struct cli_out *o, const struct ggmlviz_reader *r,
			  const struct ggmlviz_event *ev, bool json);

#endif /* CLI_EVENT_H */
