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
#endif
