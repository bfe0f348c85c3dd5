/*
 * The reader's name tables: op types, backends and threads named by META
 * records (and THREAD_BEGIN labels), kept until the reader closes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_NAMES_H
#define GGMLVIZ_NAMES_H

#include <stdint.h>

#include "reader.h"

/*
 * Records the name carried by a META OP_NAME, BACKEND_NAME or THREAD_NAME
 * record, or by a THREAD_BEGIN's label (how the original writer named
 * threads); 0 or -ENOMEM.
 */
int ggmlviz__names_update(struct ggmlviz_reader *r, const struct ggmlviz_event *ev);

/* Looks a name up; NULL if unknown. */
const char *ggmlviz__names_get(const struct ggmlviz_reader *r, enum ggmlviz__name_table table,
			       uint64_t key);

/* Frees every name, current and replaced. */
void ggmlviz__names_release(struct ggmlviz_reader *r);

#endif /* GGMLVIZ_NAMES_H */
