/*
 * Opening the trace's path (see internal.h): what each kind of file at
 * the name gets.
 *
 *   nothing, a regular file, or a link to a regular file:
 *       a new file, made beside the name and renamed to it. An existing
 *       trace is never truncated under a reader, and a link is replaced,
 *       its target left alone.
 *   a descriptor's link of /proc (/dev/stdout, /dev/stderr, /dev/fd/N,
 *   /proc/self/fd/N), whatever the descriptor holds:
 *       written as it is: what the shell redirected the program's output
 *       to. A regular file is appended to, never truncated or replaced.
 *   a FIFO (also through a link, or a descriptor's pipe):
 *       written once a reader has it open, waited for up to
 *       GGMLVIZ__FIFO_WAIT_MS; then -ENXIO, never a start that hangs.
 *   a character device (also through a link): written as it is
 *       (/dev/null, a terminal).
 *   anything else is refused, with the reason said: a directory
 *   (-EISDIR), a block device (-EINVAL: a disk is never written over), a
 *   socket (-ENXIO), a link to nothing (-ENOENT), a loop of links
 *   (-ELOOP).
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
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif

/* Links followed before the path counts as a loop: the kernel's own bound (MAXSYMLINKS). */
#define LINKS_MAX 40

/* Whether the link at path lives in /proc: a descriptor's (or another magic) link. */
static int in_proc(const char *path)
{
	struct statfs fs;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC), rc;

	if (fd < 0)
		return 0;
	rc = fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
	close(fd);
	return rc;
}

/* The link at `link` read into buf, made absolute against the link's folder; 0 or -errno. */
static int next_hop(const char *link, char *buf, size_t size)
{
	char target[PATH_MAX];
	ssize_t n = readlink(link, target, sizeof target - 1);
	const char *slash = strrchr(link, '/');
	int len;

	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (target[0] == '/' || !slash)
		len = snprintf(buf, size, "%s", target);
	else
		len = snprintf(buf, size, "%.*s/%s", (int)(slash - link), link, target);
	return len > 0 && (size_t)len < size ? 0 : -ENAMETOOLONG;
}

/* Whether the file at path (links followed) is one of the kernel's own, in /proc or /sys. */
static int kernel_file(const char *path)
{
	struct statfs fs;

	return statfs(path, &fs) == 0 &&
	       (fs.f_type == PROC_SUPER_MAGIC || fs.f_type == SYSFS_MAGIC);
}

/*
 * Follows the links from path: 1 when one of them is a link of /proc (the
 * file is a descriptor's: written as it is) or they lead to a file of the
 * kernel's (opened as it is, never replaced), 0 otherwise, -ELOOP.
 */
static int through_proc(const char *path)
{
	char a[PATH_MAX], b[PATH_MAX], *cur = a, *next = b, *swap;
	struct stat st;

	if (snprintf(a, sizeof a, "%s", path) >= (int)sizeof a)
		return 0;
	for (int hops = 0; hops <= LINKS_MAX; hops++) {
		if (lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode))
			return kernel_file(cur);
		if (in_proc(cur))
			return 1;
		if (next_hop(cur, next, PATH_MAX) < 0)
			return 0;
		swap = cur, cur = next, next = swap;
	}
	return -ELOOP;
}

/*
 * Opens a FIFO for writing once a reader has it: open(2) would block until
 * one comes, with the session's lock held, so it is tried without
 * blocking every 10 ms; the fd (blocking again), or -errno.
 */
static int open_fifo(const char *path, const struct ggmlviz__log_sink *sink)
{
	uint64_t until = ggmlviz__monotonic_ns() + (uint64_t)GGMLVIZ__FIFO_WAIT_MS * 1000000u;
	int fd;

	for (;;) {
		fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd >= 0 || errno != ENXIO || ggmlviz__monotonic_ns() >= until)
			break;
		nanosleep(&(struct timespec){ 0, 10000000 }, NULL);
	}
	if (fd < 0) {
		int rc = -errno;

		if (rc == -ENXIO)
			ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "%s is a FIFO (or pipe) that no process "
				     "had open for reading within %u ms", path, GGMLVIZ__FIFO_WAIT_MS);
		return rc;
	}
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* A file of a name no one else uses, next to path; the caller frees the name. */
static int create_beside(const char *path, char **name)
{
	static _Atomic unsigned counter;
	size_t cap = strlen(path) + 64;
	int fd = -1;

	*name = ggmlviz__pages_alloc(cap);
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
		ggmlviz__pages_free(*name);
		*name = NULL;
		return rc;
	}
	return fd;
}

/* A new file at path, made beside it and renamed to it; the fd, or -errno. */
static int open_new(const char *path)
{
	char *tmp;
	int fd = create_beside(path, &tmp), rc;

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
	ggmlviz__pages_free(tmp);
	return fd;
}

/* What is at the end of the link at path (st: where it leads), opened or refused. */
static int open_target(const char *path, const struct stat *st, int proc,
		       const struct ggmlviz__log_sink *sink)
{
	if (S_ISFIFO(st->st_mode))
		return open_fifo(path, sink);
	if (S_ISDIR(st->st_mode))
		return -EISDIR;
	if (S_ISBLK(st->st_mode)) {
		ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "%s is a block device: a trace is never "
			     "written over a disk", path);
		return -EINVAL;
	}
	if (S_ISSOCK(st->st_mode)) {
		ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "%s is a socket, which open(2) cannot open",
			     path);
		return -ENXIO;
	}
	if (S_ISCHR(st->st_mode) || (proc && S_ISREG(st->st_mode))) {
		int fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	return open_new(path); /* a link to a regular file: the link is replaced */
}

/* A link at path: where it leads decides; a link to nothing or a loop is refused. */
static int open_link(const char *path, const struct ggmlviz__log_sink *sink)
{
	struct stat st;
	int proc = through_proc(path);

	if (proc == -ELOOP || (stat(path, &st) < 0 && errno == ELOOP)) {
		ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "%s is a loop of symbolic links", path);
		return -ELOOP;
	}
	if (stat(path, &st) < 0) {
		int rc = -errno;

		if (rc == -ENOENT)
			ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "%s is a symbolic link to nothing (a "
				     "dangling link): it is neither followed nor replaced", path);
		return rc;
	}
	return open_target(path, &st, proc, sink);
}

int ggmlviz__output_open(const char *path, const struct ggmlviz__log_sink *sink)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? open_new(path) : -errno;
	if (S_ISREG(st.st_mode))
		return open_new(path);
	if (S_ISLNK(st.st_mode))
		return open_link(path, sink);
	return open_target(path, &st, 0, sink);
}

int ggmlviz__output_beside(const char *path, char **name)
{
	return create_beside(path, name);
}

char *ggmlviz__output_absolute(const char *path)
{
	char cwd[4096], *abs;
	size_t size;

	if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
		return ggmlviz__pages_copy(path);
	size = strlen(cwd) + strlen(path) + 2;
	abs = ggmlviz__pages_alloc(size);
	if (abs)
		snprintf(abs, size, "%s/%s", cwd, path);
	return abs;
}
