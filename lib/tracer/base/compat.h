/*
 * Every call the tracer makes to the operating system beyond POSIX, in one
 * place: libggmlviz records on Linux (configure refuses other systems), and
 * this is what it needs of Linux. Each function says what it does where
 * the call is missing; none blocks but futex_wait, none allocates, and all
 * are async-signal-safe but page_size's first call.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_COMPAT_H
#define GGMLVIZ_COMPAT_H

#include <stdint.h>

/* The calling thread's kernel id (gettid(2)), truncated to 32 bits. */
uint32_t ggmlviz__os_gettid(void);

/* Wakes up to n threads waiting on word (futex(2), process-private). */
void ggmlviz__os_futex_wake(_Atomic uint32_t *word, int n);

/* Sleeps up to ns while *word == expected, or until woken. */
void ggmlviz__os_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t ns);

/*
 * Registers the process for membarrier(2)'s private expedited barrier;
 * 0, or -1 where the kernel has none (the emit path then fences itself).
 */
int ggmlviz__os_membarrier_register(void);

/* A full memory barrier on every running thread of the process (after registering). */
void ggmlviz__os_membarrier(void);

/* The last-level cache's size (sysconf: L3, else L2), or 32 MiB when unknown. */
uint64_t ggmlviz__os_cache_bytes(void);

/* The page size (sysconf, read once). */
uint64_t ggmlviz__os_page_size(void);

/* The calling thread's name (prctl PR_GET_NAME), NUL-terminated in 16 bytes; "" if unknown. */
void ggmlviz__os_thread_name(char name[16]);

/*
 * Writes the name of thread tid of this process, as /proc/self/task/TID/comm
 * says, into name (not NUL-terminated, 15 bytes at most) and returns its
 * length; fallback (16 bytes, NUL-terminated within them) when /proc cannot
 * say, as for a thread that is gone. open(2) and read(2) only: a crash
 * handler's pass names threads too.
 */
uint32_t ggmlviz__os_thread_comm(uint32_t tid, const char fallback[16], char name[16]);

/*
 * The device node through which this process could reach an NVIDIA GPU
 * (/dev/nvidiactl; /dev/dxg under WSL), or NULL when there is none: no
 * CUDA kernel can run, and CUPTI is not worth loading.
 */
const char *ggmlviz__os_nvidia_device(void);

/* The program's short name (program_invocation_short_name), or "". */
const char *ggmlviz__os_program_name(void);

#endif /* GGMLVIZ_COMPAT_H */
