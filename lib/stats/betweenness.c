/* betweenness.c - betweenness centrality by Brandes's accumulation: one
 * Dijkstra search a source, the dependencies summed in reverse order of
 * settling (see gs_betweenness_arcs in stats.h).
 *
 * Path counts are a double and a binary exponent of their own, so they
 * never overflow (a grid's pass 2^1024 soon) and every ratio of two keeps
 * double's precision.  Sources are summed a chunk of BTW_CHUNK at a time,
 * each chunk on one thread and the chunks' sums added in order: the same
 * bits whatever the thread count.  Zero arcs are counted exactly: among
 * vertices at the same distance the search settles them in a topological
 * order of the zero arcs (their rank), so a count is final before it is
 * passed on. */
#include <math.h>
#include <omp.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "betweenness_count.h"
#include "betweenness_graph.h"
#include "common.h"
#include "elim.h"
#include "fw.h"
#include "stats.h"

#define BTW_CHUNK 64
/* Rows given, the sums are pulled (pull_sources) where no arc is of length
 * 0 and the mean out-degree is at most this: in denser graphs the tight
 * arcs' lists (source_row) test fewer arcs. */
#define BTW_PULL_DEGREE 8

/* One thread's room for a source. */
typedef struct btw_work {
	void *dist;
	double *sig_m, *delta;
	int32_t *sig_e;     /* path counts: sig_m x 2^sig_e */
	uint8_t *done;
	uint32_t *order;
	int64_t *head;      /* each vertex's first tight in-arc in link, or -1 */
	uint64_t *link;     /* pairs: the arc, the next one's index */
	uint64_t links, link_cap;
	void *heap;
	uint64_t heap_len, heap_cap;
	int failed;
	uint64_t *tfirst;   /* rows given: each vertex's tight out-arcs, tarc and their heads tu */
	uint64_t *tarc;
	uint32_t *tu;
	uint32_t *succ;     /* the tight arcs' heads again, in the vertices' order, */
	uint64_t *succ_arc; /* ... their arcs, */
	uint64_t *sfirst;   /* ... where each place in the order begins */
	uint64_t tarc_cap;
	struct btw_vx {     /* rows given: each vertex's count (sig x 2^e), */
		double sig;     /* ... the count's coefficient in its place once summed back */
		int32_t e;
	} *vx;
	uint32_t *indeg;    /* ... and its tight in-arcs not yet passed */
	struct btw_rec {    /* rows given, no zero arcs: each vertex's count, */
		double x;       /* ... its coefficient once summed back, */
		int32_t d, pad; /* ... and its distance beside them; */
	} *rec;
	uint32_t *by_distance; /* ... the vertices reached, in order of distance */
	uint32_t *bucket, *sort_tmp; /* ... (the sort's room) */
} btw_work;

/* Tight arc a into u. */
static int btw_link(btw_work *k, uint32_t u, uint64_t a)
{
	if (k->links == k->link_cap) {
		uint64_t cap = k->link_cap * 2;
		uint64_t *l = realloc(k->link, cap * 2 * sizeof *l);
		if (!l)
			return -1;
		k->link = l, k->link_cap = cap;
	}
	k->link[2 * k->links] = a;
	k->link[2 * k->links + 1] = (uint64_t)k->head[u];
	k->head[u] = (int64_t)k->links++;
	return 0;
}

/* u's path count gains v's. */
static void count_add_vertex(btw_work *k, uint32_t u, uint32_t v)
{
	btw_count_add(&k->sig_m[u], &k->sig_e[u], k->sig_m[v], k->sig_e[v]);
}

/* The dependencies of source s's settled vertices, last first: each tight
 * arc v -> u passes sigma(v) / sigma(u) x (1 + delta(u)) back to v. */
static void btw_accumulate(const btw_graph *g, btw_work *k, uint32_t s, uint64_t settled,
                           double *vertex, double *arc)
{
	for (uint64_t i = settled; i-- > 0;) {
		const uint32_t u = k->order[i];
		const double mu = k->sig_m[u], du = 1.0 + k->delta[u];
		const int32_t eu = k->sig_e[u];
		for (int64_t l = k->head[u]; l >= 0; l = (int64_t)k->link[2 * l + 1]) {
			const uint64_t a = k->link[2 * l];
			const uint32_t v = g->from[a];
			double r = k->sig_m[v] / mu;
			if (k->sig_e[v] != eu)
				r = ldexp(r, k->sig_e[v] - eu);
			const double c = r * du;
			k->delta[v] += c;
			if (arc)
				arc[a] += c;
		}
		if (u != s)
			vertex[u] += k->delta[u];
	}
}

#define BT_D int64_t
#define BT_INF INT64_MAX
#define BT_NAME(x) x##_exact
#include "betweenness_typed.h"
#define BT_D double
#define BT_INF INFINITY
#define BT_NAME(x) x##_real
#include "betweenness_typed.h"

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
	uint64_t j = (uint64_t)v * BTW_GROUP;
	for (uint64_t more = g->in_more[v], end = g->in_more[v + 1];;) {
		const struct btw_arc *x = g->in + j;
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
		if (more == end)
			break;
		j = more, more += BTW_GROUP;
	}
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
	uint64_t j = (uint64_t)v * BTW_GROUP;
	for (uint64_t more = g->out_more[v], end = g->out_more[v + 1];;) {
		const struct btw_arc *x = g->out + j;
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
					arc[g->out_arc[j + q]] += c;
			}
		if (more == end)
			break;
		j = more, more += BTW_GROUP;
	}
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

/* ---- the sources ---- */

static void work_free(btw_work *k)
{
	free(k->dist), free(k->sig_m), free(k->delta), free(k->sig_e), free(k->done);
	free(k->order), free(k->head), free(k->link), free(k->heap);
	free(k->tfirst), free(k->tarc), free(k->tu), free(k->succ);
	free(k->succ_arc), free(k->sfirst), free(k->vx), free(k->indeg);
	free(k->rec), free(k->by_distance), free(k->bucket), free(k->sort_tmp);
}

static int work_alloc(btw_work *k, const btw_graph *g)
{
	const uint64_t n = g->n;
	memset(k, 0, sizeof *k);
	k->dist = malloc(n * 8 + 1);
	k->sig_m = calloc(n + 1, sizeof *k->sig_m);
	k->delta = calloc(n + 1, sizeof *k->delta);
	k->sig_e = malloc(n * sizeof *k->sig_e + 1);
	k->done = calloc(n + 1, 1);
	k->order = malloc(n * sizeof *k->order + 1);
	k->head = malloc(n * sizeof *k->head + 1);
	k->tfirst = malloc((n + 1) * sizeof *k->tfirst);
	k->link_cap = n + 16, k->heap_cap = n + 16, k->tarc_cap = n + 16;
	k->link = malloc(k->link_cap * 2 * sizeof *k->link);
	k->heap = malloc(k->heap_cap * 16);
	k->tarc = malloc(k->tarc_cap * sizeof *k->tarc);
	k->tu = malloc(k->tarc_cap * sizeof *k->tu);
	k->succ = malloc(k->tarc_cap * sizeof *k->succ);
	k->succ_arc = malloc(k->tarc_cap * sizeof *k->succ_arc);
	k->sfirst = malloc((n + 1) * sizeof *k->sfirst);
	k->vx = calloc(n + 1, sizeof *k->vx);
	k->indeg = calloc(n + 1, sizeof *k->indeg);
	k->rec = calloc(n + 1, sizeof *k->rec);
	k->by_distance = malloc(n * sizeof *k->by_distance + 1);
	k->bucket = malloc((((uint64_t)1 << radix_bits(n)) + 1) * sizeof *k->bucket);
	k->sort_tmp = malloc(n * sizeof *k->sort_tmp + 1);
	if (!k->rec || !k->by_distance || !k->bucket || !k->sort_tmp || !k->dist || !k->sig_m || !k->delta || !k->sig_e || !k->done || !k->order || !k->head
	    || !k->link || !k->heap || !k->tfirst || !k->tarc || !k->tu || !k->succ
	    || !k->succ_arc || !k->sfirst || !k->vx || !k->indeg) {
		work_free(k);
		return -1;
	}
	for (uint64_t v = 0; v < n; v++) {
		if (g->exact)
			((int64_t *)k->dist)[v] = INT64_MAX;
		else
			((double *)k->dist)[v] = INFINITY;
	}
	return 0;
}

/* The accumulator: the graph, each thread's room, the chunks' sums. */
struct gs_bc {
	btw_graph g;
	gs_bc_opts o;
	int threads;
	uint64_t next;   /* the sources done, in order */
	uint64_t width;  /* a sum's values: n, and the arcs' where asked */
	double *total;   /* the chunks done, added in order */
	double *part;    /* threads + 1 sums: a wave's chunks, the open one last */
	btw_work *work;
};

/* Sources first .. first + count - 1, from their rows (stride entries
 * apart) or searched; chunk by chunk, a wave of a chunk a thread. */
static int add_sources(gs_bc *b, uint64_t first, uint64_t count, const int32_t *rows,
                       uint64_t stride)
{
	const uint64_t n = b->g.n, end = first + count, width = b->width;
	double *open = b->part + (uint64_t)b->threads * width;
	int bad = 0;
	for (uint64_t s0 = first; s0 < end && !bad;) {
		/* a wave: up to a chunk a thread, the first one maybe begun before */
		uint64_t bounds[b->threads + 1], waves = 0;
		bounds[0] = s0;
		while (waves < (uint64_t)b->threads && bounds[waves] < end) {
			const uint64_t c1 = (bounds[waves] / BTW_CHUNK + 1) * BTW_CHUNK;
			bounds[waves + 1] = c1 < end ? c1 : end;
			waves++;
		}
#pragma omp parallel for schedule(dynamic, 1) num_threads(b->threads) reduction(|| : bad)
		for (uint64_t i = 0; i < waves; i++) {
			btw_work *k = &b->work[omp_get_thread_num()];
			double *p = b->part + i * width;
			if (i == 0 && bounds[0] % BTW_CHUNK)
				memcpy(p, open, width * sizeof *p);
			else
				memset(p, 0, width * sizeof *p);
			double *arc = b->o.edges ? p + n : NULL;
			const uint32_t s0 = (uint32_t)bounds[i], s1 = (uint32_t)bounds[i + 1];
			if (rows && b->g.in && arc)
				pull_sources(&b->g, k, s0, s1, rows + (s0 - first) * stride, stride, p, arc);
			else if (rows && b->g.in)
				pull_sources(&b->g, k, s0, s1, rows + (s0 - first) * stride, stride, p, NULL);
			for (uint64_t s = s0; s < s1 && !k->failed && !(rows && b->g.in); s++) {
				if (rows)
					source_row(&b->g, k, (uint32_t)s, rows + (s - first) * stride, p, arc);
				else if ((b->g.exact ? source_exact : source_real)(&b->g, k, (uint32_t)s, p,
				                                                     arc) < 0)
					k->failed = 1;
			}
			bad = k->failed;
		}
		for (uint64_t i = 0; i < waves && !bad; i++) { /* the chunks' sums, in order */
			const double *p = b->part + i * width;
			if (bounds[i + 1] % BTW_CHUNK && bounds[i + 1] != n) { /* left open */
				memcpy(open, p, width * sizeof *p);
				break;
			}
#pragma omp parallel for schedule(static) num_threads(b->threads)
			for (uint64_t v = 0; v < width; v++)
				b->total[v] += p[v];
		}
		s0 = bounds[waves];
		if (b->o.progress)
			b->o.progress(b->o.ctx, s0, n);
	}
	b->next = end;
	return bad ? -1 : 0;
}

/* ---- the interface ---- */

static int bc_start(btw_graph *g, const gs_bc_opts *o, gs_bc **out, uint32_t bad[2],
                    st_error *err)
{
	*out = NULL;
	int rc = btw_graph_rank(g, bad, err);
	if (rc == 0 && g->exact)
		rc = btw_graph_by_length(g, o->threads, err);
	gs_bc *b = rc == 0 ? calloc(1, sizeof *b) : NULL;
	if (rc != 0 || !b) {
		btw_graph_free(g);
		return rc != 0 ? rc : lib_fail(err, "betweenness: out of memory");
	}
	b->g = *g, b->o = *o;
	const uint64_t n = g->n, chunks = (n + BTW_CHUNK - 1) / BTW_CHUNK;
	b->threads = o->threads > 0 ? o->threads : omp_get_max_threads();
	if ((uint64_t)b->threads > chunks)
		b->threads = chunks ? (int)chunks : 1;
	b->width = n + (o->edges ? g->m : 0);
	b->total = calloc(b->width + 1, sizeof *b->total);
	b->part = malloc(((uint64_t)b->threads + 1) * b->width * sizeof *b->part + 1);
	b->work = calloc((size_t)b->threads, sizeof *b->work);
	int failed = !b->total || !b->part || !b->work;
	for (int t = 0; !failed && t < b->threads; t++)
		if (work_alloc(&b->work[t], g) < 0) {
			failed = 1;
			b->threads = t;
		}
	if (failed) {
		gs_bc_free(b);
		return lib_fail(err, "betweenness: out of memory for the searches of %llu vertices",
		                (unsigned long long)n);
	}
	*out = b;
	return 0;
}

static int check_args(uint64_t n, uint32_t type, st_error *err)
{
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "betweenness: unknown element type %u", type);
	if (n > UINT32_MAX)
		return lib_fail(err, "betweenness: %llu vertices (at most 2^32 - 1)",
		                (unsigned long long)n);
	return 0;
}

int gs_bc_new(gs_bc **b, uint64_t n, uint32_t type, uint64_t count, const uint32_t *from,
              const uint32_t *to, const void *w, const gs_bc_opts *o, uint32_t bad[2],
              st_error *err)
{
	btw_graph g = {0};
	*b = NULL;
	if (check_args(n, type, err) < 0)
		return -1;
	for (uint64_t k = 0; k < count; k++)
		if (from[k] >= n || to[k] >= n)
			return lib_fail(err, "betweenness: arc %llu (%u -> %u) past vertex %llu",
			                (unsigned long long)k, from[k], to[k], (unsigned long long)n - 1);
	if (btw_graph_of_arcs(&g, n, type, count, from, to, w, err) < 0)
		return -1;
	return bc_start(&g, o, b, bad, err);
}

int gs_bc_new_matrix(gs_bc **b, uint64_t n, uint32_t type, const void *w, uint64_t stride,
                     const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	btw_graph g = {0};
	*b = NULL;
	if (check_args(n, type, err) < 0
	    || btw_graph_of_matrix(&g, n, type, w, stride, o->threads, err) < 0)
		return -1;
	return bc_start(&g, o, b, bad, err);
}

int gs_bc_add_rows(gs_bc *b, uint64_t first, uint64_t count, const int32_t *rows,
                   uint64_t stride, st_error *err)
{
	if (!b->g.exact) /* (searched at the end, in doubles) */
		return 0;
	if (first != b->next || first + count > b->g.n)
		return lib_fail(err, "betweenness: rows %llu to %llu given after row %llu (of %llu)",
		                (unsigned long long)first, (unsigned long long)(first + count),
		                (unsigned long long)b->next, (unsigned long long)b->g.n);
	if (!b->g.zeros && b->g.m <= BTW_PULL_DEGREE * b->g.n && !b->g.in
	    && btw_graph_groups(&b->g, err) < 0)
		return -1;
	if (count && add_sources(b, first, count, rows, stride) < 0)
		return lib_fail(err, "betweenness: out of memory for the tight arcs");
	return 0;
}

const uint64_t *gs_bc_graph(const gs_bc *b, const uint32_t **arcs, uint64_t *m)
{
	if (!b->g.exact)
		return NULL;
	*arcs = (const uint32_t *)b->g.packed, *m = b->g.m;
	return b->g.first;
}

int gs_bc_add_partials(gs_bc *b, uint64_t first, uint64_t count, const double *partials,
                       st_error *err)
{
	const uint64_t n = b->g.n;
	if (first != b->next || first % BTW_CHUNK || first + count > n
	    || (count % BTW_CHUNK && first + count != n) || b->o.edges)
		return lib_fail(err, "betweenness: the sums of sources %llu to %llu given after source "
		                "%llu (of %llu; chunks of %d%s)", (unsigned long long)first,
		                (unsigned long long)(first + count), (unsigned long long)b->next,
		                (unsigned long long)n, BTW_CHUNK, b->o.edges ? ", no arcs asked" : "");
	for (uint64_t c = 0; c * BTW_CHUNK < count; c++) {
		const double *p = partials + c * n;
#pragma omp parallel for schedule(static) num_threads(b->threads)
		for (uint64_t v = 0; v < n; v++)
			b->total[v] += p[v];
	}
	b->next = first + count;
	return 0;
}

int gs_bc_finish(gs_bc *b, gs_betweenness *out, st_error *err)
{
	memset(out, 0, sizeof *out);
	if (b->next < b->g.n && add_sources(b, b->next, b->g.n - b->next, NULL, 0) < 0)
		return lib_fail(err, "betweenness: out of memory for the searches");
	const btw_graph *g = &b->g;
	out->n = g->n, out->arcs = g->m;
	out->vertex = malloc(g->n * sizeof *out->vertex + 1);
	if (b->o.edges) {
		out->from = malloc(g->m * sizeof *out->from + 1);
		out->to = malloc(g->m * sizeof *out->to + 1);
		out->arc = malloc(g->m * sizeof *out->arc + 1);
	}
	if (!out->vertex || (b->o.edges && (!out->from || !out->to || !out->arc))) {
		gs_betweenness_free(out);
		return lib_fail(err, "betweenness: out of memory for the values");
	}
	memcpy(out->vertex, b->total, g->n * sizeof *out->vertex);
	for (uint64_t a = 0; b->o.edges && a < g->m; a++) { /* by tail, then head */
		const uint64_t p = g->exact ? g->pos[a] : a;
		out->from[p] = g->from[a], out->to[p] = g->to[a];
		out->arc[p] = b->total[g->n + a];
	}
	return 0;
}

void gs_bc_free(gs_bc *b)
{
	if (!b)
		return;
	for (int t = 0; b->work && t < b->threads; t++)
		work_free(&b->work[t]);
	free(b->work), free(b->part), free(b->total);
	btw_graph_free(&b->g);
	free(b);
}

/* Every source searched here. */
static int all_searched(gs_bc *b, int rc, gs_betweenness *out, st_error *err)
{
	memset(out, 0, sizeof *out);
	if (rc != 0)
		return rc;
	rc = gs_bc_finish(b, out, err);
	gs_bc_free(b);
	return rc;
}

/* A dense graph's rows by the CPU engine's rounds, where its matrix takes
 * at most a quarter of the memory (else each source is searched). */
static int rows_by_rounds(gs_bc *b, int threads, st_error *err)
{
	const btw_graph *g = &b->g;
	const uint64_t n = g->n;
	if ((double)n * (double)n * 4.0 > (double)lib_physical_memory() / 4)
		return 0;
	int32_t *d = lib_huge_alloc(n * n * 4 + 1);
	if (!d)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++)
			d[i * n + j] = i == j ? 0 : ST_INF_I32;
	for (uint64_t a = 0; a < g->m; a++)
		d[(uint64_t)g->from[a] * n + g->packed[a].to] = g->packed[a].w;
	const fw_opts fo = {.threads = threads};
	int rc = fw_cpu(&fo, ST_INT32, n, d, NULL, err);
	if (rc == 0)
		rc = gs_bc_add_rows(b, 0, n, d, n, err);
	free(d);
	return rc;
}

static int take_rows(void *ctx, uint64_t first, uint64_t count, const void *rows)
{
	gs_bc *b = ctx;
	st_error err;
	return gs_bc_add_rows(b, first, count, rows, b->g.n, &err);
}

int gs_betweenness_arcs(gs_betweenness *out, uint64_t n, uint32_t type, uint64_t count,
                        const uint32_t *from, const uint32_t *to, const void *w,
                        const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	gs_bc *b;
	int rc = gs_bc_new(&b, n, type, count, from, to, w, o, bad, err);
	if (rc == 0 && type == ST_INT32 && n > 1) { /* the sparse engine's rows, where its fill is small */
		el_factor *f;
		int64_t cycle;
		const int made = el_factor_make(n, type, count, from, to, w, 1, o->threads, n * n / 16,
		                                &f, &cycle, err);
		if (made < 0 || (made == 0 && el_all_rows(f, NULL, n, o->threads, take_rows, b, NULL,
		                                          err) < 0))
			rc = -1;
		if (made == 0)
			el_factor_free(f);
		if (made == 2 && rc == 0)
			rc = rows_by_rounds(b, o->threads, err);
	}
	if (rc < 0)
		gs_bc_free(b);
	return all_searched(b, rc, out, err);
}

int gs_betweenness_matrix(gs_betweenness *out, uint64_t n, uint32_t type, const void *w,
                          uint64_t stride, const gs_bc_opts *o, uint32_t bad[2], st_error *err)
{
	gs_bc *b;
	const int rc = gs_bc_new_matrix(&b, n, type, w, stride, o, bad, err);
	return all_searched(b, rc, out, err);
}

void gs_betweenness_scale(gs_betweenness *b, int normalized, int directed)
{
	const double n = (double)b->n;
	const double sv = normalized ? (b->n > 2 ? 1.0 / ((n - 1) * (n - 2)) : 1.0)
	                             : directed ? 1.0 : 0.5;
	const double se = normalized ? (b->n > 1 ? 1.0 / (n * (n - 1)) : 1.0)
	                             : directed ? 1.0 : 0.5;
	for (uint64_t v = 0; v < b->n; v++)
		b->vertex[v] *= sv;
	for (uint64_t a = 0; b->arc && a < b->arcs; a++)
		b->arc[a] *= se;
}

void gs_betweenness_free(gs_betweenness *b)
{
	free(b->vertex), free(b->from), free(b->to), free(b->arc);
	memset(b, 0, sizeof *b);
}
