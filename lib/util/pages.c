/*
 * Memory for the tracer from pages of its own (pages.h says why): a block
 * is one private anonymous mapping, its first 64 bytes the mapping's
 * length, the block after them. Under AddressSanitizer, the C library's
 * heap, which the sanitizer guards.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/pages.h"

#if defined(__SANITIZE_ADDRESS__)
#define GGMLVIZ__PAGES_FROM_HEAP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GGMLVIZ__PAGES_FROM_HEAP 1
#endif
#endif

/* ThreadSanitizer follows mmap() and munmap(), not mremap(): a block moves by a copy there */
#if defined(MREMAP_MAYMOVE) && !defined(__SANITIZE_THREAD__)
#define GGMLVIZ__PAGES_REMAP 1
#endif
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#undef GGMLVIZ__PAGES_REMAP
#endif
#endif

#define HEAD 64u /* the mapping's length, and the block's alignment */

#ifdef GGMLVIZ__PAGES_FROM_HEAP

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
	return realloc(block, size ? size : 1);
}

void ggmlviz__pages_free(void *block)
{
	free(block);
}

#else

struct head {
	size_t mapped; /* the mapping's bytes, its head's included */
};

/* The bytes mapped for a block of size: whole pages; 0 past what a size_t holds. */
static size_t mapped_for(size_t size)
{
	long got = sysconf(_SC_PAGESIZE);
	size_t page = got > 0 ? (size_t)got : 4096;

	if (size > SIZE_MAX - HEAD - page)
		return 0;
	return (size + HEAD + page - 1) & ~(page - 1);
}

static struct head *head_of(void *block)
{
	return (struct head *)((uint8_t *)block - HEAD);
}

void *ggmlviz__pages_alloc(size_t size)
{
	size_t len = mapped_for(size);
	uint8_t *p;

	if (!len)
		return NULL;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	((struct head *)p)->mapped = len;
	return p + HEAD;
}

#ifndef GGMLVIZ__PAGES_REMAP
/*
 * Where the system has no mremap(), or ThreadSanitizer watches: a new
 * block, the old one's bytes copied.
 */
static void *moved(void *block, size_t size)
{
	struct head *h = head_of(block);
	size_t keep = h->mapped - HEAD < size ? h->mapped - HEAD : size;
	void *p = ggmlviz__pages_alloc(size);

	if (p) {
		memcpy(p, block, keep);
		ggmlviz__pages_free(block);
	}
	return p;
}
#endif

void *ggmlviz__pages_resize(void *block, size_t size)
{
	size_t len = mapped_for(size);
	struct head *h;

	if (!block)
		return ggmlviz__pages_alloc(size);
	h = head_of(block);
	if (!len)
		return NULL;
	if (len <= h->mapped)
		return block; /* it fits: a smaller block keeps its pages until freed */
#ifdef GGMLVIZ__PAGES_REMAP
	{
		void *p = mremap(h, h->mapped, len, MREMAP_MAYMOVE);

		if (p == MAP_FAILED)
			return NULL;
		((struct head *)p)->mapped = len;
		return (uint8_t *)p + HEAD;
	}
#else
	return moved(block, size);
#endif
}

void ggmlviz__pages_free(void *block)
{
	if (block) {
		struct head *h = head_of(block);

		(void)munmap(h, h->mapped);
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
