/*
 * The tracer's calls to Linux (see compat.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_LINUX_MEMBARRIER_H
#include <linux/membarrier.h>
#endif
#ifdef HAVE_SYS_PRCTL_H
#include <sys/prctl.h>
#endif

#include "tracer/base/compat.h"

uint32_t ggmlviz__os_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

void ggmlviz__os_futex_wake(_Atomic uint32_t *word, int n)
{
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

void ggmlviz__os_futex_wait(_Atomic uint32_t *word, uint32_t expected, uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, &ts, NULL, 0);
}

#if defined(HAVE_LINUX_MEMBARRIER_H) && defined(SYS_membarrier)
static int membarrier(int cmd)
{
	return (int)syscall(SYS_membarrier, cmd, 0, 0);
}

int ggmlviz__os_membarrier_register(void)
{
	return membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED) == 0 ? 0 : -1;
}

void ggmlviz__os_membarrier(void)
{
	membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED);
}
#else
int ggmlviz__os_membarrier_register(void)
{
	return -1;
}

void ggmlviz__os_membarrier(void)
{
}
#endif

uint64_t ggmlviz__os_cache_bytes(void)
{
	long n = -1;

#ifdef _SC_LEVEL3_CACHE_SIZE
	n = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
#ifdef _SC_LEVEL2_CACHE_SIZE
	if (n <= 0)
		n = sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
	return n > 0 ? (uint64_t)n : 32u << 20;
}

uint64_t ggmlviz__os_page_size(void)
{
	static _Atomic uint64_t page;
	uint64_t p = atomic_load_explicit(&page, memory_order_relaxed);
	long n;

	if (p)
		return p;
	n = sysconf(_SC_PAGESIZE);
	p = n > 0 ? (uint64_t)n : 4096u;
	atomic_store_explicit(&page, p, memory_order_relaxed);
	return p;
}

void ggmlviz__os_thread_name(char name[16])
{
	memset(name, 0, 16);
#if defined(HAVE_SYS_PRCTL_H) && defined(PR_GET_NAME)
	if (prctl(PR_GET_NAME, name, 0, 0, 0) < 0)
		name[0] = '\0';
	name[15] = '\0';
#endif
}

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

uint32_t ggmlviz__os_thread_comm(uint32_t tid, const char fallback[16], char name[16])
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


const char *ggmlviz__os_program_name(void)
{
#if HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME
	return program_invocation_short_name;
#else
	return "";
#endif
}

const char *ggmlviz__os_nvidia_device(void)
{
	static const char *const nodes[] = { "/dev/nvidiactl", "/dev/dxg" };

	for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
		if (access(nodes[i], F_OK) == 0)
			return nodes[i];
	return NULL;
}
