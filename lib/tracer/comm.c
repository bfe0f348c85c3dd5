/*
 * A thread's name from /proc (see comm.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"

/* "/proc/self/task/TID/comm", without stdio: a crash handler's pass reads it too. */
static void comm_path(char path[64], uint32_t tid)
{
	static const char head[] = "/proc/self/task/", tail[] = "/comm";
	char digits[12];
	size_t n = 0, k = 0;

	do
		digits[k++] = (char)('0' + tid % 10);
	while ((tid /= 10) != 0);
	memcpy(path, head, sizeof head - 1);
	n = sizeof head - 1;
	while (k > 0)
		path[n++] = digits[--k];
	memcpy(path + n, tail, sizeof tail); /* with its NUL */
}

uint32_t ggmlviz__thread_comm(uint32_t tid, const char fallback[16], char name[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	comm_path(path, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, name, 15);
		close(fd);
	}
	if (n <= 0) {
		memcpy(name, fallback, 16);
		return (uint32_t)strnlen(name, 15);
	}
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		n--;
	return (uint32_t)n;
}

