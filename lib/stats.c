/* stats.c - graph statistics from all-pairs distances (see stats.h).
 *
 * A batch of rows is read twice from memory: once split by rows for the
 * out figures (each row's own reduction), once split by columns for the in
 * figures, each task a strip of columns adding the batch's rows in order,
 * so that every column's floating sum is made in row order whatever the
 * thread count.  The diagonal (0) is counted as any entry and
 * taken back out at the end of the batch.  The threads are the stream's
 * pool's (lib/pool.c), which sleep when idle: OpenMP's spin after a loop
 * and took the cores of the reader that inflates the next batch. */
#include "stats.h"
#include "common.h"
#include "pool.h"
#include "stream.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Columns a thread takes at a time: its accumulators stay in cache. */
#define GS_STRIP 512

int gs_init(gs_stats *s, uint64_t n, uint32_t type, st_error *err)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->type = type;
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", type);
	size_t k = n ? (size_t)n : 1;
	size_t esum = type == ST_INT32 ? sizeof(int64_t) : sizeof(double);
	for (int dir = 0; dir < 2; dir++) {
		s->reach[dir] = calloc(k, sizeof(uint64_t));
		s->sum[dir] = calloc(k, esum);
		s->ecc[dir] = calloc(k, ST_TYPE_SIZE(type)); /* 0, 0.0f and 0.0 alike */
	}
	s->harmonic = calloc(k, sizeof(double));
	if (!s->reach[0] || !s->reach[1] || !s->sum[0] || !s->sum[1] || !s->ecc[0] || !s->ecc[1]
	    || !s->harmonic) {
		gs_free(s);
		return lib_fail(err, "out of memory for the statistics of %llu vertices",
		                (unsigned long long)n);
	}
	return 0;
}

void gs_free(gs_stats *s)
{
	for (int dir = 0; dir < 2; dir++) {
		free(s->reach[dir]);
		free(s->sum[dir]);
		free(s->ecc[dir]);
		s->reach[dir] = NULL, s->sum[dir] = NULL, s->ecc[dir] = NULL;
	}
	free(s->harmonic);
	s->harmonic = NULL;
}

/* The folds built for AVX-512 and AVX2 too, taken where the processor has
 * them (the baseline's SSE2 has no vectors of their 64-bit sums), and
 * without floating-point traps: with them GCC keeps the division that a
 * condition may discard out of vectors.  No result changes. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GS_VECTORS __attribute__((target_clones("arch=x86-64-v4", "avx2", "default"), optimize("O3", "no-trapping-math")))
#else
#define GS_VECTORS
#endif

/* A batch being folded, for the pool's bodies. */
struct batch {
	gs_stats *s;
	uint64_t first, rows, stride;
	const void *d;
};

/* Rows a task of the out figures takes. */
#define GS_ROW_TASK 16

/* The out figures of rows [first + 16 i, ...): one row at a time. */
#define GS_ROWS(T, S, FINITE)                                                       \
GS_VECTORS static void rows_##T(void *ctx, int t, uint64_t i, struct pool *p)                \
{                                                                                   \
	const struct batch *b = ctx;                                                    \
	gs_stats *s = b->s;                                                             \
	const uint64_t n = s->n, k1 = (i + 1) * GS_ROW_TASK < b->rows                  \
	                                  ? (i + 1) * GS_ROW_TASK : b->rows;            \
	const T *d = b->d;                                                              \
	const uint64_t stride = b->stride;                                              \
	for (uint64_t k = i * GS_ROW_TASK; k < k1; k++) {                               \
		const T *row = d + k * stride;                                              \
		uint64_t cnt = 0;                                                           \
		S sum = 0;                                                                  \
		T ecc = 0;                                                                  \
		_Pragma("omp simd reduction(+ : cnt) reduction(max : ecc)")                  \
		for (uint64_t v = 0; v < n; v++) {                                          \
			const T x = row[v];                                                     \
			const int fin = FINITE(x);                                              \
			cnt += (uint64_t)fin;                                                   \
			ecc = fin && x > ecc ? x : ecc;                                         \
		}                                                                           \
		/* the sum in order: float sums must not depend on vector width */         \
		for (uint64_t v = 0; v < n; v++)                                            \
			sum += FINITE(row[v]) ? (S)row[v] : (S)0;                               \
		const uint64_t u = b->first + k;                                            \
		T *e = (T *)s->ecc[GS_OUT] + u;                                             \
		s->reach[GS_OUT][u] += cnt;                                                 \
		((S *)s->sum[GS_OUT])[u] += sum;                                            \
		*e = ecc > *e ? ecc : *e;                                                   \
	}                                                                               \
	(void)t, (void)p;                                                               \
}

/* The in figures of the same rows: strip i of columns, rows in order, four
 * rows a pass over the strip (each column's figures loaded once and
 * updated row after row: the same additions in the same order). */
#define GS_COLS(T, S, FINITE)                                                       \
GS_VECTORS static void cols_##T(void *ctx, int t, uint64_t st, struct pool *p)               \
{                                                                                   \
	const struct batch *b = ctx;                                                    \
	const gs_stats *s = b->s;                                                       \
	const uint64_t n = s->n, rows = b->rows, stride = b->stride;                    \
	const uint64_t c0 = st * GS_STRIP, c1 = c0 + GS_STRIP < n ? c0 + GS_STRIP : n;  \
	const T *d = b->d;                                                              \
	uint64_t *restrict reach = s->reach[GS_IN];                                     \
	S *restrict sum = s->sum[GS_IN];                                                \
	T *restrict ecc = s->ecc[GS_IN];                                                \
	double *restrict harm = s->harmonic;                                            \
	uint64_t k = 0;                                                                 \
	for (; k + 4 <= rows; k += 4) {                                                 \
		const T *r0 = d + k * stride, *r1 = r0 + stride, *r2 = r1 + stride,         \
		        *r3 = r2 + stride;                                                  \
		_Pragma("omp simd")                                                          \
		for (uint64_t v = c0; v < c1; v++) {                                        \
			GS_COL_LOAD(T, S);                                                      \
			GS_COL_STEP(T, S, FINITE, r0[v]);                                       \
			GS_COL_STEP(T, S, FINITE, r1[v]);                                       \
			GS_COL_STEP(T, S, FINITE, r2[v]);                                       \
			GS_COL_STEP(T, S, FINITE, r3[v]);                                       \
			reach[v] = c, sum[v] = sm, ecc[v] = e, harm[v] = h;                     \
		}                                                                           \
	}                                                                               \
	for (; k < rows; k++) {                                                         \
		const T *row = d + k * stride;                                              \
		_Pragma("omp simd")                                                          \
		for (uint64_t v = c0; v < c1; v++) {                                        \
			GS_COL_LOAD(T, S);                                                      \
			GS_COL_STEP(T, S, FINITE, row[v]);                                      \
			reach[v] = c, sum[v] = sm, ecc[v] = e, harm[v] = h;                     \
		}                                                                           \
	}                                                                               \
	(void)t, (void)p;                                                               \
}

/* Column v's figures, into c, sm, e, h; then one entry x of the column
 * into them: branch-free, so that the compiler makes vectors of it. */
#define GS_COL_LOAD(T, S)                                                           \
	uint64_t c = reach[v];                                                          \
	S sm = sum[v];                                                                  \
	T e = ecc[v];                                                                   \
	double h = harm[v]

#define GS_COL_STEP(T, S, FINITE, X)                                                \
	do {                                                                            \
		const T x = (X);                                                            \
		const int fin = FINITE(x);                                                  \
		const double r = 1.0 / (double)x;                                           \
		c += (uint64_t)fin;                                                         \
		sm += fin ? (S)x : (S)0;                                                    \
		e = fin && x > e ? x : e;                                                   \
		h += fin && x != 0 ? r : 0.0;                                               \
	} while (0)

#define FINITE_I32(x) ((x) < ST_INF_I32)
#define FINITE_F32(x) ((x) < INFINITY)
GS_ROWS(int32_t, int64_t, FINITE_I32)
GS_ROWS(float, double, FINITE_F32)
GS_ROWS(double, double, FINITE_F32)
GS_COLS(int32_t, int64_t, FINITE_I32)
GS_COLS(float, double, FINITE_F32)
GS_COLS(double, double, FINITE_F32)

void gs_add_rows(gs_stats *s, uint64_t first, uint64_t rows, const void *d, uint64_t stride,
                 int threads)
{
	struct batch b = {s, first, rows, stride, d};
	const int t = s->type == ST_INT32 ? 0 : s->type == ST_FLOAT32 ? 1 : 2;
	static pool_body *const rows_fn[3] = {
		rows_int32_t, rows_float, rows_double};
	static pool_body *const cols_fn[3] = {
		cols_int32_t, cols_float, cols_double};
	threads = lib_threads(threads);
	pool_run(threads, (rows + GS_ROW_TASK - 1) / GS_ROW_TASK, rows_fn[t], &b);
	pool_run(threads, (s->n + GS_STRIP - 1) / GS_STRIP, cols_fn[t], &b);
	/* The diagonal was counted as reached (d(u,u) = 0 adds nothing else). */
	for (uint64_t k = 0; k < rows; k++) {
		const uint64_t u = first + k;
		if (u >= s->n)
			break;
		const int finite = t == 0 ? FINITE_I32(((const int32_t *)d)[k * stride + u])
		                   : t == 1 ? FINITE_F32(((const float *)d)[k * stride + u])
		                   : FINITE_F32(((const double *)d)[k * stride + u]);
		if (finite) {
			s->reach[GS_OUT][u]--;
			s->reach[GS_IN][u]--;
		}
	}
}

double gs_sum(const gs_stats *s, int dir, uint64_t u)
{
	return s->type == ST_INT32 ? (double)((const int64_t *)s->sum[dir])[u]
	                           : ((const double *)s->sum[dir])[u];
}

double gs_ecc(const gs_stats *s, int dir, uint64_t u)
{
	return s->type == ST_INT32 ? (double)((const int32_t *)s->ecc[dir])[u]
	       : s->type == ST_FLOAT32 ? (double)((const float *)s->ecc[dir])[u]
	                               : ((const double *)s->ecc[dir])[u];
}

double gs_closeness(const gs_stats *s, uint64_t u)
{
	const double reach = (double)s->reach[GS_IN][u], sum = gs_sum(s, GS_IN, u);
	if (!(sum > 0) || s->n < 2)
		return 0;
	return reach / sum * (reach / (double)(s->n - 1));
}

void gs_summarize(const gs_stats *s, gs_summary *out)
{
	memset(out, 0, sizeof *out);
	out->n = s->n;
	out->wiener_exact = s->type == ST_INT32;
	__int128 wiener = 0;
	for (uint64_t u = 0; u < s->n; u++) {
		const double e = gs_ecc(s, GS_OUT, u);
		out->pairs += s->reach[GS_OUT][u];
		if (u == 0 || e > out->diameter)
			out->diameter = e;
		if (u == 0 || e < out->radius)
			out->radius = e;
		if (s->type == ST_INT32)
			wiener += ((const int64_t *)s->sum[GS_OUT])[u];
		else
			out->wiener += ((const double *)s->sum[GS_OUT])[u];
	}
	if (s->type == ST_INT32) {
		out->wiener = (double)wiener;
		out->wiener_exact = wiener <= INT64_MAX && wiener >= INT64_MIN;
		out->wiener_i = out->wiener_exact ? (int64_t)wiener : 0;
		out->diameter_i = (int64_t)out->diameter;
		out->radius_i = (int64_t)out->radius;
	}
	out->average = out->pairs ? out->wiener / (double)out->pairs : 0;
}
