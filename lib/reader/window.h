/*
 * A trace file's mappings: windows larger than the file, so that a file
 * still being written can grow without moving what was handed out, and the
 * giving back of pages already read, so that memory stays flat.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WINDOW_H
#define GGMLVIZ_WINDOW_H

#include <stdint.h>

#include "reader.h"

/* Pages of the file already read are given back every time this much is read. */
#define GGMLVIZ__RELEASE_STEP ((uint64_t)32 << 20)

uint64_t ggmlviz__page_floor(uint64_t off);

/* Maps a window for a file of size bytes (twice that, 64 MiB at least); 0 or -errno. */
int ggmlviz__window_map_for(struct ggmlviz_reader *r, uint64_t size);

/*
 * Gives back the pages below keep_from (the record being returned), from
 * the start of the window every time, and plans the next release.
 */
void ggmlviz__window_release(struct ggmlviz_reader *r, uint64_t keep_from);

/* Gives back everything read so far (reading starts over). */
void ggmlviz__window_release_all(struct ggmlviz_reader *r);

/*
 * The file grew to size bytes: mapped as far (a larger window where it
 * passes the newest one); 0 or -errno.
 */
int ggmlviz__window_grow(struct ggmlviz_reader *r, uint64_t size);

/*
 * The windows of segment n (a rotated trace's, reader chain.c) lose their
 * file: each becomes zeros, the same address space readable, so that a
 * label handed out from it reads as zeros rather than fault, and the
 * file's disk is given back once it is removed.
 */
void ggmlviz__window_forget_segment(struct ggmlviz_reader *r, uint32_t n);

/* Unmaps every window. */
void ggmlviz__window_unmap_all(struct ggmlviz_reader *r);

#endif /* GGMLVIZ_WINDOW_H */
