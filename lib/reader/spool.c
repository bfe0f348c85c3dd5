/*
 * Copying a stream to an unnamed file (see spool.h).
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
#include <unistd.h>

#include <ggmlviz/format.h>

#include "spool.h"

#define CHUNK (1u << 20)

/* A file that has no name: O_TMPFILE, or a name made and removed at once. */
static int unnamed_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
#ifdef O_TMPFILE
	fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
#endif
	if (snprintf(path, sizeof path, "%s/ggmlviz-spool-XXXXXX", dir) >= (int)sizeof path)
		return -ENAMETOOLONG;
	fd = mkostemp(path, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	unlink(path);
	return fd;
}

static int write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Copies in to out; 0 or -errno. Stops after 8 bytes that are not a trace's magic. */
static int copy(int in, int out, char *buf, uint64_t *size)
{
	char head[8];
	size_t have = 0;

	for (;;) {
		ssize_t n = read(in, buf, CHUNK);
		size_t take;
		int rc;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return 0;
		if ((rc = write_all(out, buf, (size_t)n)) < 0)
			return rc;
		*size += (uint64_t)n;
		take = have + (size_t)n < sizeof head ? (size_t)n : sizeof head - have;
		memcpy(head + have, buf, take);
		have += take;
		if (have == sizeof head && take && memcmp(head, GGMLVIZ_MAGIC, 8) != 0)
			return 0; /* not a trace: the reader says so from what was copied */
	}
}

int ggmlviz__spool(int in, uint64_t *size)
{
	char *buf = malloc(CHUNK);
	int out = buf ? unnamed_file() : -ENOMEM;
	int rc;

	*size = 0;
	if (out < 0) {
		free(buf);
		return out;
	}
	rc = copy(in, out, buf, size);
	free(buf);
	if (rc < 0) {
		close(out);
		return rc;
	}
	return out;
}
