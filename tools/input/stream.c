/*
 * A trace named by a path that cannot be read twice (standard input, a
 * pipe, a process substitution): copied once, at its first opening, to an
 * unnamed file that every later opening reads, so that the commands that
 * read a trace in several passes (the machine's peak, the op times'
 * floors, the timings) see the same bytes each time, as from a file.
 * Its first bytes are read before anything is copied: a stream that does
 * not begin as a trace does (/dev/zero, /dev/urandom, a log) is refused
 * there, and never copied without end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/format.h>

#include "input/input.h"

#define STREAMS_MAX 8 /* the traces of one command line: diff reads two, merge a few */
#define CHUNK (1u << 20)

/* A stream named on the command line, and its copy. */
struct stream {
	char *name;     /* as given */
	int fd;         /* the copy, open for the life of the command */
	char copy[32];  /* /proc/self/fd/N: opens the copy anew, at its start */
};

static struct stream streams[STREAMS_MAX];
static size_t n_streams;

/* A file in TMPDIR whose name is removed as soon as it is made. */
static int unnamed_file(void)
{
	const char *dir = getenv("TMPDIR");
	char path[PATH_MAX];
	int fd = -1;

	if (snprintf(path, sizeof path, "%s/ggmlviz-stream-XXXXXX", dir && *dir ? dir : "/tmp") <
	    (int)sizeof path)
		fd = mkostemp(path, O_CLOEXEC);
	else
		errno = ENAMETOOLONG;
	if (fd >= 0)
		unlink(path);
	return fd < 0 ? -errno : fd;
}

/* Copies in to its end into out; 0 or -errno. */
static int copy_all(int in, int out)
{
	char *buf = malloc(CHUNK);
	int rc = buf ? 0 : -ENOMEM;

	while (rc == 0) {
		ssize_t n = read(in, buf, CHUNK), w = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = n < 0 ? -errno : 1;
			break;
		}
		while (w < n && rc == 0) {
			ssize_t k = write(out, buf + w, (size_t)(n - w));

			if (k < 0 && errno != EINTR)
				rc = -errno;
			w += k > 0 ? k : 0;
		}
	}
	free(buf);
	return rc < 0 ? rc : 0;
}

/* Reads size bytes of in, or up to its end; how many, or -errno. */
static ssize_t read_head(int in, char *buf, size_t size)
{
	size_t have = 0;

	while (have < size) {
		ssize_t n = read(in, buf + have, size - have);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	return (ssize_t)have;
}

/* Copies in to out if it begins with a trace's magic; 0, GGMLVIZ_EMAGIC, or -errno. */
static int copy_trace(int in, int out)
{
	char head[GGMLVIZ_HEADER_SIZE];
	ssize_t n = read_head(in, head, sizeof head), w;

	if (n < 0)
		return (int)n;
	if ((size_t)n < 8 || memcmp(head, GGMLVIZ_MAGIC, 8) != 0)
		return GGMLVIZ_EMAGIC;
	if ((w = write(out, head, (size_t)n)) != n)
		return w < 0 ? -errno : -EIO;
	return copy_all(in, out);
}

/* Copies the stream at name into a new entry; 0, GGMLVIZ_EMAGIC, or -errno. */
static int keep(const char *name, struct stream *s)
{
	int in, rc;

	s->fd = unnamed_file();
	if (s->fd < 0)
		return s->fd;
	in = open(name, O_RDONLY | O_CLOEXEC);
	rc = in < 0 ? -errno : copy_trace(in, s->fd);
	if (in >= 0)
		close(in);
	snprintf(s->copy, sizeof s->copy, "/proc/self/fd/%d", s->fd);
	s->name = rc == 0 ? strdup(name) : NULL;
	if (rc == 0 && !s->name)
		rc = -ENOMEM;
	if (rc == 0 && access(s->copy, R_OK) < 0)
		rc = -errno; /* no /proc: the copy cannot be opened again */
	if (rc < 0)
		close(s->fd);
	return rc;
}

/* Whether path names a stream: something that is neither a file nor a folder. */
static bool is_stream(const char *path)
{
	struct stat st;

	return path && stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

const char *cli_path_source(const char *path, int *err)
{
	size_t i;

	*err = 0;
	if (!is_stream(path))
		return path;
	for (i = 0; i < n_streams; i++)
		if (strcmp(streams[i].name, path) == 0)
			return streams[i].copy;
	if (n_streams == STREAMS_MAX)
		return path; /* read once, by the reader's own copy, as any stream */
	*err = keep(path, &streams[n_streams]);
	return *err < 0 ? NULL : streams[n_streams++].copy;
}

bool cli_path_is_copied(const char *path)
{
	for (size_t i = 0; path && i < n_streams; i++)
		if (strcmp(streams[i].name, path) == 0)
			return true;
	return false;
}
