/*
 * Memory for the tracer from pages of its own, not the traced program's
 * heap: what the program allocates then lies where it would untraced.
 * What comes and goes often on the writer's thread, whose heap is its
 * own, stays on the C library's heap (doc/cost.md names it).
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
 * 64-byte aligned. Not for the emit path, nor for what comes and goes
 * often: each call is a system call (mmap, mremap or munmap), and each
 * munmap() interrupts every CPU the program's threads run on. Under
 * AddressSanitizer the blocks come from the C library's heap instead, so
 * that its red zones still guard them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PAGES_H
#define GGMLVIZ_PAGES_H

#include <stddef.h>

/* 1 where the blocks come from the C library's heap: under AddressSanitizer, which guards it */
#if defined(__SANITIZE_ADDRESS__)
#define GGMLVIZ__PAGES_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GGMLVIZ__PAGES_FROM_HEAP 1
#endif
#endif
#ifndef GGMLVIZ__PAGES_FROM_HEAP
#define GGMLVIZ__PAGES_FROM_HEAP 0
#endif

/*
 * A zeroed block of size bytes, 64-byte aligned, 64 to 1024 bytes into its
 * first page; NULL where memory is short.
 */
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
