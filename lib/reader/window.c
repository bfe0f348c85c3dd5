/*
 * A trace file's mappings (see window.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard.h"
#include "window.h"

/* A window maps at least this much, so a growing trace is rarely remapped. */
#define WINDOW_MIN ((uint64_t)64 << 20)

static uint64_t page_size(void)
{
	long n = sysconf(_SC_PAGESIZE);

	return n > 0 ? (uint64_t)n : 4096u;
}

uint64_t ggmlviz__page_floor(uint64_t off)
{
	return off & ~(page_size() - 1);
}

static uint64_t page_ceil(uint64_t off)
{
	return ggmlviz__page_floor(off + page_size() - 1);
}

/*
 * Maps the first length bytes of the file as the newest window. Past the
 * end of the file the window is only address space: no byte at or past
 * r->size is ever touched.
 */
static int window_map(struct ggmlviz_reader *r, uint64_t length)
{
	struct ggmlviz__window *w = malloc(sizeof *w);

	if (!w)
		return -ENOMEM;
	if (length > SIZE_MAX) {
		free(w);
		return -EFBIG;
	}
	w->length = (size_t)length;
	w->base = mmap(NULL, w->length, PROT_READ, MAP_SHARED, r->fd, 0);
	if (w->base == MAP_FAILED) {
		int rc = -errno;
		free(w);
		return rc;
	}
	(void)madvise(w->base, w->length, MADV_SEQUENTIAL);
	w->segment = r->segment_now;
	w->forgotten = 0;
	(void)ggmlviz__guard_add(w->base, w->length, &r->shrunk); /* unguarded past 256 windows */
	w->older = r->window;
	r->window = w;
	r->data = w->base;
	return 0;
}

int ggmlviz__window_map_for(struct ggmlviz_reader *r, uint64_t size)
{
	uint64_t want = size < WINDOW_MIN / 2 ? WINDOW_MIN : page_ceil(size) * 2;

	if (size > UINT64_MAX / 4 || window_map(r, want) < 0)
		return window_map(r, page_ceil(size));
	return 0;
}

/*
 * File pages fault in again if an old label is read, so giving back the
 * pages below the record being returned keeps memory flat however long the
 * trace; from the start of the window every time, since pages of old
 * labels read since the last time came back. Walking page tables already
 * empty costs next to nothing.
 */
int ggmlviz__window_grow(struct ggmlviz_reader *r, uint64_t size)
{
	struct ggmlviz__window *old = r->window;

	if (size > old->length) {
		int rc = ggmlviz__window_map_for(r, size);
		if (rc < 0)
			return rc;
		/* old labels fault their page in again if read */
		(void)madvise(old->base, old->length, MADV_DONTNEED);
		r->release_from = ggmlviz__page_floor(r->pos);
		r->release_at = r->release_from + GGMLVIZ__RELEASE_STEP;
	}
	r->size = size;
	return 0;
}

void ggmlviz__window_forget_segment(struct ggmlviz_reader *r, uint32_t n)
{
	for (struct ggmlviz__window *w = r->window; w; w = w->older) {
		if (w->segment != n || w->forgotten)
			continue;
		/* the same addresses, anonymous: the file's mapping, and its hold on the file, gone */
		if (mmap(w->base, w->length, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
			 MAP_NORESERVE, -1, 0) != MAP_FAILED)
			w->forgotten = 1;
	}
}

void ggmlviz__window_release(struct ggmlviz_reader *r, uint64_t keep_from)
{
	uint64_t end = ggmlviz__page_floor(keep_from);

	if (end > 0)
		(void)madvise(r->window->base, (size_t)end, MADV_DONTNEED);
	r->release_from = end;
	r->release_at = r->pos + GGMLVIZ__RELEASE_STEP;
}

void ggmlviz__window_release_all(struct ggmlviz_reader *r)
{
	if (!r->window)
		return;
	(void)madvise(r->window->base, (size_t)ggmlviz__page_floor(r->size), MADV_DONTNEED);
	r->release_from = 0;
	r->release_at = GGMLVIZ__RELEASE_STEP;
}

void ggmlviz__window_unmap_all(struct ggmlviz_reader *r)
{
	struct ggmlviz__window *w, *older;

	for (w = r->window; w; w = older) {
		older = w->older;
		ggmlviz__guard_remove(w->base);
		munmap(w->base, w->length);
		free(w);
	}
	r->window = NULL;
}
