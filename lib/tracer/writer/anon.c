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

uint32_t ggmlviz__anon_body(uint8_t *rec)
{
	const uint8_t *pl = rec + REC_PAYLOAD;
	uint32_t n = get_u32(pl + STIMES_COUNT);
	uint32_t len = rec[REC_HAS_LABEL] ? get_u32(rec + REC_LABEL_LEN) : 0;

	if (rec[REC_TYPE] != GGMLVIZ_EVENT_SHARE_TIMES || pl[STIMES_MODE] != GGMLVIZ_DESC_SET_DEFINE ||
	    (uint64_t)n * (GGMLVIZ_SHARE_TIMES_IDENTITY + GGMLVIZ_OP_TIMES_ENTRY) != len)
		return 0;
	for (uint32_t k = 0; k < n; k++) {
		uint8_t *id = rec + REC_LABEL + GGMLVIZ_SHARE_TIMES_IDENTITY * k + STIMES_ID_TENSOR;

		put_u64(id, anon_id(get_u64(id)));
	}
	return n * GGMLVIZ_SHARE_TIMES_IDENTITY;
}
