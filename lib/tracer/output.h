/*
 * The writer's file: every write to it, and the preamble that starts it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_OUTPUT_H
#define GGMLVIZ_OUTPUT_H

#include <stdint.h>
#include <sys/uio.h>

#include "writer-types.h"

/*
 * Writes the bytes of iov[0..n) (modifying iov) at the end of the file;
 * 0, or -errno with the file cut back to its last whole record.
 */
int ggmlviz__output_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n);

/*
 * Opens the trace file at path for appending; the fd, or -errno. A device
 * or a FIFO is opened as it is (also through a link, as /dev/stdout);
 * otherwise a new file is made next to path and renamed to it, so that an
 * existing file is never truncated in place (a reader of it keeps it whole)
 * and a symbolic link to a file is replaced, its target left alone.
 */
int ggmlviz__output_open(const char *path);

/* The header and this process's PROCESS record; 0 or -errno. */
int ggmlviz__output_preamble(struct ggmlviz__writer *w, uint32_t tid);

#endif /* GGMLVIZ_OUTPUT_H */
