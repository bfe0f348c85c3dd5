/*
 * What the writer keeps of a batch whose write failed (a full disk, a file
 * size limit, an I/O error): the batch's records written again in pieces
 * of whole records, as far as the file system takes them, keeping room
 * for the DROPPED and TRACE_END records that end the file: events stop
 * GGMLVIZ__END_ROOM bytes short of where the file system stopped the
 * failed write; the writer's own records (THREAD_NAME, DROPPED) may use
 * that room but for one record, TRACE_END's.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SALVAGE_H
#define GGMLVIZ_SALVAGE_H

#include <stddef.h>

#include "writer-types.h"

/* Bytes kept free below where the file system stopped a write: the end records'. */
#define GGMLVIZ__END_ROOM 4096u

/*
 * After output_append() failed on the batch of pass rings [first, end)
 * (and cut the file back to its start): writes the writer's records, then
 * each ring's records in pieces, while they fit below room_end -
 * GGMLVIZ__END_ROOM; sets each of those pass rings' written and
 * notes_written. Returns 1 if the writer's records were written.
 */
int ggmlviz__salvage(struct ggmlviz__writer *w, size_t first, size_t end);

#endif /* GGMLVIZ_SALVAGE_H */
