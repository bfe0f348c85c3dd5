/*
 * Memory for the tracer from pages of its own, never the traced program's
 * heap: what the program allocates then lies where it would untraced.
 *
 * Why: where GGML's blocks lie moves its speed. One environment variable
 * more, which moves GGML's heap by 16 bytes, made an untraced llama-bench
 * 3.5 to 5% slower at one thread; and every malloc() of the tracer on a
 * GGML thread moved GGML's work buffer to a page offset of its own
 * (doc/cost.md). A tracer must not change what it measures, its place in
 * memory included.
 *
 * Each block is a mapping of its own, its size rounded up to whole pages
 * (the tracer's blocks are few: a thread's, a run shape's, a session's),
 * 64-byte aligned. Not for the emit path: each call is a system call
 * (mmap, mremap or munmap). Under AddressSanitizer the blocks come from
 * the C library's heap instead, so that its red zones still guard them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PAGES_H
#define GGMLVIZ_PAGES_H

#include <stddef.h>

/* A zeroed block of size bytes, 64-byte aligned; NULL where memory is short. */
void *ggmlviz__pages_alloc(size_t size);

/* A zeroed block of n elements of size bytes (as calloc()); NULL on overflow or short memory. */
void *ggmlviz__pages_array(size_t n, size_t size);

/*
 * block (from these functions, or NULL) made size bytes, its contents kept
 * up to the smaller size, as realloc() (16-byte aligned at least; bytes
 * past the old size are not zeroed); NULL where memory is short, block
 * then unchanged.
 */
void *ggmlviz__pages_resize(void *block, size_t size);

/* A copy of text, NUL included, in a block of its own; NULL where memory is short. */
char *ggmlviz__pages_copy(const char *text);

/* Gives block (from these functions, or NULL) back. */
void ggmlviz__pages_free(void *block);

#endif /* GGMLVIZ_PAGES_H */
