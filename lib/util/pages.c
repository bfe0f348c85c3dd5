/*
 * Memory for the tracer from pages of its own (pages.h says why): a block
 * is one private anonymous mapping. Its head (the mapping's length, and
 * where the block begins in it) lies in the 64 bytes before the block;
 * the block begins 64 to 1024 bytes into its first page, the next block
 * 64 bytes further than the one before (wrapping), so that arrays read at
 * the same index op after op do not all fall in one cache set, nor alias
 * at the same offset in their pages. Under AddressSanitizer, the C
 * library's heap, which the sanitizer guards.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/pages.h"

/* ThreadSanitizer follows mmap() and munmap(), not mremap(): a block moves by a copy there */
#if defined(MREMAP_MAYMOVE) && !defined(__SANITIZE_THREAD__)
#define GGMLVIZ__PAGES_REMAP 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#undef GGMLVIZ__PAGES_REMAP
#endif
#endif

#define HEAD 64u     /* the head's room, and the block's alignment */
#define COLOURS 16u  /* places a block may begin at in its first page, 64 bytes apart */

#if GGMLVIZ__PAGES_FROM_HEAP

void *ggmlviz__pages_alloc(size_t size)
{
	size_t rounded = (size + HEAD - 1) & ~(size_t)(HEAD - 1);
	void *p = rounded >= size ? aligned_alloc(HEAD, rounded ? rounded : HEAD) : NULL;

	if (p)
		memset(p, 0, rounded ? rounded : HEAD);
	return p;
}

void *ggmlviz__pages_resize(void *block, size_t size)
{
	if (size > SIZE_MAX - HEAD)
		return NULL; /* what the mapped blocks refuse: not the sanitizer's to stop on */
	return realloc(block, size ? size : 1);
}

void ggmlviz__pages_free(void *block)
{
	free(block);
}

#else

struct head {
	size_t mapped; /* the mapping's bytes */
	size_t offset; /* where the block begins in it */
};

_Static_assert(sizeof(struct head) <= HEAD, "a block's head fits before it");

/* The bytes mapped for a block of size offset bytes in: whole pages; 0 past a size_t. */
static size_t mapped_for(size_t size, size_t offset)
{
	long got = sysconf(_SC_PAGESIZE);
	size_t page = got > 0 ? (size_t)got : 4096;

	if (size > SIZE_MAX - offset - page)
		return 0;
	return (size + offset + page - 1) & ~(page - 1);
}

static struct head *head_of(void *block)
{
	return (struct head *)((uint8_t *)block - HEAD);
}

/* Where the next block begins in its first page: 64, 128, ... 1024, then 64 again. */
static size_t next_offset(void)
{
	static _Atomic unsigned int colour;

	return HEAD * (1 + atomic_fetch_add_explicit(&colour, 1, memory_order_relaxed) % COLOURS);
}

void *ggmlviz__pages_alloc(size_t size)
{
	size_t offset = next_offset(), len = mapped_for(size, offset);
	uint8_t *p;
	struct head *h;

	if (!len)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	h = head_of(p + offset);
	h->mapped = len;
	h->offset = offset;
	return p + offset;
}

#ifndef GGMLVIZ__PAGES_REMAP
/*
 * Where the system has no mremap(), or ThreadSanitizer watches: a new
 * block, the old one's bytes copied.
 */
static void *moved(void *block, size_t size)
{
	struct head *h = head_of(block);
	size_t had = h->mapped - h->offset;
	void *p = ggmlviz__pages_alloc(size);

	if (p) {
		memcpy(p, block, had < size ? had : size);
		ggmlviz__pages_free(block);
	}
	return p;
}
#endif

void *ggmlviz__pages_resize(void *block, size_t size)
{
	struct head *h;
	size_t len;

	if (!block)
		return ggmlviz__pages_alloc(size);
	h = head_of(block);
	len = mapped_for(size, h->offset);
	if (!len)
		return NULL;
	if (len <= h->mapped)
		return block; /* it fits: a smaller block keeps its pages until freed */
#ifdef GGMLVIZ__PAGES_REMAP
	{
		size_t offset = h->offset;
		uint8_t *p = mremap((uint8_t *)block - offset, h->mapped, len, MREMAP_MAYMOVE);

		if (p == MAP_FAILED)
			return NULL;
		head_of(p + offset)->mapped = len;
		return p + offset;
	}
#else
	return moved(block, size);
#endif
}

void ggmlviz__pages_free(void *block)
{
	if (block) {
		struct head *h = head_of(block);

		(void)munmap((uint8_t *)block - h->offset, h->mapped);
	}
}

#endif

void *ggmlviz__pages_array(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return ggmlviz__pages_alloc(n * size);
}

char *ggmlviz__pages_copy(const char *text)
{
	size_t n = strlen(text) + 1;
	char *p = ggmlviz__pages_alloc(n);

	if (p)
		memcpy(p, text, n);
	return p;
}
