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

/* The header and this process's PROCESS record; 0 or -errno. */
int ggmlviz__output_preamble(struct ggmlviz__writer *w, uint32_t tid);

#endif /* GGMLVIZ_OUTPUT_H */
