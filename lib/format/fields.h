/*
 * The payload of each record type as a table of fields: one description
 * that decodes payloads into struct ggmlviz_event, encodes them back, and
 * lets tools print any type (ggmlviz_event_fields()).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_FIELDS_H
#define GGMLVIZ_FIELDS_H

#include <stdint.h>

#include <ggmlviz/format.h>

/* Fills ev->data from the 32 payload bytes of a record of ev->type. */
void ggmlviz__payload_decode(struct ggmlviz_event *ev, const uint8_t *payload);

/*
 * Writes the 32 payload bytes of ev: from ev->data for a known type (every
 * byte no field covers is zero), from ev->payload (or zeros) otherwise.
 */
void ggmlviz__payload_encode(const struct ggmlviz_event *ev, uint8_t *payload);

#endif /* GGMLVIZ_FIELDS_H */
