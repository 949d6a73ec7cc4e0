/* fdio.c - whole reads and writes on file descriptors, retried through
 * signals and short counts, and a pipe's writes by reference (vmsplice).
 * See fdio.h. */
#include "fdio.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

/* Up to len bytes from fd into buf: fewer only at the end of the input.
 * at >= 0: from that offset of a file, leaving its position alone (pread);
 * else from the current position.  -1 (errno). */
ssize_t fdio_read_at(int fd, void *buf, size_t len, int64_t at)
{
	unsigned char *p = buf;
	size_t got = 0;

	while (got < len) {
		size_t want = len - got > (1u << 30) ? (1u << 30) : len - got;
		ssize_t r = at < 0 ? read(fd, p + got, want)
		                   : pread(fd, p + got, want, (off_t)(at + (int64_t)got));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

ssize_t fdio_read_full(int fd, void *buf, size_t len)
{
	return fdio_read_at(fd, buf, len, -1);
}

/* Write every byte of iov[0..cnt-1].  by_ref: into the pipe fd by
 * reference (vmsplice), so the reader copies out of the writer's pages and
 * the writer copies nothing.  Only for memory nothing writes again: the pipe
 * holds the pages until the reader has them, after the writer has moved on
 * or unmapped them.  0; 1 when by_ref and fd takes no splice (not a pipe:
 * nothing was written); -1 (errno). */
int fdio_put_iov(int fd, struct iovec *iov, int cnt, int by_ref)
{
	int any = 0;
#ifndef SPLICE_F_GIFT
	if (by_ref)
		return 1;
#endif
	while (cnt > 0) {
		int k = cnt > 64 ? 64 : cnt;
#ifdef SPLICE_F_GIFT
		ssize_t r = by_ref ? vmsplice(fd, iov, (unsigned long)k, 0) : writev(fd, iov, k);
#else
		ssize_t r = writev(fd, iov, k);
#endif
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return by_ref && !any && (errno == EBADF || errno == EINVAL) ? 1 : -1;
		}
		any = 1;
		size_t done = (size_t)r;
		while (cnt > 0 && done >= iov->iov_len) {
			done -= iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt > 0) {
			iov->iov_base = (char *)iov->iov_base + done;
			iov->iov_len -= done;
		}
		while (cnt > 0 && iov->iov_len == 0) {
			iov++;
			cnt--;
		}
	}
	return 0;
}

int fdio_writev_full(int fd, struct iovec *iov, int cnt)
{
	return fdio_put_iov(fd, iov, cnt, 0);
}

int fdio_write_full(int fd, const void *buf, size_t len)
{
	struct iovec iov = {(void *)buf, len};
	return len ? fdio_writev_full(fd, &iov, 1) : 0;
}
