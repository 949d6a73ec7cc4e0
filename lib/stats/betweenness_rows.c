/* betweenness_rows.c - sources summed for betweenness.c from their rows of
 * int32 distances (see betweenness_work.h).  A tight arc u -> v has
 * d(s,u) + w = d(s,v).  Two ways: along the tight arcs read off the row,
 * in Kahn's order from the source (source_row, which the GPU's kernel
 * follows step for step), or, where no arc is of length 0 and the graph is
 * sparse, in order of distance with each vertex's count and dependency
 * pulled from its arcs (pull_sources), the same bytes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "betweenness_count.h"
#include "betweenness_work.h"
#include "types.h"

/* *p with room for cap entries of each bytes: 0, or -1 (*p as it was). */
static int grow(void *p, uint64_t cap, size_t each)
{
	void *x = realloc(*(void **)p, cap * each);
	if (x)
		*(void **)p = x;
	return x ? 0 : -1;
}

/* Room for at least cap tight arcs. */
static int tight_room(btw_work *k, uint64_t cap)
{
	if (cap <= k->tarc_cap)
		return 0;
	cap = cap > 2 * k->tarc_cap ? cap : 2 * k->tarc_cap;
	if (grow(&k->tarc, cap, sizeof *k->tarc) < 0 || grow(&k->tu, cap, sizeof *k->tu) < 0
	    || grow(&k->succ, cap, sizeof *k->succ) < 0
	    || grow(&k->succ_arc, cap, sizeof *k->succ_arc) < 0)
		return -1;
	k->tarc_cap = cap;
	return 0;
}

/* The tight arcs (d(u) + w = d(v)) out of each vertex of the row d, up to
 * the farthest vertex far, their heads in tu (and arcs in tarc where
 * arcs): each vertex's first in tfirst, each head's count in indeg.
 * Inlined twice, arcs a constant: the loop per arc stays short. */
static inline __attribute__((always_inline)) int tight_arcs(const btw_graph *g, btw_work *k,
                                                              const int32_t *d, int64_t far,
                                                              int arcs)
{
	const uint64_t n = g->n;
	const struct btw_arc *arc = g->packed;
	const uint64_t *first = g->first;
	uint64_t t = 0, sure = 0; /* room sure for tight arcs up to sure */
	struct btw_vx *vx = k->vx;
	uint32_t *indeg = k->indeg;
	uint64_t *tarc = k->tarc, *tfirst = k->tfirst;
	uint32_t *tu = k->tu;
	for (uint64_t u = 0; u < n; u++) {
		tfirst[u] = t;
		const int64_t du = d[u];
		uint64_t a = first[u], end = first[u + 1];
		if (du >= ST_INF_I32 || a == end)
			continue;
		const int64_t room = far - du;
		if (arc[end - 1].w > room) /* (by length: the first too long ends them) */
			for (end = a; end < first[u + 1] && arc[end].w <= room; end++)
				;
		if (t + (end - a) > sure) {
			if (tight_room(k, t + (end - a)) < 0)
				return -1;
			tarc = k->tarc, tu = k->tu, sure = k->tarc_cap;
		}
		for (; a < end; a++) {
			const uint32_t v = arc[a].to;
			const uint32_t tight = du + arc[a].w == d[v];
			if (arcs)
				tarc[t] = a;
			tu[t] = v;
			t += tight;
			indeg[v] += tight;
			vx[v].sig = 0; /* (the last source's left) */
		}
	}
	tfirst[n] = t;
	return 0;
}

/* Source s from its row of distances d (int32, exact): the tight arcs up
 * to the farthest vertex, in tails' order; the vertices in a topological
 * order of them (Kahn's, from s) with their path counts, the tight arcs
 * copied in that order; then the dependencies accumulated in reverse,
 * reading that copy backwards. */
static void source_row(const btw_graph *g, btw_work *k, uint32_t s, const int32_t *d,
                       double *vertex, double *arc)
{
	const uint64_t n = g->n;
	int64_t far = 0;
	for (uint64_t v = 0; v < n; v++)
		if (d[v] < ST_INF_I32 && d[v] > far)
			far = d[v];
	if ((arc ? tight_arcs(g, k, d, far, 1) : tight_arcs(g, k, d, far, 0)) < 0) {
		k->failed = 1;
		return;
	}
	struct btw_vx *vx = k->vx;
	/* forward: the order, the counts, the arcs in order */
	uint64_t len = 1, at = 0;
	k->order[0] = s;
	vx[s].sig = 1.0, vx[s].e = 0;
	for (uint64_t i = 0; i < len; i++) {
		const uint32_t v = k->order[i];
		const double mv = vx[v].sig;
		const int32_t ev = vx[v].e;
		k->sfirst[i] = at;
		for (uint64_t j = k->tfirst[v]; j < k->tfirst[v + 1]; j++) {
			const uint32_t u = k->tu[j];
			struct btw_vx *x = &vx[u];
			k->succ[at] = u;
			if (arc)
				k->succ_arc[at] = k->tarc[j];
			at++;
			if (x->sig == 0)
				x->sig = mv, x->e = ev;
			else
				btw_count_add(&x->sig, &x->e, mv, ev);
			if (--k->indeg[u] == 0)
				k->order[len++] = u;
		}
	}
	k->sfirst[len] = at;
	/* backward: coef(u) = (1 + delta(u)) / sigma(u), in sig's place once
	 * u is summed, so that each tight v -> u passes sigma(v) coef(u) back
	 * to v */
	for (uint64_t i = len; i-- > 0;) {
		const uint32_t v = k->order[i];
		struct btw_vx *y = &vx[v];
		double dv = 0;
		for (uint64_t j = k->sfirst[i]; j < k->sfirst[i + 1]; j++) {
			const struct btw_vx *x = &vx[k->succ[j]];
			double c = y->sig * x->sig;
			if (y->e != x->e)
				c = ldexp(c, y->e - x->e);
			dv += c;
			if (arc)
				arc[k->succ_arc[j]] += c;
		}
		if (v != s)
			vertex[v] += dv;
		y->sig = (1.0 + dv) / y->sig;
	}
}

/* x where t, else +0. */
static inline double kept(double x, int t)
{
	uint64_t b;
	memcpy(&b, &x, sizeof b);
	b &= -(uint64_t)t;
	memcpy(&x, &b, sizeof x);
	return x;
}

/* One source of the pulled sums (rows given, no zero arcs). */
typedef struct {
	uint32_t s;
	uint64_t len;          /* the vertices reached */
	int64_t far;           /* the farthest one's distance */
	uint32_t *order;       /* those reached, in order of distance */
	struct btw_rec *rec;
} pulled;

/* The digits of the sort by distance: enough for 2n distances in one
 * pass, at most 16 bits. */
static int radix_bits(uint64_t n)
{
	int bits = 1;
	while (bits < 16 && ((uint64_t)1 << bits) < 2 * n)
		bits++;
	return bits;
}

/* The vertices reached in the row d in order of distance, into order
 * (far the farthest distance, at[1 + x] the count of those whose lowest
 * digit is x, at's others 0): a counting sort, a pass a digit from the
 * lowest (one where far is below 2n), the last pass into order; at
 * (2^radix_bits + 1) and tmp (n) its room.  Returns how many. */
static uint64_t sort_by_distance(uint64_t n, const int32_t *d, int64_t far, uint32_t *at,
                                 uint32_t *tmp, uint32_t *order)
{
	const int bits = radix_bits(n);
	int passes = 1;
	while (passes * bits < 31 && far >> (passes * bits))
		passes++;
	const uint32_t mask = ((uint32_t)1 << bits) - 1;
	const uint64_t buckets = passes == 1 ? (uint64_t)far + 1 : (uint64_t)mask + 1;
	const uint32_t *from = NULL; /* the first pass takes the vertices in turn */
	uint64_t len = 0;
	for (int pass = 0; pass < passes; pass++) {
		const int shift = pass * bits;
		uint32_t *to = (passes - pass) % 2 ? order : tmp;
		if (from) {
			memset(at, 0, (buckets + 1) * sizeof *at);
			for (uint64_t i = 0; i < len; i++)
				at[(d[from[i]] >> shift & mask) + 1]++;
		}
		for (uint64_t b = 0; b < buckets; b++)
			at[b + 1] += at[b];
		len = at[buckets];
		if (!from) {
			for (uint64_t v = 0; v < n; v++)
				if (d[v] < ST_INF_I32)
					to[at[d[v] & mask]++] = (uint32_t)v;
		} else {
			for (uint64_t i = 0; i < len; i++)
				to[at[d[from[i]] >> shift & mask]++] = from[i];
		}
		from = to;
	}
	return len;
}

/* Source s's row d in p: its distances in rec, its vertices reached in
 * order of distance (the first digit's counts made beside the copy), s's
 * count 1. */
static void pull_start(const btw_graph *g, btw_work *k, pulled *p, uint32_t s, const int32_t *d)
{
	const uint64_t n = g->n;
	const uint32_t mask = ((uint32_t)1 << radix_bits(n)) - 1;
	struct btw_rec *rec = p->rec;
	uint32_t *at = k->bucket;
	memset(at, 0, ((uint64_t)mask + 2) * sizeof *at);
	int64_t far = 0;
	for (uint64_t v = 0; v < n; v++) {
		const int32_t x = d[v];
		rec[v].d = x;
		if (x < ST_INF_I32) {
			at[(x & mask) + 1]++;
			far = x > far ? x : far;
		}
	}
	p->s = s, p->far = far;
	p->len = sort_by_distance(n, d, far, at, k->sort_tmp, p->order);
	rec[s].x = 1.0;
}

/* A vertex's groups of arcs (see btw_graph): the first slot of the one at
 * hand (the first at v x BTW_GROUP), then those from more[v] to end. */
typedef struct {
	uint64_t j, more, end;
} groups;

static inline groups groups_of(const uint64_t *more, uint32_t v)
{
	return (groups){(uint64_t)v * BTW_GROUP, more[v], more[v + 1]};
}

/* The next group, or 0 past the last. */
static inline int next_group(groups *it)
{
	if (it->more == it->end)
		return 0;
	it->j = it->more, it->more += BTW_GROUP;
	return 1;
}

#ifdef __SSE2__
/* A group's four heads: their values x (two and two) and distances d;
 * the arcs' lengths w. */
typedef struct {
	__m128d x01, x23;
	__m128i d, w;
} heads4;

static inline heads4 heads_of(const struct btw_rec *rec, const struct btw_arc *x)
{
	const __m128i r0 = _mm_loadu_si128((const __m128i *)&rec[x[0].to]);
	const __m128i r1 = _mm_loadu_si128((const __m128i *)&rec[x[1].to]);
	const __m128i r2 = _mm_loadu_si128((const __m128i *)&rec[x[2].to]);
	const __m128i r3 = _mm_loadu_si128((const __m128i *)&rec[x[3].to]);
	const __m128 a01 = _mm_loadu_ps((const float *)&x[0]), a23 = _mm_loadu_ps((const float *)&x[2]);
	heads4 h;
	h.x01 = _mm_castsi128_pd(_mm_unpacklo_epi64(r0, r1));
	h.x23 = _mm_castsi128_pd(_mm_unpacklo_epi64(r2, r3));
	h.d = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(_mm_unpackhi_epi64(r0, r1)),
	                                      _mm_castsi128_ps(_mm_unpackhi_epi64(r2, r3)),
	                                      _MM_SHUFFLE(2, 0, 2, 0)));
	h.w = _mm_castps_si128(_mm_shuffle_ps(a01, a23, _MM_SHUFFLE(3, 1, 3, 1)));
	return h;
}

/* Lanes where 32-bit a == b, as two 64-bit masks. */
static inline void equal4(__m128i a, __m128i b, __m128d *t01, __m128d *t23)
{
	const __m128i t = _mm_cmpeq_epi32(a, b);
	*t01 = _mm_castsi128_pd(_mm_unpacklo_epi32(t, t));
	*t23 = _mm_castsi128_pd(_mm_unpackhi_epi32(t, t));
}
#endif

/* The count of p's i-th vertex v (i > 0), pulled from its tight in-arcs
 * (u -> v with d(u) + w = d(v), in 32 bits: distances are below 2^30 and
 * lengths 2^31), the arcs a group at a time with no branch on which are
 * tight; with SSE2, a group's four in vector lanes (the sum's order does
 * not matter: integers below 2^53).  Returns it. */
static inline __attribute__((always_inline)) double pull_count(const btw_graph *g,
                                                               const pulled *p, uint64_t i,
                                                               int lanes)
{
	struct btw_rec *rec = p->rec;
	const uint32_t v = p->order[i];
	const int32_t dv = rec[v].d;
	double acc = 0;
#ifdef __SSE2__
	__m128d acc01 = _mm_setzero_pd(), acc23 = _mm_setzero_pd();
	const __m128i dv4 = _mm_set1_epi32(dv);
#endif
	groups it = groups_of(g->in_more, v);
	do {
		const struct btw_arc *x = g->in + it.j;
		if (x[0].w > dv)
			break;
#ifdef __SSE2__
		if (lanes) {
			const heads4 h = heads_of(rec, x);
			__m128d t01, t23;
			equal4(_mm_add_epi32(h.d, h.w), dv4, &t01, &t23);
			acc01 = _mm_add_pd(acc01, _mm_and_pd(h.x01, t01));
			acc23 = _mm_add_pd(acc23, _mm_and_pd(h.x23, t23));
		} else
#endif
#pragma GCC unroll 4
			for (int q = 0; q < BTW_GROUP; q++) {
				const struct btw_rec u = rec[x[q].to];
				acc += kept(u.x, (uint32_t)u.d + (uint32_t)x[q].w == (uint32_t)dv);
			}
	} while (next_group(&it));
#ifdef __SSE2__
	if (lanes) {
		const __m128d sum = _mm_add_pd(acc01, acc23);
		acc = _mm_cvtsd_f64(_mm_add_sd(sum, _mm_unpackhi_pd(sum, sum)));
	}
#endif
	return rec[v].x = acc;
}

/* The dependency of p's i-th vertex v, its later ones' done: each tight
 * out-arc v -> u adds sig(v) coef(u), in the arcs' order (into arc[] too
 * where not NULL, a lane at a time); coef(v) = (1 + delta(v)) / sig(v) in
 * sig's place. */
static inline __attribute__((always_inline)) void
pull_dependency(const btw_graph *g, const pulled *p, uint64_t i, double *vertex, double *arc)
{
	struct btw_rec *rec = p->rec;
	const uint32_t v = p->order[i];
	const int32_t dv = rec[v].d;
	const int64_t room = p->far - dv;
	const double sv = rec[v].x;
	double acc = 0;
#ifdef __SSE2__
	__m128d sum = _mm_setzero_pd();
	const __m128i dv4 = _mm_set1_epi32(dv);
	const __m128d sv2 = _mm_set1_pd(sv);
#endif
	groups it = groups_of(g->out_more, v);
	do {
		const struct btw_arc *x = g->out + it.j;
		if (x[0].w > room)
			break;
#ifdef __SSE2__
		if (!arc) {
			const heads4 h = heads_of(rec, x);
			__m128d t01, t23;
			equal4(_mm_add_epi32(h.w, dv4), h.d, &t01, &t23);
			const __m128d c01 = _mm_and_pd(_mm_mul_pd(sv2, h.x01), t01);
			const __m128d c23 = _mm_and_pd(_mm_mul_pd(sv2, h.x23), t23);
			sum = _mm_add_sd(sum, c01);
			sum = _mm_add_sd(sum, _mm_unpackhi_pd(c01, c01));
			sum = _mm_add_sd(sum, c23);
			sum = _mm_add_sd(sum, _mm_unpackhi_pd(c23, c23));
		} else
#endif
#pragma GCC unroll 4
			for (int q = 0; q < BTW_GROUP; q++) {
				const struct btw_rec u = rec[x[q].to];
				const int t = (uint32_t)dv + (uint32_t)x[q].w == (uint32_t)u.d;
				const double c = sv * u.x;
				acc += kept(c, t);
				if (arc && t)
					arc[g->out_arc[it.j + q]] += c;
			}
	} while (next_group(&it));
#ifdef __SSE2__
	if (!arc)
		acc = _mm_cvtsd_f64(sum);
#endif
	if (v != p->s)
		vertex[v] += acc;
	rec[v].x = (1.0 + acc) / sv;
}

/* Sources s0 .. s1 - 1 from their rows (stride entries apart), where no
 * arc is of length 0, so that the order of distance is a topological
 * order of the tight arcs: each vertex's count pulled from its tight
 * in-arcs, then its dependency from its tight out-arcs.  The same bits as
 * source_row where every count is below 2^53 (sums of integers, exact in
 * any order; the dependencies summed in the arcs' order as there); a
 * source with a count past it is left to source_row.  Inlined twice, arcs
 * a constant: no branch on which arcs are tight where none is asked. */
static inline __attribute__((always_inline)) void
pull_sources(const btw_graph *g, btw_work *k, uint32_t s0, uint32_t s1, const int32_t *rows,
             uint64_t stride, double *vertex, double *arc)
{
	pulled p = {.order = k->by_distance, .rec = k->rec};
	for (uint32_t s = s0; s < s1; s++) {
		const int32_t *row = rows + (uint64_t)(s - s0) * stride;
		pull_start(g, k, &p, s, row);
		double most = 1;
		for (uint64_t i = 1; i < p.len; i++) {
			const double c = pull_count(g, &p, i, !arc);
			most = c > most ? c : most;
		}
		if (most >= 0x1p53) {
			source_row(g, k, s, row, vertex, arc);
			continue;
		}
		for (uint64_t i = p.len; i-- > 0;)
			pull_dependency(g, &p, i, vertex, arc);
	}
}

uint64_t btw_row_buckets(uint64_t n)
{
	return ((uint64_t)1 << radix_bits(n)) + 1;
}

int btw_sources_from_rows(const btw_graph *g, btw_work *k, uint32_t s0, uint32_t s1,
                          const int32_t *rows, uint64_t stride, double *vertex, double *arc)
{
	if (g->in && arc)
		pull_sources(g, k, s0, s1, rows, stride, vertex, arc);
	else if (g->in)
		pull_sources(g, k, s0, s1, rows, stride, vertex, NULL);
	for (uint32_t s = s0; s < s1 && !g->in && !k->failed; s++)
		source_row(g, k, s, rows + (uint64_t)(s - s0) * stride, vertex, arc);
	return k->failed ? -1 : 0;
}
