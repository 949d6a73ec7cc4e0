/* fw_paths.c - the CPU engine's predecessors once the distances are final:
 * chains repaired where the blocked order tied them into loops, and
 * predecessors derived from the distances and the lists of edges in.  Also
 * fw_repair_paths() and fw_repair_rows(), which apsp-gpu calls. */
#include <immintrin.h>
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_internal.h"
#include "common.h"

/* The blocked order relaxes a block through all of the round's pivots at
 * once, so among paths of equal length it can pick predecessors that the
 * textbook order would not: through a zero-weight cycle they can point at
 * each other.  Distances are exact and every predecessor lies on a path of
 * the right length, so only chains that never reach the source need care:
 * find them (one walk per vertex, O(n) per source), then re-attach them as
 * Dijkstra's algorithm would, over the edges that lie on shortest paths
 * (d[s][u] + w(u, t) = d[s][t], within float32 rounding): the bad vertices
 * are attached in order of the length of the chain each would get, from
 * the good vertices and from those attached before, so that float32 chains
 * add up as closely to the distance as these edges allow.  Each bad
 * vertex's edges in are read once, from the in-edge lists where there are
 * some, else from the weight matrix's column (O(n)); those from bad
 * vertices are kept for the search.  w is the matrix the kernel started
 * from. */
enum { CH_UNKNOWN, CH_GOOD, CH_BAD, CH_WALKING };

/* A thread's room for repair_row(), n entries each unless said: the walks'
 * stack; each vertex's state; the bad vertices; the first kept edge out of
 * each; the tail a bad vertex would be attached to; the length of a good
 * vertex's chain, or the best a bad one has been offered; the heap of bad
 * vertices by that length, and each one's place in it; the kept edges
 * between bad vertices (cap), a list per tail, with their weights. */
typedef struct chains {
	uint64_t *stack;
	unsigned char *state;
	int32_t *bad, *head, *via, *heap, *place, *next, *to;
	double *len, *kw;
	uint64_t cap, max, size, first;
	int fifo; /* int32: every chain offered has the same sum, first come first */
} chains;

/* (safe on one whose chains_init() failed: that one is zeroed) */
static void chains_free(chains *c)
{
	free(c->stack), free(c->state), free(c->bad), free(c->head), free(c->via);
	free(c->heap), free(c->place), free(c->next), free(c->to), free(c->len), free(c->kw);
	memset(c, 0, sizeof *c);
}

/* 0, or -1 when out of memory. */
static int chains_init(chains *c, uint64_t n)
{
	memset(c, 0, sizeof *c);
	/* kept edges: 16 a vertex at most (256 bytes); past that, more passes */
	c->cap = 4 * n + 64, c->max = 16 * n + 64;
	c->stack = malloc(n * sizeof *c->stack);
	c->state = malloc(n);
	c->bad = malloc(n * sizeof *c->bad);
	c->head = malloc(n * sizeof *c->head);
	c->via = malloc(n * sizeof *c->via);
	c->heap = malloc(n * sizeof *c->heap);
	c->place = malloc(n * sizeof *c->place);
	c->len = malloc(n * sizeof *c->len);
	c->next = malloc(c->cap * sizeof *c->next);
	c->to = malloc(c->cap * sizeof *c->to);
	c->kw = malloc(c->cap * sizeof *c->kw);
	if (!c->stack || !c->state || !c->bad || !c->head || !c->via || !c->heap || !c->place ||
	    !c->len || !c->next || !c->to || !c->kw) {
		chains_free(c);
		return -1;
	}
	return 0;
}

/* Keep edge u -> t of weight x (u bad); 0, or -1 where there is no more
 * room. */
static int keep_edge(chains *c, uint64_t *used, int32_t u, int32_t t, double x)
{
	if (*used == c->cap) {
		uint64_t cap = 2 * c->cap < c->max ? 2 * c->cap : c->max;
		int32_t *next = cap > c->cap ? realloc(c->next, cap * sizeof *next) : NULL;
		if (next)
			c->next = next;
		int32_t *to = next ? realloc(c->to, cap * sizeof *to) : NULL;
		if (to)
			c->to = to;
		double *kw = to ? realloc(c->kw, cap * sizeof *kw) : NULL;
		if (!kw)
			return -1;
		c->kw = kw, c->cap = cap;
	}
	c->next[*used] = c->head[u], c->to[*used] = t, c->kw[*used] = x;
	c->head[u] = (int32_t)(*used)++;
	return 0;
}

/* The heap of bad vertices: the shortest offered length first, then the
 * lowest number (the same choice every run).  For int32 it is a queue:
 * every chain offered to a vertex has its distance as its sum. */
static int heap_before(const chains *c, int32_t a, int32_t b)
{
	return c->len[a] < c->len[b] || (c->len[a] == c->len[b] && a < b);
}

static void heap_up(chains *c, uint64_t i)
{
	int32_t v = c->heap[i];
	while (i > 0 && heap_before(c, v, c->heap[(i - 1) / 2])) {
		c->heap[i] = c->heap[(i - 1) / 2], c->place[c->heap[i]] = (int32_t)i;
		i = (i - 1) / 2;
	}
	c->heap[i] = v, c->place[v] = (int32_t)i;
}

/* v offered a chain of length x through u: taken where shorter. */
static void offer(chains *c, int32_t v, int32_t u, double x)
{
	if (c->place[v] >= 0 && (c->fifo || !(x < c->len[v])))
		return;
	c->len[v] = x, c->via[v] = u;
	if (c->place[v] < 0)
		c->heap[c->size] = v, c->place[v] = (int32_t)c->size++;
	if (!c->fifo)
		heap_up(c, (uint64_t)c->place[v]);
}

static int32_t heap_pop(chains *c)
{
	if (c->fifo) {
		int32_t v = c->heap[c->first++];
		c->place[v] = -1;
		return v;
	}
	int32_t top = c->heap[0], v = c->heap[--c->size];
	uint64_t i = 0;
	c->place[top] = -1;
	if (c->size == 0)
		return top;
	for (;;) {
		uint64_t k = 2 * i + 1;
		if (k >= c->size)
			break;
		if (k + 1 < c->size && heap_before(c, c->heap[k + 1], c->heap[k]))
			k++;
		if (!heap_before(c, c->heap[k], v))
			break;
		c->heap[i] = c->heap[k], c->place[c->heap[i]] = (int32_t)i;
		i = k;
	}
	c->heap[i] = v, c->place[v] = (int32_t)i;
	return top;
}

/* How far a sum may be from a distance and still count as equal: 0 for
 * int32, the rounding of float32 and float64 chains otherwise. */
static double tight_limit(uint32_t type, double dt)
{
	return type == ST_INT32 ? 0 : (type == ST_FLOAT32 ? 1e-5 : 1e-10) * (1 + fabs(dt));
}

/* The weight of u -> t in w (stride), infinite where there is none; w is
 * in the given numbering, u and t are positions. */
static double weight_at(uint32_t type, const void *w, uint64_t stride, const int32_t *order,
                        uint64_t u, uint64_t t)
{
	uint64_t e = order ? (uint64_t)order[u] * stride + (uint64_t)order[t] : u * stride + t;
	if (type == ST_INT32) {
		int32_t x = ((const int32_t *)w)[e];
		return x >= ST_INF_I32 ? INFINITY : x;
	}
	return type == ST_FLOAT32 ? ((const float *)w)[e] : ((const double *)w)[e];
}

/* How far u -> t, of weight x, is from lying on a shortest path from s:
 * |d[s][u] + x - d[s][t]|, infinite where u is unreachable. */
static double slack_of(uint32_t type, const void *drow, uint64_t u, double x, double dt)
{
	if (fwc_unreachable(type, drow, u) || x == INFINITY)
		return INFINITY;
	return fabs(fwc_dist_at(type, drow, u) + x - dt);
}

/* The lengths of the good vertices' chains: the distances for int32 (exact),
 * the sums along the chains for float32. */
static void chain_lengths(uint64_t s, const void *drow, const int32_t *prow, const void *w,
                          uint64_t wstride, const int32_t *order, uint64_t n, uint32_t type,
                          chains *c)
{
	double *len = c->len;
	for (uint64_t v = 0; v < n; v++)
		len[v] = type == ST_INT32 ? fwc_dist_at(type, drow, v) : NAN;
	if (type == ST_INT32)
		return;
	len[s] = 0;
	for (uint64_t t = 0; t < n; t++) {
		uint64_t top = 0, v = t;
		if (c->state[t] != CH_GOOD)
			continue;
		while (isnan(len[v]) && prow[v] >= 0)
			c->stack[top++] = v, v = (uint64_t)prow[v];
		if (isnan(len[v])) /* a good dead end: unreachable */
			len[v] = INFINITY;
		while (top > 0) {
			uint64_t x = c->stack[--top];
			len[x] = len[prow[x]] + weight_at(type, w, wstride, order, (uint64_t)prow[x], x);
		}
	}
}

/* Whether in-list edges from weight x on (sorted by their keys, none
 * negative) all weigh more than bound: for float64 the keys are float32
 * roundings, which keep order but not strict order. */
static int past_bound(uint32_t type, double x, double bound)
{
	return type == ST_FLOAT64 ? (float)x > (float)bound : x > bound;
}

/* The weight of in-list edge k. */
static double in_weight(uint32_t type, const in_edges *ie, uint64_t k)
{
	if (type == ST_INT32)
		return (int32_t)ie->wbits[k];
	if (type == ST_FLOAT64)
		return ie->w64[k];
	float f;
	memcpy(&f, &ie->wbits[k], 4);
	return f;
}

/* Bad vertex t: the edges into it that lie on shortest paths offered to it
 * from good vertices (heap), kept from bad ones (*full where one found no
 * room).  ie is in the given numbering, pos maps it to positions. */
static void scan_in(uint32_t type, uint64_t n, uint64_t t, const void *drow, const void *w,
                    uint64_t wstride, const int32_t *order, const int32_t *pos,
                    const in_edges *ie, chains *c, uint64_t *used, int *full)
{
	/* floating distances carry rounding */
	double dt = fwc_dist_at(type, drow, t);
	double limit = tight_limit(type, dt);
	uint64_t vt = order ? (uint64_t)order[t] : t;
	uint64_t k = ie ? ie->off[vt] : 0, end = ie ? ie->off[vt + 1] : n;
	for (; k < end; k++) {
		uint64_t u;
		double x;
		if (ie) {
			u = pos ? (uint64_t)pos[ie->from[k]] : ie->from[k];
			x = in_weight(type, ie, k);
			/* in increasing order of weight when none is negative:
			 * past dt, none can be tight */
			if (!ie->neg && past_bound(type, x, dt + limit))
				break;
		} else {
			u = k;
			if (u == t)
				continue;
			x = weight_at(type, w, wstride, order, u, t);
		}
		if (slack_of(type, drow, u, x, dt) > limit)
			continue;
		if (c->state[u] == CH_GOOD) {
			offer(c, (int32_t)t, (int32_t)u, c->len[u] + x);
			if (type == ST_INT32) /* every such edge gives d[s][t] */
				break;
		} else if (!*full && keep_edge(c, used, (int32_t)u, (int32_t)t, x)) {
			*full = 1;
		}
	}
}

/* Repair the predecessor row of source s in place; returns the number of
 * vertices whose chain was bad.  w has row stride wstride; ie, when not
 * NULL, lists the edges into each vertex of w (pos: the inverse of order). */
static uint64_t repair_row(uint64_t s, const void *drow, int32_t *prow, const void *w,
                           uint64_t wstride, const int32_t *order, const int32_t *pos,
                           const in_edges *ie, uint64_t n, uint32_t type, chains *c)
{
	uint64_t nbad = 0, found, *stack = c->stack;
	unsigned char *state = c->state;

	memset(state, CH_UNKNOWN, n);
	state[s] = CH_GOOD;
	for (uint64_t t = 0; t < n; t++) {
		uint64_t top = 0, v = t;
		unsigned char end;
		for (;;) {
			if (state[v] != CH_UNKNOWN) {
				end = state[v] == CH_GOOD ? CH_GOOD : CH_BAD;
				break;
			}
			state[v] = CH_WALKING, stack[top++] = v;
			if (prow[v] < 0) {
				/* a dead end is right only where unreachable */
				state[v] = fwc_unreachable(type, drow, v) ? CH_GOOD : CH_BAD;
				top--;
				end = CH_BAD;
				break;
			}
			v = (uint64_t)prow[v];
		}
		while (top > 0)
			state[stack[--top]] = end;
	}
	for (uint64_t t = 0; t < n; t++)
		if (state[t] == CH_BAD)
			c->bad[nbad++] = (int32_t)t;
	found = nbad;
	if (nbad == 0 || (!w && !ie)) /* (no graph: checked only) */
		return found;
	chain_lengths(s, drow, prow, w, wstride, order, n, type, c);
	/* one pass attaches every bad vertex a shortest path reaches, unless
	 * the kept edges ran out of room: then again, on those left */
	for (int full = 1, progress = 1; nbad > 0 && full && progress;) {
		uint64_t used = 0, left = 0;
		full = 0, c->size = 0, c->first = 0, c->fifo = type == ST_INT32;
		for (uint64_t b = 0; b < nbad; b++) {
			int32_t t = c->bad[b];
			c->head[t] = -1, c->place[t] = -1, c->len[t] = INFINITY;
		}
		for (uint64_t b = 0; b < nbad; b++) {
			uint64_t t = (uint64_t)c->bad[b];
			if (fwc_unreachable(type, drow, t))
				prow[t] = -1, state[t] = CH_GOOD;
			else
				scan_in(type, n, t, drow, w, wstride, order, pos, ie, c, &used, &full);
		}
		while (c->size > c->first) {
			int32_t x = heap_pop(c);
			prow[x] = c->via[x], state[x] = CH_GOOD;
			for (int32_t e = c->head[x]; e >= 0; e = c->next[e]) {
				int32_t t = c->to[e];
				if (state[t] == CH_BAD)
					offer(c, t, x, c->len[x] + c->kw[e]);
			}
		}
		for (uint64_t b = 0; b < nbad; b++)
			if (state[c->bad[b]] == CH_BAD)
				c->bad[left++] = c->bad[b];
		progress = left < nbad;
		nbad = left;
	}
	return found;
}

void fwc_repair_tiles(const void *d, int32_t *p, const void *w, const int32_t *order,
                         const int32_t *pos, const in_edges *ie, uint64_t n, uint64_t nb, int B,
                         uint32_t type, int threads)
{
	#pragma omp parallel num_threads(threads)
	{
		const size_t es = ST_TYPE_SIZE(type);
		char *drow = malloc(n * es);
		int32_t *prow = malloc(n * sizeof *prow);
		chains c;
		int ok = chains_init(&c, n) == 0;
		#pragma omp for schedule(dynamic, 16)
		for (uint64_t s = 0; s < n; s++) {
			if (!drow || !prow || !ok)
				continue;
			uint64_t I = s / B, i = s % B;
			for (uint64_t J = 0; J * B < n; J++) {
				size_t off = ((I * nb + J) * B + i) * B;
				uint64_t len = n - J * B < (uint64_t)B ? n - J * B : (uint64_t)B;
				memcpy(drow + J * B * es, (const char *)d + off * es, len * es);
				memcpy(prow + J * B, p + off, len * 4);
			}
			if (!repair_row(s, drow, prow, w, n, order, pos, ie, n, type, &c))
				continue;
			for (uint64_t J = 0; J * B < n; J++) {
				size_t off = ((I * nb + J) * B + i) * B;
				uint64_t len = n - J * B < (uint64_t)B ? n - J * B : (uint64_t)B;
				memcpy(p + off, prow + J * B, len * 4);
			}
		}
		free(drow), free(prow);
		chains_free(&c);
	}
}

int64_t fw_repair_paths(uint32_t type, uint64_t n, const void *weights, uint64_t wstride,
                        const void *dist, int32_t *pred, int threads)
{
	return fw_repair_rows(type, n, weights, wstride, 0, n, dist, pred, threads);
}

int64_t fw_repair_rows(uint32_t type, uint64_t n, const void *weights, uint64_t wstride,
                       uint64_t first, uint64_t rows, const void *dist, int32_t *pred,
                       int threads)
{
	int64_t total = 0;
	int oom = 0;

	threads = lib_threads(threads);
	#pragma omp parallel num_threads(threads) reduction(+ : total)
	{
		chains c;
		int ok = chains_init(&c, n) == 0;
		if (!ok) {
			#pragma omp atomic write
			oom = 1;
		}
		#pragma omp for schedule(dynamic, 16)
		for (uint64_t k = 0; k < rows; k++)
			if (ok)
				total += (int64_t)repair_row(first + k, (const char *)dist + k * n * ST_TYPE_SIZE(type),
				                             pred + k * n, weights, wstride, NULL, NULL,
				                             NULL, n, type, &c);
		chains_free(&c);
	}
	return oom ? -1 : total;
}

/* Predecessors derived from the final distances.  With every distance
 * known, a predecessor of t on a shortest path from s is any u with
 * d[s][u] + w(u, t) = d[s][t].  The edges into each vertex are listed by
 * increasing weight (key: weight bits << 32 | u; non-negative int32 and
 * float32 order as their bits do), so the search stops at the first weight
 * above d[s][t] and mostly ends among the first few.  float32 takes the
 * closest u where rounding leaves none exact.  Zero-weight cycles can tie
 * such u into loops; repair_row() then re-attaches them.  Far cheaper than
 * carrying predecessors through the rounds, and the rounds run on
 * distances alone.  The lists are fw_inedges.c's. */

/* The first edge of in-list [k, end) with d[u] + w = dt, or -1; int32. */
static int32_t first_tight_i32(const int32_t *d, int32_t dt, const uint32_t *from,
                               const uint32_t *wbits, uint64_t k, uint64_t end)
{
	for (; k < end; k++) {
		int32_t wt = (int32_t)wbits[k], u = (int32_t)from[k];
		if (wt > dt)
			break;
		if (d[u] + wt == dt) /* d[u] <= ST_INF_I32: no overflow, INF + w > dt */
			return u;
	}
	return -1;
}

/* The same, 16 edges at a time: the sums of a chunk gathered and compared
 * at once; the first chunk that holds a match gives its first one. */
T512 static int32_t first_tight_i32_512(const int32_t *d, int32_t dt, const uint32_t *from,
                                        const uint32_t *wbits, uint64_t k, uint64_t end)
{
	const __m512i vdt = _mm512_set1_epi32(dt), inf = _mm512_set1_epi32(ST_INF_I32);
	for (; k < end; k += 16) {
		__mmask16 m = end - k >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (end - k)) - 1);
		__m512i u = _mm512_maskz_loadu_epi32(m, from + k);
		__m512i w = _mm512_maskz_loadu_epi32(m, wbits + k);
		__m512i du = _mm512_mask_i32gather_epi32(inf, m, u, d, 4);
		__mmask16 eq = _mm512_mask_cmpeq_epi32_mask(m, _mm512_add_epi32(du, w), vdt);
		if (eq)
			return (int32_t)from[k + (uint64_t)__builtin_ctz(eq)];
		uint64_t last = end - k >= 16 ? k + 15 : end - 1;
		if ((int32_t)wbits[last] > dt) /* sorted: no later edge can match */
			break;
	}
	return -1;
}

/* Where the first tight edge of head h (sums d[u] + w = dt) is, or
 * IE_HEAD: one edge at a time, or all of them gathered and compared at once. */
static inline unsigned head_tight(const int32_t *d, int32_t dt, const uint32_t *h)
{
	unsigned j = 0;
	for (; j < IE_HEAD && d[h[j]] + (int32_t)h[IE_HEAD + j] != dt; j++)
		;
	return j;
}

T512 static inline unsigned head_tight_512(const int32_t *d, int32_t dt, const uint32_t *h)
{
	__m256i u = _mm256_load_si256((const __m256i *)h);
	__m256i w = _mm256_load_si256((const __m256i *)(h + IE_HEAD));
	__m256i sum = _mm256_add_epi32(_mm256_i32gather_epi32(d, u, 4), w);
	unsigned eq = (unsigned)_mm256_movemask_ps(
	        _mm256_castsi256_ps(_mm256_cmpeq_epi32(sum, _mm256_set1_epi32(dt))));
	return eq ? (unsigned)__builtin_ctz(eq) : IE_HEAD;
}

/* prow[t] for every t from the int32 distances d of source s: the first
 * tight edge into t in its head (HEAD: one of the two above), else on in its
 * list (FIRST_TIGHT: one of the two further above) where the head's last
 * weight leaves one possible. */
#define DERIVE_ROW_I32(HEAD, FIRST_TIGHT)                                                 \
	for (uint64_t t = 0; t < n; t++) {                                                \
		const uint32_t *h = ie->head + t * 2 * IE_HEAD;                           \
		const int32_t dt = d[t];                                                  \
		uint64_t k = ie->off[t], end = ie->off[t + 1];                            \
		unsigned j;                                                               \
		if (t == s || dt >= ST_INF_I32)                                           \
			prow[t] = -1;                                                     \
		else if ((j = HEAD(d, dt, h)) < IE_HEAD)                                  \
			prow[t] = (int32_t)h[j];                                          \
		else if (k + IE_HEAD < end && (int32_t)h[2 * IE_HEAD - 1] <= dt)          \
			prow[t] = FIRST_TIGHT(d, dt, ie->from, ie->wbits, k + IE_HEAD, end); \
		else                                                                      \
			prow[t] = -1;                                                     \
	}

static void derive_row_i32(uint64_t n, uint64_t s, const int32_t *d, int32_t *prow,
                           const in_edges *ie)
{
	DERIVE_ROW_I32(head_tight, first_tight_i32);
}

T512 static void derive_row_i32_512(uint64_t n, uint64_t s, const int32_t *d, int32_t *prow,
                                    const in_edges *ie)
{
	DERIVE_ROW_I32(head_tight_512, first_tight_i32_512);
}

/* Floating types: pred gets the first in-list edge k .. end - 1 of t whose
 * sum d[u] + w is dt exactly, else the closest; WEIGHT is edge k's weight,
 * PAST whether the sorted list can hold no tight edge from wt on. */
#define CLOSEST_TIGHT(T, ABS, WEIGHT, PAST)                                     \
	do {                                                                    \
		const T *d = drow;                                              \
		T dt = d[t], best = INFINITY;                                   \
		for (; k < end; k++) {                                          \
			const T wt = (WEIGHT);                                  \
			int32_t u = (int32_t)ie->from[k];                       \
			if (PAST)                                               \
				break;                                          \
			if (d[u] == INFINITY)                                   \
				continue;                                       \
			T e = ABS(d[u] + wt - dt);                              \
			if (e == 0) {                                           \
				pred = u;                                       \
				break;                                          \
			}                                                       \
			if (e < best)                                           \
				best = e, pred = u;                             \
		}                                                               \
	} while (0)

/* prow[t] for every t from the floating distances drow of source s. */
static void derive_row(uint32_t type, uint64_t n, uint64_t s, const void *drow, int32_t *prow,
                       const in_edges *ie)
{
	for (uint64_t t = 0; t < n; t++) {
		int32_t pred = -1;
		uint64_t k = ie->off[t], end = ie->off[t + 1];
		if (t == s || fwc_unreachable(type, drow, t)) {
			/* none */
		} else if (type == ST_FLOAT32) {
			CLOSEST_TIGHT(float, fabsf, (float)in_weight(type, ie, k), wt > dt);
		} else {
			/* the keys are float32 roundings: the search goes on past
			 * dt by its rounding */
			CLOSEST_TIGHT(double, fabs, ie->w64[k],
			              past_bound(type, wt, dt + tight_limit(type, dt)));
		}
		prow[t] = pred;
	}
}

/* pred (n x n, stride n, the caller's numbering) from the distance tiles d:
 * each source's row gathered from the tiles, derived, its chains repaired
 * against the weights w (the caller's matrix before from_tiles()). */
int fwc_derive_tiles(const void *d, const void *w, int32_t *pred, const in_edges *ie,
                        const int32_t *order, const int32_t *pos, uint64_t n, uint64_t nb,
                        int B, uint32_t type, int use512, int threads)
{
	int oom = 0;
	#pragma omp parallel num_threads(threads)
	{
		const size_t es = ST_TYPE_SIZE(type);
		char *drow = malloc(n * es);
		chains c;
		int ok = chains_init(&c, n) == 0 && drow;
		if (!ok) {
			#pragma omp atomic write
			oom = 1;
		}
		#pragma omp for schedule(dynamic, 16)
		for (uint64_t s = 0; s < n; s++) {
			if (!ok)
				continue;
			uint64_t a = pos ? (uint64_t)pos[s] : s, I = a / B, i = a % B;
			for (uint64_t J = 0; J * B < n; J++) {
				size_t off = ((I * nb + J) * B + i) * B;
				uint64_t c0 = J * B, len = n - c0 < (uint64_t)B ? n - c0 : (uint64_t)B;
				const char *src = (const char *)d + off * es;
				if (order)
					for (uint64_t j = 0; j < len; j++)
						memcpy(drow + (uint64_t)order[c0 + j] * es, src + j * es, es);
				else
					memcpy(drow + c0 * es, src, len * es);
			}
			int32_t *prow = pred + s * n;
			if (type == ST_INT32 && use512)
				derive_row_i32_512(n, s, (const int32_t *)drow, prow, ie);
			else if (type == ST_INT32)
				derive_row_i32(n, s, (const int32_t *)drow, prow, ie);
			else
				derive_row(type, n, s, drow, prow, ie);
			/* int32 weights above 0: each predecessor is strictly nearer
			 * the source, so every chain ends there */
			if (type != ST_INT32 || ie->zero)
				repair_row(s, drow, prow, w, n, NULL, NULL, ie, n, type, &c);
		}
		free(drow);
		chains_free(&c);
	}
	return oom ? -1 : 0;
}


/* Textbook predecessors from the largest intermediate vertex of each path
 * (fw_opts.textbook_paths): the textbook order sets pred[s][t] when it
 * first reaches d[s][t], at pivot m = mid[s][t], to pred[m][t], which is
 * final by then (m's own path to t has intermediates below m); so pred[s][t]
 * is the last vertex x of s, mid[s][t], mid[mid[s][t]][t], ... with mid[x][t]
 * = -1.  A column at a time, its mids copied first; a chain of n steps
 * loops (ties met in the blocked order) and gives -1, which
 * fw_repair_paths() then mends. */
int fw_textbook_preds(uint32_t type, uint64_t n, const void *dist, int32_t *mid, int threads)
{
	const size_t es = ST_TYPE_SIZE(type);
	int oom = 0;
	#pragma omp parallel num_threads(threads) reduction(| : oom)
	{
		int32_t *col = malloc(n * sizeof *col);
		oom = !col;
		#pragma omp barrier
		#pragma omp for schedule(dynamic, 16)
		for (uint64_t t = 0; t < n; t++) {
			if (!col)
				continue;
			for (uint64_t s = 0; s < n; s++)
				col[s] = mid[s * n + t];
			for (uint64_t s = 0; s < n; s++) {
				int32_t x = (int32_t)s;
				if (s == t || fwc_unreachable(type, (const char *)dist + s * n * es, t)) {
					mid[s * n + t] = -1;
					continue;
				}
				uint64_t k = 0;
				for (; k < n && col[x] >= 0; k++)
					x = col[x];
				/* a chain of n steps loops (paths of equal length met in
				 * the blocked order): none, for fw_repair_paths to mend */
				mid[s * n + t] = k < n ? x : -1;
			}
		}
		free(col);
	}
	return oom ? -1 : 0;
}
