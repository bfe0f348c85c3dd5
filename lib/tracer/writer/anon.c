/*
 * GGML_VIZ_ANONYMIZE: the writer replaces every address a record holds by
 * its id as it passes the record on (see internal.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggmlviz/format.h>

#include "format/record.h"
#include "tracer/writer/internal.h"

/* A keyed permutation of 64-bit values: an id for an address, 0 kept as 0. */
static uint64_t anon_id(uint64_t x)
{
	if (x == 0)
		return 0;
	x ^= ggmlviz__state.anon_key;
	x *= 0xBF58476D1CE4E5B9ull; /* odd: a bijection */
	x ^= x >> 31;
	x *= 0x94D049BB133111EBull;
	x ^= x >> 29;
	return x ? x : 1;
}

void ggmlviz__anon_record(uint8_t *rec)
{
	uint8_t *pl = rec + REC_PAYLOAD;
	uint8_t type = rec[REC_TYPE];
	size_t n = 0;
	const struct ggmlviz_field *f = ggmlviz_event_fields(type, &n);

	for (size_t i = 0; i < n; i++)
		if ((f[i].kind == GGMLVIZ_FIELD_ADDRESS || f[i].kind == GGMLVIZ_FIELD_BACKEND) &&
		    !(f[i].flags & GGMLVIZ_FIELD_ALIAS))
			put_u64(pl + f[i].offset, anon_id(get_u64(pl + f[i].offset)));
	if (type == GGMLVIZ_EVENT_META && get_u32(pl + META_KIND) == GGMLVIZ_META_BACKEND_NAME)
		put_u64(pl + META_KEY, anon_id(get_u64(pl + META_KEY))); /* the backend it names */
}
