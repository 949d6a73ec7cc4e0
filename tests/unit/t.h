/* t.h - minimal unit-test reporting: one PASS/FAIL line per check. */
#ifndef APSP_T_H
#define APSP_T_H
#include <stdio.h>
static int t_failed;
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
#endif
