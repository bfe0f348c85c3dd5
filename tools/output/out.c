/*
 * Buffered output to a file or stdout: one write(2) per 256 KiB, a count
 * of the bytes written (export warns about sizes), and the first error
 * kept and reported once, at the end.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "base/opts.h"
#include "output/output.h"

#define OUT_BUFFER (256u << 10)

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

/* Whether path is a link of /proc: a descriptor's (/dev/fd/N, or /dev/stdout's hop). */
static bool proc_link(const char *path)
{
	struct statfs fs;
	int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	bool yes;

	if (fd < 0)
		return false;
	yes = fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
	close(fd);
	return yes;
}

/* Whether path is, or links to, one of the program's descriptors (/dev/stdout, /dev/fd/N). */
static bool a_descriptor(const char *path)
{
	char target[PATH_MAX];
	ssize_t n;

	if (proc_link(path))
		return true;
	n = readlink(path, target, sizeof target - 1); /* /dev/stdout -> /proc/self/fd/1 */
	if (n <= 0)
		return false;
	target[n] = '\0';
	return target[0] == '/' && proc_link(target);
}

/*
 * A device or a FIFO, also through a link, and whatever a descriptor of the
 * program holds (/dev/stdout redirected to a file): written as it is, never
 * replaced.
 */
static bool is_special(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0 || S_ISDIR(st.st_mode))
		return false;
	return !S_ISREG(st.st_mode) || a_descriptor(path);
}

/* A new file next to path, renamed to it by cli_out_close(); -1 with errno on failure. */
static int create_beside(struct cli_out *o, const char *path)
{
	size_t cap = strlen(path) + 48;
	int fd = -1;

	o->tmp = malloc(cap);
	if (!o->tmp)
		return -1;
	for (unsigned n = 0; fd < 0 && n < 100; n++) {
		snprintf(o->tmp, cap, "%s.%ld-%u.tmp", path, (long)getpid(), n);
		fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		free(o->tmp);
		o->tmp = NULL;
		errno = e;
	}
	return fd;
}

int cli_out_open(struct cli_out *o, const char *cmd, const char *path)
{
	memset(o, 0, sizeof *o);
	o->fd = STDOUT_FILENO;
	o->path = "standard output";
	if (path && strcmp(path, "-")) {
		o->fd = is_special(path) ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
					 : create_beside(o, path);
		o->owned = true;
		o->path = path;
	}
	o->buf = o->fd >= 0 ? malloc(OUT_BUFFER) : NULL;
	if (!o->buf) {
		cli_error("%s: %s: %s", cmd, o->path, strerror(o->fd < 0 ? errno : ENOMEM));
		if (o->owned && o->fd >= 0)
			close(o->fd);
		if (o->tmp)
			unlink(o->tmp);
		free(o->tmp);
		return -1;
	}
	o->cap = OUT_BUFFER;
	return 0;
}

void cli_out_memory(struct cli_out *o)
{
	memset(o, 0, sizeof *o);
	o->fd = -1;
	o->path = "memory";
}

/* A memory output grows instead of writing; a failure drops the bytes. */
static void grow(struct cli_out *o)
{
	size_t cap = o->cap ? o->cap * 2 : 256;
	char *buf = o->error ? NULL : realloc(o->buf, cap);

	if (!buf) {
		o->error = -ENOMEM;
		o->len = 0;
		return;
	}
	o->buf = buf;
	o->cap = cap;
}

static void flush(struct cli_out *o)
{
	size_t done = 0;

	if (o->fd < 0) {
		grow(o);
		return;
	}

	while (done < o->len && !o->error) {
		ssize_t n = write(o->fd, o->buf + done, o->len - done);
		if (n < 0 && errno != EINTR)
			o->error = -errno;
		else if (n > 0)
			done += (size_t)n;
	}
	o->len = 0;
}

void cli_out_write(struct cli_out *o, const void *p, size_t n)
{
	const char *s = p;

	o->bytes += n;
	while (n) {
		size_t room, k;

		if (o->len == o->cap)
			flush(o);
		if (o->len == o->cap)
			return; /* a memory output that could not grow */
		room = o->cap - o->len;
		k = n < room ? n : room;
		memcpy(o->buf + o->len, s, k);
		o->len += k;
		s += k;
		n -= k;
	}
}

void cli_out_str(struct cli_out *o, const char *s)
{
	cli_out_write(o, s, strlen(s));
}

void cli_out_not_shown(struct cli_out *o, size_t n)
{
	if (n)
		cli_out_printf(o, "(%zu more group%s not shown: --top)\n", n, n == 1 ? "" : "s");
}

void cli_out_u64(struct cli_out *o, uint64_t v)
{
	char digits[20];
	size_t n = sizeof digits;

	do
		digits[--n] = (char)('0' + v % 10);
	while (v /= 10);
	cli_out_write(o, digits + n, sizeof digits - n);
}

void cli_out_i64(struct cli_out *o, int64_t v)
{
	if (v < 0)
		cli_out_char(o, '-');
	cli_out_u64(o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
}

void cli_out_hex(struct cli_out *o, uint64_t v)
{
	char digits[18];
	size_t n = sizeof digits;

	do
		digits[--n] = "0123456789abcdef"[v & 15];
	while (v >>= 4);
	digits[--n] = 'x';
	digits[--n] = '0';
	cli_out_write(o, digits + n, sizeof digits - n);
}

void cli_out_printf(struct cli_out *o, const char *fmt, ...)
{
	char small[512], *big = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof small && (big = malloc((size_t)n + 1))) {
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (big || (size_t)n < sizeof small)
		cli_out_write(o, big ? big : small, (size_t)n);
	else
		o->error = o->error ? o->error : -ENOMEM;
	free(big);
}

int cli_out_flush(struct cli_out *o)
{
	if (o->fd >= 0)
		flush(o);
	return o->error;
}

int cli_out_close(struct cli_out *o, const char *cmd)
{
	if (o->fd >= 0)
		flush(o);
	if (o->owned && close(o->fd) < 0 && !o->error)
		o->error = -errno;
	free(o->buf);
	o->buf = NULL;
	if (o->tmp) {
		/* the whole output takes the name at once; after an error the old file stays */
		if (!o->error && rename(o->tmp, o->path) < 0)
			o->error = -errno;
		if (o->error)
			unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (!o->error)
		return CLI_EXIT_OK;
	cli_error("%s: writing %s: %s", cmd, o->path, strerror(-o->error));
	return CLI_EXIT_DAMAGED;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}
