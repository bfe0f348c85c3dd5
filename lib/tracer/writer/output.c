/*
 * The writer's file (see internal.h): every write to it, and whether the
 * last one failed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* writev() until everything is written, across short writes and IOV_MAX; *done counts. */
static int write_all(int fd, struct iovec *iov, size_t n, uint64_t *done)
{
	*done = 0;
	while (n > 0) {
		ssize_t k = writev(fd, iov, n > IOV_MAX ? IOV_MAX : (int)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		*done += (uint64_t)k;
		for (; n > 0 && (size_t)k >= iov->iov_len; iov++, n--)
			k -= (ssize_t)iov->iov_len;
		if (n > 0) {
			iov->iov_base = (uint8_t *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

int ggmlviz__output_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n)
{
	uint64_t total = 0, done;
	int rc;

	for (size_t i = 0; i < n; i++)
		total += iov[i].iov_len;
	rc = write_all(w->fd, iov, n, &done);
	if (rc < 0) {
		/* Where the file system stopped it (salvage.c keeps below it), and the
		 * file cut back to its last whole record. */
		w->room_end = w->file_size + done;
		if (done > 0 && ftruncate(w->fd, (off_t)w->file_size) < 0)
			ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "cannot cut the trace back to "
				     "its last whole record: %s", strerror(errno));
		return rc;
	}
	w->file_size += total;
	atomic_store_explicit(&w->bytes, w->file_size, memory_order_relaxed);
	return 0;
}

/*
 * A device or a FIFO is written as it is, also through a link (/dev/stdout);
 * a regular file or a link to one gets a new file instead (0).
 */
static int open_special(const char *path, int *fd)
{
	struct stat st;
	int follow = 0;

	if (lstat(path, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	if (S_ISLNK(st.st_mode)) {
		if (stat(path, &st) < 0 || S_ISREG(st.st_mode))
			return 0; /* the link is replaced, its target left alone */
		follow = 1;
	}
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	*fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW));
	return *fd < 0 ? -errno : 1;
}

/* A file of a name no one else uses, next to path; the caller frees the name. */
static int create_beside(const char *path, char **name)
{
	static _Atomic unsigned counter;
	size_t cap = strlen(path) + 64;
	int fd = -1;

	*name = malloc(cap);
	if (!*name)
		return -ENOMEM;
	for (int tries = 0; fd < 0 && tries < 100; tries++) {
		snprintf(*name, cap, "%s.%ld-%u-%llx.tmp", path, (long)getpid(),
			 atomic_fetch_add(&counter, 1), (unsigned long long)ggmlviz__monotonic_ns());
		fd = open(*name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int rc = -errno;
		free(*name);
		*name = NULL;
		return rc;
	}
	return fd;
}

int ggmlviz__output_open(const char *path)
{
	char *tmp;
	int fd = -1, rc = open_special(path, &fd);

	if (rc != 0)
		return rc < 0 ? rc : fd;
	fd = create_beside(path, &tmp);
	if (fd < 0)
		return fd;
	/* The new file takes the name: a reader of an old trace keeps reading it whole,
	 * and a link at the name is replaced, never followed. */
	rc = rename(tmp, path) < 0 ? -errno : 0;
	if (rc < 0) {
		unlink(tmp);
		close(fd);
		fd = rc;
	}
	free(tmp);
	return fd;
}

/* A write failed: its events are dropped, and the next pass tries again. */
void ggmlviz__output_failed(struct ggmlviz__writer *w, int rc)
{
	atomic_store(&w->error, rc);
	if (w->failing++)
		return; /* said once per run of failures */
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "writing the trace failed (%s): what cannot be "
		     "written is counted as dropped, and writing is tried again at each pass",
		     strerror(-rc));
}

void ggmlviz__output_works(struct ggmlviz__writer *w)
{
	if (!w->failing)
		return;
	w->failing = 0;
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_INFO, "writing the trace works again");
}
