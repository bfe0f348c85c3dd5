/*
 * Record framing: how many bytes the record at a given place takes, or
 * why it cannot be decoded (yet), without reading past the data.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_FRAME_H
#define GGMLVIZ_FRAME_H

#include <stddef.h>
#include <stdint.h>

/* What is wrong with a record that cannot be decoded (yet). */
struct ggmlviz__fault {
	enum { GGMLVIZ__CUT_FIXED, GGMLVIZ__CUT_LENGTH, GGMLVIZ__CUT_LABEL,
	       GGMLVIZ__BAD_HAS_LABEL, GGMLVIZ__LABEL_TOO_LONG } why;
	uint64_t value; /* has_label, or label_length */
};

/*
 * Size of the record at p, of which left bytes are known; or
 * GGMLVIZ_ETRUNCATED / GGMLVIZ_ECORRUPT, saying why in f. Reads nothing
 * past left.
 */
int64_t ggmlviz__frame_size(const uint8_t *p, uint64_t left, struct ggmlviz__fault *f);

/* One sentence on a fault at offset, with left bytes of data there (snprintf's return). */
int ggmlviz__frame_describe(char *buf, size_t size, uint64_t offset, uint64_t left,
			    const struct ggmlviz__fault *f);

#endif /* GGMLVIZ_FRAME_H */
