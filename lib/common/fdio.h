/* fdio.h - whole reads and writes on file descriptors, internal to the
 * library: retried through EINTR and short counts, with a pipe's writes
 * optionally by reference.  Nothing here prints or exits; failures return -1
 * with errno set. */
#ifndef APSP_FDIO_H
#define APSP_FDIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Up to len bytes from fd into buf: fewer only at the end of the input.
 * at >= 0: from that offset of a file, leaving its position alone (pread);
 * else from the current position.  -1 (errno). */
ssize_t fdio_read_at(int fd, void *buf, size_t len, int64_t at);
/* fdio_read_at() from the current position. */
ssize_t fdio_read_full(int fd, void *buf, size_t len);
/* Write every byte of iov[0..cnt-1].  by_ref: into the pipe fd by
 * reference (vmsplice), so the reader copies out of the writer's pages and
 * the writer copies nothing.  Only for memory nothing writes again: the pipe
 * holds the pages until the reader has them, after the writer has moved on
 * or unmapped them.  0; 1 when by_ref and fd takes no splice (not a pipe:
 * nothing was written); -1 (errno).  iov is consumed. */
int fdio_put_iov(int fd, struct iovec *iov, int cnt, int by_ref);
int fdio_writev_full(int fd, struct iovec *iov, int cnt);
int fdio_write_full(int fd, const void *buf, size_t len);

#endif
