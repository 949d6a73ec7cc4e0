/* betweenness_count.h - a path count as a double and a binary exponent of
 * its own, so that it never overflows and a ratio of two keeps a double's
 * precision: added alike by the host's searches (betweenness.c) and the
 * GPU's (kernels/betweenness/fw_betweenness.cu), which must make the same bits. */
#ifndef APSP_BETWEENNESS_COUNT_H
#define APSP_BETWEENNESS_COUNT_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define BTW_HD __host__ __device__
#else
#define BTW_HD
#endif

#define BTW_NORM 512 /* a count past 2^BTW_NORM moves into its exponent */

/* The count m x 2^e gains mv x 2^ev. */
static inline BTW_HD void btw_count_add(double *m, int32_t *e, double mv, int32_t ev)
{
	double mu = *m;
	int32_t eu = *e;
	if (eu == ev) {
		mu += mv;
	} else if (ev > eu) {
		mu = ldexp(mu, eu - ev) + mv;
		eu = ev;
	} else {
		mu += ldexp(mv, ev - eu);
	}
	if (mu >= 0x1p512) {
		mu = ldexp(mu, -BTW_NORM);
		eu += BTW_NORM;
	}
	*m = mu, *e = eu;
}

#endif
