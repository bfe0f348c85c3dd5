/*
 * One tracer per process (see session.h).
 *
 * libggmlviz is a static archive, so two shared objects of one process that
 * each linked it hold two copies of the tracer: loaded together, their
 * public functions interpose on each other while their state stays apart;
 * loaded apart (dlopen with RTLD_LOCAL, a Python extension), both would
 * write the same file. The copies cannot find each other through symbols,
 * so the claim is made in the kernel: the copy that starts first binds an
 * abstract Unix socket named after the process (pid namespace and pid),
 * which no other copy can bind while it lives, and the kernel releases it
 * when the process ends. A second socket carries the claiming copy's
 * address, so that a refused copy can name the object it is in: it reads
 * the name from /proc/net/unix and asks dladdr() which object holds it.
 *
 * Where sockets are not allowed (a sandbox), nothing is claimed and every
 * copy may start: the claim guards against a mistake, it is not a lock.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "tracer/session/session.h"

static int claim_fd = -1, name_fd = -1; /* held for the process's life */

/* "ggmlviz/<pid namespace>/<pid>", the claim's name (not NUL-terminated in the socket). */
static size_t claim_name(char *buf, size_t size)
{
	char ns[64] = "";
	ssize_t n = readlink("/proc/self/ns/pid", ns, sizeof ns - 1);
	int len;

	ns[n > 0 ? n : 0] = '\0';
	len = snprintf(buf, size, "ggmlviz/%s/%ld", ns, (long)getpid());
	return len > 0 && (size_t)len < size ? (size_t)len : 0;
}

/* Binds a new datagram socket to the abstract name; the fd, or -errno. */
static int bind_abstract(const char *name, size_t len)
{
	struct sockaddr_un sa;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	memset(&sa, 0, sizeof sa);
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, name, len); /* sun_path[0] = 0: the abstract namespace */
	if (bind(fd, (struct sockaddr *)&sa,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

/* The object (shared object or program) that holds address p, or "this program". */
static const char *object_of(const void *p)
{
	Dl_info info;

	if (dladdr(p, &info) && info.dli_fname && info.dli_fname[0])
		return info.dli_fname;
	return "this program";
}

/* The address the claiming copy left in /proc/net/unix, or NULL. */
static const void *claimer(const char *name)
{
	char line[512], key[160];
	FILE *f = fopen("/proc/self/net/unix", "re");
	unsigned long long addr = 0;
	int found = 0;

	if (!f)
		return NULL;
	snprintf(key, sizeof key, "@%s/at=", name);
	while (!found && fgets(line, sizeof line, f)) {
		const char *at = strstr(line, key);
		found = at && sscanf(at + strlen(key), "%llx", &addr) == 1;
	}
	fclose(f);
	return found ? (const void *)(uintptr_t)addr : NULL;
}

int ggmlviz__claim(const struct ggmlviz__log_sink *sink)
{
	char name[128], at[160];
	size_t len = claim_name(name, sizeof name);
	const void *self = &claim_fd; /* an address in this copy */
	const void *other;
	int fd;

	if (claim_fd >= 0 || len == 0)
		return 0;
	fd = bind_abstract(name, len);
	if (fd >= 0) {
		claim_fd = fd;
		len = (size_t)snprintf(at, sizeof at, "%s/at=%llx", name,
				       (unsigned long long)(uintptr_t)self);
		name_fd = bind_abstract(at, len);
		return 0;
	}
	if (fd != -EADDRINUSE)
		return 0; /* no socket here: nothing can be claimed, nothing is refused */
	other = claimer(name);
	ggmlviz__log(sink, GGMLVIZ_LOG_WARN,
		     "another copy of libggmlviz is tracing this process, in %s; this copy, in %s, "
		     "does not start (link libggmlviz into one object of the process: two copies "
		     "would write the same file and interpose on each other's functions)",
		     other ? object_of(other) : "an object that does not say", object_of(self));
	return -EBUSY;
}

void ggmlviz__claim_forget(void)
{
	if (claim_fd >= 0)
		close(claim_fd);
	if (name_fd >= 0)
		close(name_fd);
	claim_fd = name_fd = -1;
}
