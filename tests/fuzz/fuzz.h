/* fuzz.h - what the fuzz targets share: a memory cap on the library's
 * allocations, inputs as file descriptors, and checks on error messages.
 *
 * The targets are linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=strdup, so every allocation the library makes goes through the
 * wrappers below: a request above FUZZ_ALLOC_MAX fails as a real out-of-
 * memory would.  A hostile size therefore exercises the library's refusal
 * and out-of-memory paths instead of exhausting the fuzzer's memory. */
#ifndef APSP_FUZZ_H
#define APSP_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "stream.h"

#ifndef FUZZ_ALLOC_MAX
#define FUZZ_ALLOC_MAX ((size_t)32 << 20)
#endif

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t k);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);

void *__wrap_malloc(size_t n)
{
	return n > FUZZ_ALLOC_MAX ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t k)
{
	return k && n > FUZZ_ALLOC_MAX / k ? NULL : __real_calloc(n, k);
}

void *__wrap_realloc(void *p, size_t n)
{
	return n > FUZZ_ALLOC_MAX ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
	return __real_strdup(s);
}

/* The input as a file descriptor at offset 0 (the stream reader reads fds). */
static inline int fuzz_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz", 0);
	if (fd < 0) {
		perror("memfd_create");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			perror("write");
			abort();
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

/* A failure must say why, in one printable line. */
static inline void fuzz_check_message(const char *what, const st_error *err)
{
	const unsigned char *p = (const unsigned char *)err->msg;
	if (!*p) {
		fprintf(stderr, "%s failed without a message\n", what);
		abort();
	}
	for (; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			fprintf(stderr, "%s: control byte 0x%02x in the message: %s\n", what, *p, err->msg);
			abort();
		}
	}
}

#define FUZZ_ASSERT(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: assertion failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
