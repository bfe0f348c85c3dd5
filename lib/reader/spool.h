/*
 * A trace that cannot be mapped (a pipe, a terminal, a socket) is copied to
 * an unnamed file in $TMPDIR (or /tmp) and read from there, so that the
 * reader's memory stays as flat as it is for a file, however long the
 * stream.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SPOOL_H
#define GGMLVIZ_SPOOL_H

#include <stdint.h>

/*
 * Copies in to its end (or, when it does not start as a GGMLVIZ trace, its
 * first bytes only) into a new unnamed file; returns that file's
 * descriptor and its size in *size, or -errno.
 */
int ggmlviz__spool(int in, uint64_t *size);

#endif /* GGMLVIZ_SPOOL_H */
