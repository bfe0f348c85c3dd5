/*
 * Record framing (see frame.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include <ggmlviz/format.h>

#include "frame.h"
#include "record.h"

int64_t ggmlviz__frame_size(const uint8_t *p, uint64_t left, struct ggmlviz__fault *f)
{
	uint32_t label_len;

	f->why = GGMLVIZ__CUT_FIXED;
	if (left < GGMLVIZ_RECORD_SIZE)
		return GGMLVIZ_ETRUNCATED;
	if (p[REC_HAS_LABEL] == 0)
		return GGMLVIZ_RECORD_SIZE;
	f->value = p[REC_HAS_LABEL];
	f->why = GGMLVIZ__BAD_HAS_LABEL;
	if (p[REC_HAS_LABEL] != 1)
		return GGMLVIZ_ECORRUPT;
	f->why = GGMLVIZ__CUT_LENGTH;
	if (left < GGMLVIZ_LABELED_RECORD_SIZE)
		return GGMLVIZ_ETRUNCATED;
	label_len = get_u32(p + REC_LABEL_LEN);
	f->value = label_len;
	f->why = GGMLVIZ__LABEL_TOO_LONG;
	if (label_len > GGMLVIZ_LABEL_LIMIT)
		return GGMLVIZ_ECORRUPT;
	f->why = GGMLVIZ__CUT_LABEL;
	if (left - GGMLVIZ_LABELED_RECORD_SIZE < label_len)
		return GGMLVIZ_ETRUNCATED;
	return (int64_t)record_size_labeled(label_len);
}

int ggmlviz__frame_describe(char *buf, size_t size, uint64_t offset, uint64_t left,
			    const struct ggmlviz__fault *f)
{
	switch (f->why) {
	case GGMLVIZ__BAD_HAS_LABEL:
		return snprintf(buf, size, "corrupt record at byte %" PRIu64 ": has_label is %" PRIu64
				" (must be 0 or 1)", offset, f->value);
	case GGMLVIZ__LABEL_TOO_LONG:
		return snprintf(buf, size, "corrupt record at byte %" PRIu64 ": label_length is %"
				PRIu64 ", more than the %u-byte limit", offset, f->value,
				GGMLVIZ_LABEL_LIMIT);
	case GGMLVIZ__CUT_LABEL:
		return snprintf(buf, size, "truncated at byte %" PRIu64 ": the data ends %" PRIu64
				" bytes into the last record, which holds %" PRIu64 " bytes", offset,
				left, record_size_labeled((uint32_t)f->value));
	case GGMLVIZ__CUT_FIXED:
	case GGMLVIZ__CUT_LENGTH:
		break;
	}
	return snprintf(buf, size, "truncated at byte %" PRIu64 ": the data ends %" PRIu64
			" bytes into the last record (its fixed part is %u bytes%s)", offset, left,
			GGMLVIZ_RECORD_SIZE,
			f->why == GGMLVIZ__CUT_LENGTH ? ", 50 with a label length" : "");
}
