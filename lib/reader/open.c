/*
 * Opening a trace: from the caller's memory, from a file mapped in windows
 * (window.c), or from a pipe copied to a file (spool.c); refreshing a file still being
 * written; rewinding; closing.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ggmlviz/reader.h>

#include "format/record.h"
#include "chain.h"
#include "names.h"
#include "pairing-open.h"
#include "reader.h"
#include "spool.h"
#include "window.h"

/* Refuses anything but a version-1 GGMLVIZ header. */
static int check_header(const uint8_t *data, uint64_t size)
{
	if (size < GGMLVIZ_HEADER_SIZE || memcmp(data, GGMLVIZ_MAGIC, 8) != 0)
		return GGMLVIZ_EMAGIC;
	if (get_u32(data + 8) != GGMLVIZ_FORMAT_VERSION)
		return GGMLVIZ_EVERSION;
	return 0;
}

static struct ggmlviz_reader *reader_new(void)
{
	struct ggmlviz_reader *r = calloc(1, sizeof *r);

	if (!r)
		return NULL;
	r->fd = -1;
	r->pos = GGMLVIZ_HEADER_SIZE;
	r->release_at = UINT64_MAX;
	if (ggmlviz_pairing_new(&r->pairing) < 0) {
		free(r);
		return NULL;
	}
	return r;
}

void ggmlviz_reader_close(struct ggmlviz_reader *r)
{
	if (!r)
		return;
	ggmlviz__window_unmap_all(r);
	if (r->fd >= 0)
		close(r->fd);
	ggmlviz__chain_free(r);
	ggmlviz__names_release(r);
	ggmlviz_pairing_free(r->pairing);
	free(r->pack);
	free(r);
}

/* Checks the header of data and hands out the reader, or frees it. */
static int reader_start(struct ggmlviz_reader *r, const uint8_t *data, uint64_t size,
			struct ggmlviz_reader **out)
{
	int rc = check_header(data, size);

	if (rc < 0) {
		ggmlviz_reader_close(r);
		return rc;
	}
	r->data = data;
	r->size = size;
	*out = r;
	return 0;
}

int ggmlviz_reader_open_memory(const void *data, size_t size, struct ggmlviz_reader **out)
{
	struct ggmlviz_reader *r;

	if (out)
		*out = NULL;
	if (!data || !out)
		return -EINVAL;
	r = reader_new();
	if (!r)
		return -ENOMEM;
	return reader_start(r, data, size, out);
}

/* Maps a regular file; a stream is copied to an unnamed file first (spool.h). */
static int open_fd(struct ggmlviz_reader *r)
{
	struct stat st;

	if (fstat(r->fd, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (!S_ISREG(st.st_mode)) {
		int copy = ggmlviz__spool(r->fd, &r->size);

		close(r->fd);
		r->fd = copy;
		if (copy < 0)
			return copy;
		r->spooled = 1;
		st.st_size = (off_t)r->size;
	}
	r->size = (uint64_t)st.st_size;
	if (r->size < GGMLVIZ_HEADER_SIZE)
		return GGMLVIZ_EMAGIC; /* an empty file cannot be mapped, and is no trace */
	r->release_at = GGMLVIZ__RELEASE_STEP;
	return ggmlviz__window_map_for(r, r->size);
}

int ggmlviz_reader_open(const char *path, struct ggmlviz_reader **out)
{
	struct ggmlviz_reader *r;
	int rc;

	if (out)
		*out = NULL;
	if (!path || !out)
		return -EINVAL;
	r = reader_new();
	if (!r)
		return -ENOMEM;
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	rc = r->fd < 0 ? -errno : open_fd(r);
	if (rc == 0 && check_header(r->data, r->size) == 0)
		rc = ggmlviz__chain_open(r, path); /* a rotated trace: from its oldest segment */
	if (rc < 0) {
		ggmlviz_reader_close(r);
		return rc;
	}
	return reader_start(r, r->data, r->size, out);
}

int ggmlviz_reader_open_fd(int fd, const char *name, struct ggmlviz_reader **out)
{
	struct ggmlviz_reader *r;
	int rc;

	if (out)
		*out = NULL;
	if (!out)
		return -EINVAL;
	r = reader_new();
	if (!r)
		return -ENOMEM;
	r->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	rc = r->fd < 0 ? -errno : open_fd(r);
	if (rc == 0 && name && check_header(r->data, r->size) == 0)
		rc = ggmlviz__chain_open(r, name);
	if (rc < 0) {
		ggmlviz_reader_close(r);
		return rc;
	}
	return reader_start(r, r->data, r->size, out);
}

int ggmlviz_reader_refresh(struct ggmlviz_reader *r)
{
	struct stat st;
	uint64_t size, grown;
	int rc;

	if (r->fd < 0 || r->spooled)
		return -ENOTSUP; /* memory, or a stream read to its end */
	if (fstat(r->fd, &st) < 0)
		return -errno;
	size = (uint64_t)st.st_size;
	if (size < r->size || atomic_load(&r->shrunk)) {
		/* the pages past the new end are gone: touching them would fault */
		r->error = -ESTALE;
		return -ESTALE;
	}
	grown = size - r->size;
	rc = ggmlviz__window_grow(r, size);
	if (rc < 0)
		return rc;
	return grown > INT_MAX ? INT_MAX : (int)grown;
}

void ggmlviz_reader_rewind(struct ggmlviz_reader *r)
{
	if (r->chain && ggmlviz__chain_rewind(r) < 0)
		r->error = -EIO; /* the oldest segment could not be read again */
	r->pos = GGMLVIZ_HEADER_SIZE;
	r->unpacking = 0;
	if (r->error == GGMLVIZ_ECORRUPT)
		r->error = 0; /* it is found again at the same place */
	ggmlviz__window_release_all(r); /* reading starts over: what was read goes back */
	ggmlviz__pairing_reset(r->pairing);
}

uint64_t ggmlviz_reader_offset(const struct ggmlviz_reader *r)
{
	return r->base + r->pos;
}

uint64_t ggmlviz_reader_size(const struct ggmlviz_reader *r)
{
	return r->base + r->size;
}
