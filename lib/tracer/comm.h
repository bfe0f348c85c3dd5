/*
 * A thread's current name, as /proc/self/task/TID/comm says, read with
 * open(2) and read(2) only: the writer names threads in a crash handler's
 * pass too, where stdio is not safe.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_COMM_H
#define GGMLVIZ_COMM_H

#include <stdint.h>

/*
 * Writes the name of thread tid of this process into name (not
 * NUL-terminated, 15 bytes at most) and returns its length; fallback (16
 * bytes, NUL-terminated within them) when /proc cannot say, as for a
 * thread that is gone.
 */
uint32_t ggmlviz__thread_comm(uint32_t tid, const char fallback[16], char name[16]);

#endif /* GGMLVIZ_COMM_H */
