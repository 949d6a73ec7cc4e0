/* fw_inedges.c - the lists of edges into each vertex, by increasing weight,
 * that the CPU engine's derivation of predecessors searches and its repair
 * of chains reads (fw_paths.c): listed from the weight matrix, sorted, and
 * for int32 each vertex's first few edges in one cache line. */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "fw_internal.h"
#include "common.h"

void fwc_in_edges_free(in_edges *ie)
{
	free(ie->off), free(ie->key), free(ie->from), free(ie->wbits), free(ie->w64), free(ie->head);
	ie->off = NULL, ie->key = NULL, ie->from = NULL, ie->wbits = NULL, ie->w64 = NULL;
	ie->head = NULL;
}

/* A weight's sort key: its bits for int32 and float32; for float64 the
 * bits of its float32 rounding, which keeps the order of non-negative
 * values (the float64 weights are kept apart, in w64). */
static uint32_t weight_bits(uint32_t type, const void *w, uint64_t e)
{
	uint32_t b;
	if (type == ST_FLOAT64) {
		float f = (float)((const double *)w)[e];
		memcpy(&b, &f, 4);
	} else {
		memcpy(&b, (const char *)w + e * 4, 4);
	}
	if (type != ST_INT32 && b == 0x80000000u) /* -0 */
		b = 0;
	return b;
}

/* Keys in increasing order: quicksort (middle pivot) down to short runs,
 * then insertion sort; no calls through a comparator. */
static void sort_u64(uint64_t *a, uint64_t len)
{
	while (len > 24) {
		uint64_t p = a[len / 2], i = 0, j = len - 1;
		for (;;) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i >= j)
				break;
			uint64_t t = a[i];
			a[i++] = a[j], a[j--] = t;
		}
		/* [0, j] <= p <= [j + 1, len): recurse into the smaller side */
		if (j + 1 < len - j - 1) {
			sort_u64(a, j + 1);
			a += j + 1, len -= j + 1;
		} else {
			sort_u64(a + j + 1, len - j - 1);
			len = j + 1;
		}
	}
	for (uint64_t i = 1; i < len; i++) {
		uint64_t v = a[i], k = i;
		for (; k > 0 && a[k - 1] > v; k--)
			a[k] = a[k - 1];
		a[k] = v;
	}
}

/* A list's keys in increasing order into from and wbits: those in increasing
 * u (as listed), counted by weight where their weights span under
 * COUNT_SPAN (hist: as many words), else sorted in place. */
enum { COUNT_SPAN = 4096 };
static void sort_list(uint64_t *key, uint64_t len, uint32_t *from, uint32_t *wbits,
                      uint32_t *hist)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	for (uint64_t e = 0; e < len; e++) {
		uint32_t b = (uint32_t)(key[e] >> 32);
		lo = b < lo ? b : lo;
		hi = b > hi ? b : hi;
	}
	if (len > 24 && hi - lo < COUNT_SPAN) {
		memset(hist, 0, ((size_t)(hi - lo) + 1) * sizeof *hist);
		for (uint64_t e = 0; e < len; e++)
			hist[(uint32_t)(key[e] >> 32) - lo]++;
		for (uint32_t b = 0, sum = 0; b <= hi - lo; b++) {
			uint32_t c = hist[b];
			hist[b] = sum, sum += c;
		}
		for (uint64_t e = 0; e < len; e++) {
			uint32_t b = (uint32_t)(key[e] >> 32), at = hist[b - lo]++;
			from[at] = (uint32_t)key[e], wbits[at] = b;
		}
		return;
	}
	sort_u64(key, len);
	for (uint64_t e = 0; e < len; e++)
		from[e] = (uint32_t)key[e], wbits[e] = (uint32_t)(key[e] >> 32);
}

/* Every list sorted from ie->key into ie->from and ie->wbits (two arrays,
 * for the vector search); ie->key freed.  0, or -1 when out of memory. */
static int sort_lists(uint64_t n, in_edges *ie, int threads)
{
	uint64_t m = ie->off[n];
	ie->from = malloc((m ? m : 1) * 4);
	ie->wbits = malloc((m ? m : 1) * 4);
	if (!ie->from || !ie->wbits)
		return -1;
	int oom = 0;
	#pragma omp parallel num_threads(threads) reduction(| : oom)
	{
		uint32_t *hist = malloc(COUNT_SPAN * sizeof *hist);
		oom = !hist;
		#pragma omp for schedule(dynamic, 64)
		for (uint64_t j = 0; j < n; j++) {
			uint64_t e = ie->off[j];
			if (hist)
				sort_list(ie->key + e, ie->off[j + 1] - e, ie->from + e, ie->wbits + e, hist);
		}
		free(hist);
	}
	free(ie->key);
	ie->key = NULL;
	return oom ? -1 : 0;
}

/* Past a list's end a head holds vertex 0 at a weight no distance reaches,
 * without overflow: d[0] + HEAD_PAST > every finite int32 distance. */
#define HEAD_PAST ((uint32_t)ST_INF_I32 + 1)

/* ie->head from the lists: a derivation mostly finds its edge among the
 * first few, and reads them here a cache line a vertex, in order. */
static int list_heads(uint64_t n, in_edges *ie, int threads)
{
	ie->head = aligned_alloc(64, n * 2 * IE_HEAD * sizeof *ie->head);
	if (!ie->head) {
		fwc_in_edges_free(ie);
		return -1;
	}
	#pragma omp parallel for schedule(static) num_threads(threads)
	for (uint64_t t = 0; t < n; t++) {
		uint32_t *h = ie->head + t * 2 * IE_HEAD;
		for (uint64_t j = 0; j < IE_HEAD; j++) {
			uint64_t e = ie->off[t] + j;
			int in = e < ie->off[t + 1];
			h[j] = in ? ie->from[e] : 0;
			h[IE_HEAD + j] = in ? ie->wbits[e] : HEAD_PAST;
		}
	}
	return 0;
}

/* Row u of int32 weights counted into c (an edge where finite, off the
 * diagonal); *neg and *zero set where an edge weighs below 0 or 0. */
static void count_row_i32(const int32_t *row, uint64_t n, uint64_t u, uint32_t *c, int *neg,
                          int *zero)
{
	uint32_t negs = 0, zeros = 0;
	for (uint64_t j = 0; j < n; j++) {
		c[j] += row[j] < ST_INF_I32;
		negs += row[j] < 0;
		zeros += row[j] == 0;
	}
	c[u] -= row[u] < ST_INF_I32, negs -= row[u] < 0, zeros -= row[u] == 0;
	*neg |= negs > 0, *zero |= zeros > 0;
}

/* Row u's edges from column j0 on placed in their lists (keys at off[j] +
 * c[j]). */
static void place_row_i32(const int32_t *row, uint64_t j0, uint64_t n, uint64_t u,
                          const uint64_t *off, uint32_t *c, uint64_t *key)
{
	for (uint64_t j = j0; j < n; j++)
		if (row[j] < ST_INF_I32 && j != u)
			key[off[j] + c[j]++] = (uint64_t)(uint32_t)row[j] << 32 | u;
}

/* The same, 16 entries tested at once and only the edges visited: a
 * branch an edge, not one an entry. */
T512 static void place_row_i32_512(const int32_t *row, uint64_t n, uint64_t u,
                                   const uint64_t *off, uint32_t *c, uint64_t *key)
{
	const __m512i inf = _mm512_set1_epi32(ST_INF_I32);
	uint64_t j = 0;
	for (; j + 16 <= n; j += 16)
		for (unsigned m = _mm512_cmplt_epi32_mask(_mm512_loadu_si512(row + j), inf); m;
		     m &= m - 1) {
			uint64_t x = j + (uint64_t)__builtin_ctz(m);
			if (x != u)
				key[off[x] + c[x]++] = (uint64_t)(uint32_t)row[x] << 32 | u;
		}
	place_row_i32(row, j, n, u, off, c, key);
}

/* The edges into each vertex of w (n x n, stride n).  0; 1 where they are
 * not worth listing: more than max of them, unless derive and none is
 * negative (deriving predecessors needs them whatever their number); -1
 * when out of memory.  use512: the processor has AVX-512. */
int fwc_list_in_edges(uint32_t type, uint64_t n, const void *w, int derive, uint64_t max,
                      int use512, in_edges *ie, int threads)
{
	int neg = 0, zero = 0;
	uint32_t *cnt = calloc((size_t)threads * n, sizeof *cnt);
	ie->off = calloc(n + 1, sizeof *ie->off);
	ie->key = NULL, ie->from = NULL, ie->wbits = NULL, ie->w64 = NULL, ie->head = NULL;
	ie->zero = 0, ie->neg = 0;
	const size_t es = ST_TYPE_SIZE(type);
	if (!cnt || !ie->off) {
		free(cnt), free(ie->off);
		ie->off = NULL;
		return -1;
	}
	/* rows in threads chunks, each with its own counts: counted, then
	 * placed in the same chunks (whichever thread runs them) */
	const int64_t nc = threads;
	#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) reduction(| : neg, zero)
	for (int64_t t = 0; t < nc; t++) {
		uint64_t r0 = n * (uint64_t)t / (uint64_t)nc, r1 = n * (uint64_t)(t + 1) / (uint64_t)nc;
		uint32_t *c = cnt + (size_t)t * n;
		for (uint64_t u = r0; u < r1 && type == ST_INT32; u++)
			count_row_i32((const int32_t *)w + u * n, n, u, c, &neg, &zero);
		for (uint64_t u = r0; u < r1 && type != ST_INT32; u++)
			for (uint64_t j = 0; j < n; j++) {
				if (j == u || fwc_unreachable(type, (const char *)w + u * n * es, j))
					continue;
				c[j]++;
				double x = fwc_dist_at(type, (const char *)w + u * n * es, j);
				neg |= x < 0;
				zero |= x == 0;
			}
	}
	for (uint64_t j = 0; j < n; j++) {
		uint64_t sum = ie->off[j];
		for (int64_t t = 0; t < nc; t++) {
			uint32_t k = cnt[(size_t)t * n + j];
			cnt[(size_t)t * n + j] = (uint32_t)(sum - ie->off[j]);
			sum += k;
		}
		ie->off[j + 1] = sum;
	}
	if ((!derive || neg) && ie->off[n] > max) {
		free(cnt), free(ie->off);
		ie->off = NULL;
		return 1;
	}
	ie->key = malloc((ie->off[n] ? ie->off[n] : 1) * sizeof *ie->key);
	if (!ie->key) {
		free(cnt), free(ie->off);
		ie->off = NULL;
		return -1;
	}
	#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
	for (int64_t t = 0; t < nc; t++) {
		uint64_t r0 = n * (uint64_t)t / (uint64_t)nc, r1 = n * (uint64_t)(t + 1) / (uint64_t)nc;
		uint32_t *c = cnt + (size_t)t * n;
		for (uint64_t u = r0; u < r1 && type == ST_INT32; u++)
			if (use512)
				place_row_i32_512((const int32_t *)w + u * n, n, u, ie->off, c, ie->key);
			else
				place_row_i32((const int32_t *)w + u * n, 0, n, u, ie->off, c, ie->key);
		for (uint64_t u = r0; u < r1 && type != ST_INT32; u++)
			for (uint64_t j = 0; j < n; j++)
				if (j != u && !fwc_unreachable(type, (const char *)w + u * n * es, j))
					ie->key[ie->off[j] + c[j]++] =
					        (uint64_t)weight_bits(type, w, u * n + j) << 32 | u;
	}
	free(cnt);
	ie->zero = zero, ie->neg = neg;
	if (sort_lists(n, ie, threads)) {
		fwc_in_edges_free(ie);
		return -1;
	}
	if (type == ST_INT32 && !neg) /* (derived: never with one negative) */
		return list_heads(n, ie, threads);
	if (type != ST_FLOAT64)
		return 0;
	uint64_t m = ie->off[n];
	if (!(ie->w64 = malloc((m ? m : 1) * sizeof *ie->w64))) {
		fwc_in_edges_free(ie);
		return -1;
	}
	#pragma omp parallel for schedule(dynamic, 64) num_threads(threads)
	for (uint64_t j = 0; j < n; j++)
		for (uint64_t e = ie->off[j]; e < ie->off[j + 1]; e++)
			ie->w64[e] = ((const double *)w)[ie->from[e] * n + j];
	return 0;
}
