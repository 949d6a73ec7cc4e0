/* solve.c - engine preparation: distances from weights, negative cycles,
 * Johnson reweighting for int32, the overflow bound, and the way back.
 * See solve.h for the contract every kernel relies on. */
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "common.h"



/* What one pass over a row of the weight matrix learns. */
struct row_facts {
	int64_t max_out;  /* largest finite outgoing weight (i != j), or 0 */
	int64_t min_out;  /* smallest finite outgoing weight, or 0 */
	uint64_t edges;   /* finite entries off the diagonal */
	int neg_diag;     /* the diagonal entry is negative */
	int bad;          /* a value outside the int32 contract, or NaN */
};

/* Copy row i of the weights (stride npad) into dist and pred (stride n). */
static void copy_row_i32(const int32_t *w, int32_t *d, int32_t *pred,
                         uint64_t n, uint64_t i, struct row_facts *f)
{
	int64_t mx = 0, mn = 0;
	uint64_t edges = 0;

	for (uint64_t j = 0; j < n; j++) {
		int32_t x = w[j];
		if (x > ST_INF_I32 || x <= -ST_INF_I32)
			f->bad = 1, x = ST_INF_I32;
		if (j == i) {
			if (x < 0)
				f->neg_diag = 1;
			d[j] = 0;
			if (pred)
				pred[j] = -1;
			continue;
		}
		d[j] = x;
		if (x < ST_INF_I32) {
			edges++;
			if (x > mx)
				mx = x;
			if (x < mn)
				mn = x;
		}
		if (pred)
			pred[j] = x < ST_INF_I32 ? (int32_t)i : -1;
	}
	f->max_out = mx, f->min_out = mn, f->edges = edges;
}

/* copy_row_i32() in place without predecessors: the facts read, and the
 * row written only at its diagonal (and where a weight is out of range), so
 * a matrix read straight into place is not written over again. */
static void facts_row_i32(int32_t *d, uint64_t n, uint64_t i, struct row_facts *f)
{
	int32_t mx = 0, mn = 0;
	uint64_t edges = 0;
	int bad = 0;

	for (int part = 0; part < 2; part++) {
		uint64_t lo = part ? i + 1 : 0, hi = part ? n : i;
		#pragma omp simd reduction(max : mx) reduction(min : mn) reduction(+ : edges) \
			reduction(| : bad)
		for (uint64_t j = lo; j < hi; j++) {
			int32_t x = d[j];
			bad |= (x > ST_INF_I32) | (x <= -ST_INF_I32);
			int fin = x < ST_INF_I32;
			edges += (uint64_t)fin;
			int32_t v = fin ? x : 0;
			mx = v > mx ? v : mx;
			mn = v < mn ? v : mn;
		}
	}
	bad |= (d[i] > ST_INF_I32) | (d[i] <= -ST_INF_I32);
	if (bad) { /* an error for the caller; the row as copy_row_i32 leaves it */
		copy_row_i32(d, d, NULL, n, i, f);
		return;
	}
	f->neg_diag = d[i] < 0 && d[i] > -ST_INF_I32;
	d[i] = 0;
	f->max_out = mx, f->min_out = mn, f->edges = edges;
}

/* A float32 or float64 row: NaN and -infinity are errors. */
#define COPY_ROW_FLOAT(NAME, T)                                                 \
static void NAME(const T *w, T *d, int32_t *pred, uint64_t n, uint64_t i,       \
                 struct row_facts *f)                                           \
{                                                                               \
	uint64_t edges = 0;                                                     \
	int64_t mn = 0;                                                         \
	for (uint64_t j = 0; j < n; j++) {                                      \
		T x = w[j];                                                     \
		if (isnan(x) || x == -INFINITY)                                 \
			f->bad = 1, x = INFINITY;                               \
		if (j == i) {                                                   \
			if (x < 0)                                              \
				f->neg_diag = 1;                                \
			d[j] = 0;                                               \
			if (pred)                                               \
				pred[j] = -1;                                   \
			continue;                                               \
		}                                                               \
		d[j] = x;                                                       \
		if (x < INFINITY) {                                             \
			edges++;                                                \
			if (x < 0)                                              \
				mn = -1;                                        \
		}                                                               \
		if (pred)                                                       \
			pred[j] = x < INFINITY ? (int32_t)i : -1;               \
	}                                                                       \
	f->max_out = 0, f->min_out = mn, f->edges = edges;                      \
}
COPY_ROW_FLOAT(copy_row_f32, float)
COPY_ROW_FLOAT(copy_row_f64, double)

/* The finite edges of the distance matrix as compressed rows. */
struct csr {
	uint64_t *start;   /* n + 1 */
	int32_t *head;
	double *weight;    /* exact for int32 weights, float32 and float64 */
};

static void csr_free(struct csr *g)
{
	free(g->start), free(g->head), free(g->weight);
}

static int csr_build(struct csr *g, const void *dist, uint32_t type, uint64_t n,
                     const struct row_facts *facts, int threads)
{
	uint64_t m = 0;

	g->start = malloc((n + 1) * sizeof *g->start);
	if (!g->start)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		g->start[i] = m, m += facts[i].edges;
	g->start[n] = m;
	g->head = malloc((m ? m : 1) * sizeof *g->head);
	g->weight = malloc((m ? m : 1) * sizeof *g->weight);
	if (!g->head || !g->weight)
		return -1;
	#pragma omp parallel for schedule(dynamic, 64) LIB_OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		uint64_t e = g->start[i];
		for (uint64_t j = 0; j < n; j++) {
			double x;
			if (j == i)
				continue;
			if (type == ST_INT32) {
				int32_t v = ((const int32_t *)dist)[i * n + j];
				if (v >= ST_INF_I32)
					continue;
				x = v;
			} else {
				x = type == ST_FLOAT32 ? ((const float *)dist)[i * n + j]
				                       : ((const double *)dist)[i * n + j];
				if (x == INFINITY)
					continue;
			}
			g->head[e] = (int32_t)j, g->weight[e] = x, e++;
		}
	}
	return 0;
}

/* Shortest distances from a virtual source joined to every vertex by a
 * zero-weight edge (queue-based Bellman-Ford).  Returns -1 when done, or a
 * vertex on a negative cycle.  h receives the distances (all <= 0). */
static int64_t potentials(const struct csr *g, uint64_t n, double *h, int *ok)
{
	int64_t *parent = malloc(n * sizeof *parent);
	uint64_t *len = malloc(n * sizeof *len);
	uint64_t *queue = malloc(n * sizeof *queue);
	char *queued = malloc(n);
	uint64_t qhead = 0, qcount = n;
	int64_t cycle = -1;

	*ok = parent && len && queue && queued;
	if (!*ok)
		goto out;
	for (uint64_t v = 0; v < n; v++)
		h[v] = 0, parent[v] = -1, len[v] = 0, queue[v] = v, queued[v] = 1;
	while (qcount > 0 && cycle < 0) {
		uint64_t u = queue[qhead];
		qhead = (qhead + 1) % n, qcount--;
		queued[u] = 0;
		for (uint64_t e = g->start[u]; e < g->start[u + 1]; e++) {
			uint64_t v = (uint64_t)g->head[e];
			double dv = h[u] + g->weight[e];
			if (!(dv < h[v]))
				continue;
			h[v] = dv, parent[v] = (int64_t)u, len[v] = len[u] + 1;
			if (len[v] >= n) {
				/* A path of n edges repeats a vertex.  The parent
				 * links change as labels fall, so check them: n steps
				 * back without reaching the source land on a cycle of
				 * parent links, and such a cycle is always negative. */
				int64_t x = (int64_t)v;
				for (uint64_t s = 0; s < n && x >= 0; s++)
					x = parent[x];
				if (x >= 0) {
					cycle = x;
					break;
				}
			}
			if (!queued[v]) {
				queue[(qhead + qcount) % n] = v, qcount++;
				queued[v] = 1;
			}
		}
	}
out:
	free(parent), free(len), free(queue), free(queued);
	return cycle;
}

int sv_prepare(const st_header *h, const void *weights, void *dist,
               int32_t *pred, int threads, sv_plan *p, st_error *err)
{
	uint64_t n = h->n, npad = h->npad;
	struct row_facts *facts;
	int negative = 0, bad = 0;
	int64_t neg_diag = -1;
	int rc = -1;

	memset(p, 0, sizeof *p);
	p->n = n, p->type = h->type, p->cycle_vertex = -1;
	if (h->type != ST_INT32 && h->type != ST_FLOAT32 && h->type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", h->type);
	if (npad < n)
		return lib_fail(err, "padded size %llu below n %llu",
		            (unsigned long long)npad, (unsigned long long)n);
	if (n == 0)
		return 0;
	if (!(facts = calloc(n, sizeof *facts)))
		return lib_fail(err, "out of memory");

	#pragma omp parallel for schedule(static) LIB_OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		if (h->type == ST_INT32 && weights == dist && npad == n && !pred)
			facts_row_i32((int32_t *)dist + i * n, n, i, &facts[i]);
		else if (h->type == ST_INT32)
			copy_row_i32((const int32_t *)weights + i * npad,
			             (int32_t *)dist + i * n, pred ? pred + i * n : NULL,
			             n, i, &facts[i]);
		else if (h->type == ST_FLOAT32)
			copy_row_f32((const float *)weights + i * npad,
			             (float *)dist + i * n, pred ? pred + i * n : NULL,
			             n, i, &facts[i]);
		else
			copy_row_f64((const double *)weights + i * npad,
			             (double *)dist + i * n, pred ? pred + i * n : NULL,
			             n, i, &facts[i]);
	}

	int64_t pos_bound = 0, neg_bound = 0;
	for (uint64_t i = 0; i < n; i++) {
		bad |= facts[i].bad;
		if (facts[i].neg_diag && neg_diag < 0)
			neg_diag = (int64_t)i;
		if (facts[i].min_out < 0)
			negative = 1;
		if (pos_bound < ST_INF_I32)
			pos_bound += facts[i].max_out;
		if (neg_bound < ST_INF_I32)
			neg_bound -= facts[i].min_out;
	}
	if (bad) {
		if (h->type == ST_INT32)
			lib_fail(err, "weight outside the int32 range (-%d, %d]",
			     ST_INF_I32, ST_INF_I32);
		else
			lib_fail(err, "weight is NaN or -infinity");
		goto out;
	}
	if (neg_diag >= 0) {
		p->cycle_vertex = neg_diag;
		rc = 1;
		goto out;
	}
	if (h->type == ST_INT32 && (pos_bound >= ST_INF_I32 || neg_bound >= ST_INF_I32)) {
		lib_fail(err, "int32 distances could overflow (a path may weigh up to %lld, "
		         "int32 holds %d): import as float64 (mtx2bin -t float64, exact to 2^53) "
		         "or float32",
		     (long long)(pos_bound >= ST_INF_I32 ? pos_bound : -neg_bound), ST_INF_I32);
		goto out;
	}
	if (!negative) {
		rc = 0;
		goto out;
	}

	/* Negative edges: look for a negative cycle, and for int32 take the
	 * potentials that make every edge non-negative. */
	struct csr g = {0};
	double *hd = malloc(n * sizeof *hd);
	int ok;
	if (!hd || csr_build(&g, dist, h->type, n, facts, threads) < 0) {
		free(hd), csr_free(&g);
		lib_fail(err, "out of memory");
		goto out;
	}
	int64_t cycle = potentials(&g, n, hd, &ok);
	csr_free(&g);
	if (!ok) {
		free(hd);
		lib_fail(err, "out of memory");
		goto out;
	}
	if (cycle >= 0) {
		free(hd);
		p->cycle_vertex = cycle;
		rc = 1;
		goto out;
	}
	if (h->type != ST_INT32) {
		free(hd);
		rc = 0;
		goto out;
	}

	int64_t *pot = malloc(n * sizeof *pot);
	if (!pot) {
		free(hd);
		lib_fail(err, "out of memory");
		goto out;
	}
	for (uint64_t v = 0; v < n; v++)
		pot[v] = (int64_t)hd[v];
	free(hd);

	/* w' = w + h[u] - h[v] >= 0.  A simple path has at most one edge out of
	 * each vertex, so the sum of each vertex's largest w' bounds it. */
	int64_t rbound = 0;
	#pragma omp parallel for schedule(static) reduction(+:rbound) LIB_OMP_THREADS(threads)
	for (uint64_t u = 0; u < n; u++) {
		int32_t *d = (int32_t *)dist + u * n;
		int64_t mx = 0;
		for (uint64_t v = 0; v < n; v++) {
			if (v == u || d[v] >= ST_INF_I32)
				continue;
			int64_t x = (int64_t)d[v] + pot[u] - pot[v];
			if (x > mx)
				mx = x;
			d[v] = x < ST_INF_I32 ? (int32_t)x : ST_INF_I32 - 1;
		}
		rbound += mx;
	}
	if (rbound >= ST_INF_I32) {
		free(pot);
		lib_fail(err, "int32 distances could overflow (a path may weigh up to %lld, "
		         "int32 holds %d): import as float64 (mtx2bin -t float64, exact to 2^53) "
		         "or float32",
		     (long long)rbound, ST_INF_I32);
		goto out;
	}
	p->potential = pot;
	rc = 0;
out:
	free(facts);
	return rc;
}

/* The facts of row i of a band, read only (sv_band_facts). */
static void band_row_facts(uint32_t type, const void *row, uint64_t n, uint64_t i, sv_facts *f)
{
	uint64_t edges = 0;
	int bad = 0, zero = 0, neg = 0;
	int64_t mx = 0;
	if (type == ST_INT32) {
		const int32_t *d = row;
		int32_t m = 0;
		#pragma omp simd reduction(+ : edges) reduction(| : bad, zero, neg) reduction(max : m)
		for (uint64_t j = 0; j < n; j++) {
			const int32_t x = d[j];
			const int off = j != i, fin = off & (x < ST_INF_I32);
			bad |= (x > ST_INF_I32) | (x <= -ST_INF_I32);
			edges += (uint64_t)fin;
			zero |= off & (x == 0);
			neg |= fin & (x < 0);
			m = fin && x > m ? x : m;
		}
		mx = m;
		if (d[i] < 0 && d[i] > -ST_INF_I32 && f->neg_diag < 0)
			f->neg_diag = (int64_t)i;
	} else {
		const float *d = row;
		#pragma omp simd reduction(+ : edges) reduction(| : bad, zero, neg)
		for (uint64_t j = 0; j < n; j++) {
			const float x = d[j];
			const int off = j != i, fin = off & (x < INFINITY);
			bad |= isnan(x) | (x == -INFINITY);
			edges += (uint64_t)fin;
			zero |= off & (x == 0);
			neg |= fin & (x < 0);
		}
		if (d[i] < 0 && f->neg_diag < 0)
			f->neg_diag = (int64_t)i;
	}
	f->edges += edges;
	f->bad |= bad, f->zero |= zero, f->negative |= neg;
	if (f->pos_bound < ST_INF_I32)
		f->pos_bound += mx;
}

int sv_band_facts(uint32_t type, uint64_t n, const void *rows, uint64_t first, uint64_t count,
                  int threads, sv_facts *f, st_error *err)
{
	memset(f, 0, sizeof *f);
	f->neg_diag = -1;
	if (type != ST_INT32 && type != ST_FLOAT32)
		return lib_fail(err, "%s weights are not taken a band at a time", st_type_name(type));
	sv_facts *part = calloc(count ? count : 1, sizeof *part);
	if (!part)
		return lib_fail(err, "out of memory");
	#pragma omp parallel for schedule(static) LIB_OMP_THREADS(threads)
	for (uint64_t k = 0; k < count; k++) {
		part[k].neg_diag = -1;
		band_row_facts(type, (const char *)rows + k * n * 4, n, first + k, &part[k]);
	}
	for (uint64_t k = 0; k < count; k++)
		sv_facts_add(f, &part[k]);
	free(part);
	return 0;
}

void sv_facts_add(sv_facts *f, const sv_facts *later)
{
	f->edges += later->edges;
	f->bad |= later->bad, f->zero |= later->zero, f->negative |= later->negative;
	if (later->neg_diag >= 0 && f->neg_diag < 0)
		f->neg_diag = later->neg_diag;
	if (f->pos_bound < ST_INF_I32)
		f->pos_bound += later->pos_bound;
}

const char *sv_facts_need(uint32_t type, const sv_facts *f)
{
	if (f->bad || f->neg_diag >= 0 || f->negative)
		return "a weight below zero or out of range";
	if (type == ST_INT32 && f->pos_bound >= ST_INF_I32)
		return "int32 distances could overflow";
	return NULL;
}

void sv_finish(sv_plan *p, void *dist, int threads)
{
	sv_finish_rows(p, dist, 0, p->n, threads);
}

void sv_finish_rows(sv_plan *p, void *dist, uint64_t first, uint64_t rows, int threads)
{
	uint64_t n = p->n;
	const int64_t *pot = p->potential;

	if (p->type != ST_INT32 || !pot)
		return;
	#pragma omp parallel for schedule(static) LIB_OMP_THREADS(threads)
	for (uint64_t u = first; u < first + rows; u++) {
		int32_t *d = (int32_t *)dist + (u - first) * n;
		for (uint64_t v = 0; v < n; v++)
			if (d[v] < ST_INF_I32)
				d[v] = (int32_t)(d[v] + pot[v] - pot[u]);
	}
}

void sv_plan_free(sv_plan *p)
{
	free(p->potential);
	p->potential = NULL;
}

int sv_result_header(const st_header *in, int paths, st_header *out, st_error *err)
{
	memset(out, 0, sizeof *out);
	out->n = in->n;
	out->npad = in->n;
	out->type = in->type;
	out->matrices = ST_DIST | (paths ? ST_PRED : 0);
	out->flags = in->flags & ~(uint32_t)ST_NEGCYCLE;
	out->block = in->block ? in->block : ST_BLOCK_DEFAULT;
	out->inf_i32 = ST_INF_I32;
	out->cycle_vertex = -1;
	out->provenance = strdup(in->provenance ? in->provenance : "");
	if (!out->provenance)
		return lib_fail(err, "out of memory");
	return 0;
}
