/*
 * The writer's file (see output.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "format/codec.h"
#include "log.h"
#include "output.h"

#ifndef IOV_MAX
#define IOV_MAX 1024
#endif

/* writev() until everything is written, across short writes and IOV_MAX. */
static int write_all(int fd, struct iovec *iov, size_t n)
{
	while (n > 0) {
		ssize_t k = writev(fd, iov, n > IOV_MAX ? IOV_MAX : (int)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
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
	uint64_t total = 0;
	int rc;

	for (size_t i = 0; i < n; i++)
		total += iov[i].iov_len;
	rc = write_all(w->fd, iov, n);
	if (rc < 0) {
		/* Cut what this write left half-done: the file ends at a whole record. */
		if (ftruncate(w->fd, (off_t)w->file_size) < 0)
			ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "cannot cut the trace back to "
				     "its last whole record: %s", strerror(errno));
		return rc;
	}
	w->file_size += total;
	atomic_store_explicit(&w->bytes, w->file_size, memory_order_relaxed);
	return 0;
}

static const char *program_name(void)
{
#if HAVE_DECL_PROGRAM_INVOCATION_SHORT_NAME
	return program_invocation_short_name;
#else
	return "";
#endif
}

int ggmlviz__output_preamble(struct ggmlviz__writer *w, uint32_t tid)
{
	uint8_t buf[GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + 256];
	const char *prog = program_name();
	uint32_t len = (uint32_t)strnlen(prog, 256);
	struct iovec iov;

	ggmlviz_encode_header(buf, sizeof buf);
	iov.iov_base = buf;
	iov.iov_len = GGMLVIZ_HEADER_SIZE +
		      ggmlviz__encode_meta(buf + GGMLVIZ_HEADER_SIZE, sizeof buf - GGMLVIZ_HEADER_SIZE,
					   ggmlviz__now_ns(), tid,
					   &(struct ggmlviz__meta){ GGMLVIZ_META_PROCESS,
								    (uint64_t)getpid(), 0, 0 },
					   prog, len);
	atomic_store_explicit(&w->meta_written, 1, memory_order_relaxed);
	return ggmlviz__output_append(w, &iov, 1);
}
