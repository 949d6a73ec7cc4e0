/* t.h - minimal unit-test reporting: one PASS/FAIL line per check. */
#ifndef APSP_T_H
#define APSP_T_H
#include <stdio.h>
static int t_failed __attribute__((unused));
#define T_CHECK(name, cond) do { \
	if (cond) printf("PASS %s\n", name); \
	else { printf("FAIL %s (%s:%d: %s)\n", name, __FILE__, __LINE__, #cond); t_failed++; } \
} while (0)
#define T_DONE() (fflush(stdout), t_failed ? 1 : 0)

/* T_CHECK with a formatted name; the condition is evaluated first, so the
 * name may show the message it produced. */
static char t_name[1024] __attribute__((unused));
#define T_CHECKF(cond, ...) do { int ok_ = (cond); snprintf(t_name, sizeof t_name, __VA_ARGS__); \
	T_CHECK(t_name, ok_); } while (0)

/* xorshift64: test data from a fixed seed (a test may set t_rng first). */
#include <stdint.h>
static uint64_t t_rng = 0x9e3779b97f4a7c15ull;
static inline uint32_t t_rnd(void)
{
	t_rng ^= t_rng << 13;
	t_rng ^= t_rng >> 7;
	t_rng ^= t_rng << 17;
	return (uint32_t)(t_rng >> 16);
}

/* The textbook Floyd-Warshall on int32 distances (n x n) with their
 * predecessors, to check the engines against. */
static inline void t_fw_i32(int32_t *d, int32_t *p, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j]) {
					d[i * n + j] = d[i * n + k] + d[k * n + j];
					p[i * n + j] = p[k * n + j];
				}
}

/* A reader callback (gio_read_fn's shape) that hands out at most step
 * bytes a call of the left bytes at p, to cut a reader's input anywhere. */
#include <string.h>
#include <sys/types.h>
#include "types.h"
struct t_dribble {
	const void *p;
	size_t left, step;
};
static inline ssize_t t_dribble_read(void *ctx, void *buf, size_t len, st_error *err)
{
	struct t_dribble *d = ctx;
	size_t n = d->step < len ? d->step : len;
	(void)err;
	if (n > d->left)
		n = d->left;
	memcpy(buf, d->p, n);
	d->p = (const char *)d->p + n, d->left -= n;
	return (ssize_t)n;
}
#endif
