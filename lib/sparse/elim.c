/* elim.c - the sparse engine's factor: its structure (the upper neighbours
 * of each position after elimination), its weights, and the work space of
 * the sweeps (see elim.h).  The typed parts are elim_typed.h, once for
 * each element type. */
#include "common.h"
#include "elim.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct el_space {
	void *d;         /* n x EL_BATCH distances, position-major */
	uint8_t *mark;   /* positions the upward sweep reached */
};

static int fail_memory(st_error *err, const char *what, double bytes)
{
	return lib_fail(err, "sparse engine: out of memory for %s (%.1f MiB)", what,
	                bytes / 1048576.0);
}

static int cmp_i32(const void *a, const void *b)
{
	const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* Each position's neighbours above it in the graph, directions dropped
 * (repeats kept): adj[at[p] .. at[p + 1]).  0 or -1. */
static int lower_lists(const el_factor *f, uint64_t count, const uint32_t *from,
                       const uint32_t *to, uint64_t **at, int32_t **adj, st_error *err)
{
	const uint64_t n = f->n;
	uint64_t *a = calloc(n + 1, sizeof *a), used = 0;
	if (!a)
		return fail_memory(err, "the graph's lists", (double)(n + 1) * 8);
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k]) {
			const int32_t p = f->pos[from[k]], q = f->pos[to[k]];
			a[(p < q ? p : q) + 1]++, used++;
		}
	for (uint64_t p = 0; p < n; p++)
		a[p + 1] += a[p];
	int32_t *l = malloc(used * sizeof *l + 1);
	uint64_t *fill = malloc(n * sizeof *fill + 1);
	if (!l || !fill) {
		free(a), free(l), free(fill);
		return fail_memory(err, "the graph's lists", (double)used * 4);
	}
	memcpy(fill, a, n * sizeof *fill);
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k]) {
			const int32_t p = f->pos[from[k]], q = f->pos[to[k]];
			l[fill[p < q ? p : q]++] = p < q ? q : p;
		}
	free(fill);
	*at = a, *adj = l;
	return 0;
}

/* The factor's structure: position p's upper neighbours are its own above
 * it and its children's but itself (the children's are a clique once they
 * are eliminated); its parent is the least of them. */
static int structure(el_factor *f, uint64_t count, const uint32_t *from, const uint32_t *to,
                     st_error *err)
{
	const uint64_t n = f->n;
	uint64_t *at = NULL, cap = 4 * n + 16;
	int32_t *adj = NULL;
	if (lower_lists(f, count, from, to, &at, &adj, err) < 0)
		return -1;
	int32_t *head = malloc(n * sizeof *head + 1), *next = malloc(n * sizeof *next + 1);
	int32_t *mark = malloc(n * sizeof *mark + 1), *tmp = malloc(n * sizeof *tmp + 1);
	f->first = malloc((n + 1) * sizeof *f->first);
	f->parent = malloc(n * sizeof *f->parent + 1);
	f->upper = malloc(cap * sizeof *f->upper);
	int rc = 0;
	if (!head || !next || !mark || !tmp || !f->first || !f->parent || !f->upper) {
		rc = fail_memory(err, "the factor's structure", (double)n * 24 + (double)cap * 4);
		goto out;
	}
	for (uint64_t p = 0; p < n; p++)
		head[p] = -1, mark[p] = -1;
	f->first[0] = 0;
	for (uint64_t p = 0; p < n; p++) {
		uint64_t m = 0;
		for (uint64_t k = at[p]; k < at[p + 1]; k++)
			if (mark[adj[k]] != (int32_t)p)
				mark[adj[k]] = (int32_t)p, tmp[m++] = adj[k];
		for (int32_t c = head[p]; c >= 0; c = next[c])
			for (uint64_t k = f->first[c]; k < f->first[c + 1]; k++) {
				const int32_t q = f->upper[k];
				if (q != (int32_t)p && mark[q] != (int32_t)p)
					mark[q] = (int32_t)p, tmp[m++] = q;
			}
		qsort(tmp, m, sizeof *tmp, cmp_i32);
		const uint64_t end = f->first[p] + m;
		if (end > cap) {
			while (cap < end)
				cap += cap / 2;
			int32_t *grown = realloc(f->upper, cap * sizeof *grown);
			if (!grown) {
				rc = fail_memory(err, "the factor's structure", (double)cap * 4);
				goto out;
			}
			f->upper = grown;
		}
		memcpy(f->upper + f->first[p], tmp, m * sizeof *tmp);
		f->first[p + 1] = end;
		f->widest = m > f->widest ? m : f->widest;
		f->parent[p] = m ? tmp[0] : -1;
		if (m)
			next[p] = head[tmp[0]], head[tmp[0]] = (int32_t)p;
	}
out:
	free(at), free(adj), free(head), free(next), free(mark), free(tmp);
	return rc;
}

/* The entry of q's list that holds position r (which is there). */
static uint64_t entry_of(const el_factor *f, int32_t q, int32_t r)
{
	uint64_t lo = f->first[q], hi = f->first[q + 1];
	while (hi - lo > 1) {
		const uint64_t mid = lo + (hi - lo) / 2;
		if (f->upper[mid] <= r)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

#define EL_T int32_t
#define EL_I int32_t
#define EL_NAME(x) x##_i32
#define EL_INF ST_INF_I32
#define EL_FIN(x) ((x) < ST_INF_I32)
#include "elim_typed.h"
#define EL_T float
#define EL_I int32_t
#define EL_NAME(x) x##_f32
#define EL_INF INFINITY
#define EL_FIN(x) ((x) < INFINITY)
#include "elim_typed.h"
#define EL_T double
#define EL_I int64_t
#define EL_NAME(x) x##_f64
#define EL_INF INFINITY
#define EL_FIN(x) ((x) < INFINITY)
#include "elim_typed.h"

/* int32: the paths' bound as sv_prepare() takes it (each vertex's largest
 * out-weight summed, and its least), so that no sum overflows. */
static int int32_bound(uint64_t n, uint64_t count, const uint32_t *from, const uint32_t *to,
                       const int32_t *w, st_error *err)
{
	int32_t *most = calloc(n, sizeof *most), *least = calloc(n, sizeof *least);
	if (!most || !least) {
		free(most), free(least);
		return fail_memory(err, "the weights' bound", (double)n * 8);
	}
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k]) {
			most[from[k]] = w[k] > most[from[k]] ? w[k] : most[from[k]];
			least[from[k]] = w[k] < least[from[k]] ? w[k] : least[from[k]];
		}
	int64_t pos = 0, neg = 0;
	for (uint64_t v = 0; v < n && pos < ST_INF_I32 && neg < ST_INF_I32; v++)
		pos += most[v], neg -= least[v];
	free(most), free(least);
	if (pos >= ST_INF_I32 || neg >= ST_INF_I32)
		return lib_fail(err, "int32 distances could overflow (path bound %lld >= %d); import as "
		                "float32", (long long)(pos >= ST_INF_I32 ? pos : -neg), ST_INF_I32);
	return 0;
}

int el_factor_plan(uint64_t n, uint64_t count, const uint32_t *from, const uint32_t *to,
                   const int32_t *perm, el_factor **out, st_error *err)
{
	*out = NULL;
	if (n > ST_MAX_N)
		return lib_fail(err, "sparse engine: n = %llu is over the limit of %llu vertices",
		                (unsigned long long)n, (unsigned long long)ST_MAX_N);
	el_factor *f = calloc(1, sizeof *f);
	if (!f)
		return fail_memory(err, "the factor", sizeof *f);
	f->n = n;
	f->perm = malloc(n * sizeof *f->perm + 1);
	f->pos = malloc(n * sizeof *f->pos + 1);
	if (!f->perm || !f->pos) {
		el_factor_free(f);
		return fail_memory(err, "the order", (double)n * 8);
	}
	for (uint64_t p = 0; p < n; p++)
		f->perm[p] = perm ? perm[p] : (int32_t)p;
	for (uint64_t p = 0; p < n; p++)
		f->pos[f->perm[p]] = (int32_t)p;
	if (structure(f, count, from, to, err) < 0) {
		el_factor_free(f);
		return -1;
	}
	*out = f;
	return 0;
}

int el_factor_weigh(el_factor *f, uint32_t type, uint64_t count, const uint32_t *from,
                    const uint32_t *to, const void *w, int64_t *cycle_vertex, st_error *err)
{
	if (type == ST_INT32 && int32_bound(f->n, count, from, to, w, err) < 0)
		return -1;
	const uint64_t entries = f->first[f->n], es = ST_TYPE_SIZE(type);
	f->type = type;
	free(f->up), free(f->down);
	f->up = malloc(entries * es + 1), f->down = malloc(entries * es + 1);
	if (!f->up || !f->down)
		return fail_memory(err, "the factor's weights", (double)entries * 2 * es);
	int64_t cycle = type == ST_INT32   ? eliminate_i32(f, count, from, to, w)
	              : type == ST_FLOAT32 ? eliminate_f32(f, count, from, to, w)
	                                   : eliminate_f64(f, count, from, to, w);
	if (cycle >= 0) {
		*cycle_vertex = cycle;
		return 1;
	}
	return 0;
}

void el_factor_free(el_factor *f)
{
	if (!f)
		return;
	free(f->perm), free(f->pos), free(f->first), free(f->upper), free(f->up), free(f->down);
	free(f->parent);
	free(f);
}

uint64_t el_factor_entries(const el_factor *f)
{
	return f->first[f->n];
}

uint64_t el_factor_bytes(const el_factor *f)
{
	return f->first[f->n] * (4 + 2 * (uint64_t)ST_TYPE_SIZE(f->type)) + f->n * 24;
}

el_space *el_space_new(const el_factor *f)
{
	el_space *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->d = aligned_alloc(64, (f->n * EL_BATCH * ST_TYPE_SIZE(f->type) + 63) / 64 * 64);
	s->mark = malloc(f->n + 1);
	if (!s->d || !s->mark) {
		el_space_free(s);
		return NULL;
	}
	return s;
}

void el_space_free(el_space *s)
{
	if (!s)
		return;
	free(s->d), free(s->mark);
	free(s);
}

void el_rows(const el_factor *f, el_space *s, const uint32_t *src, int count, void *rows,
             uint64_t stride, uint64_t *relaxations)
{
	uint64_t r = f->type == ST_INT32   ? rows_i32(f, s, src, count, rows, stride)
	           : f->type == ST_FLOAT32 ? rows_f32(f, s, src, count, rows, stride)
	                                   : rows_f64(f, s, src, count, rows, stride);
	if (relaxations)
		*relaxations += r * (uint64_t)count;
}
