/* stats.c - graph statistics from all-pairs distances (see stats.h).
 *
 * A batch of rows is read twice from memory: once split by rows for the
 * out figures (each row's own reduction), once split by columns for the in
 * figures, each task a strip of columns adding the batch's rows in order,
 * so that every column's floating sum is made in row order whatever the
 * thread count.  The diagonal (0) is counted as any entry and
 * taken back out at the end of the batch.  The threads are the stream's
 * pool's (lib/common/pool.c), which sleep when idle: OpenMP's spin after a loop
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

/* Each vertex's reach (8 bytes), sum (8) and eccentricity (the element)
 * out and in, and its harmonic sum (8). */
static size_t sum_size(uint32_t type)
{
	return type == ST_INT32 ? sizeof(int64_t) : sizeof(double);
}

double gs_bytes(uint64_t n, uint32_t type)
{
	return (double)n * (2.0 * (sizeof(uint64_t) + sum_size(type) + ST_TYPE_SIZE(type))
	                    + sizeof(double));
}

int gs_init(gs_stats *s, uint64_t n, uint32_t type, st_error *err)
{
	memset(s, 0, sizeof *s);
	s->n = n;
	s->type = type;
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type %u", type);
	size_t k = n ? (size_t)n : 1;
	const size_t esum = sum_size(type);
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

/* Rows a task of the out figures takes. */
#define GS_ROW_TASK 16

/* The out figures of rows [first + 16 i, ...): one row at a time. */
#define GS_ROWS(T, S, FINITE)                                                       \
GS_VECTORS static void rows_##T(const gs_batch *b, uint64_t i)                              \
{                                                                                   \
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
}

/* The in figures of the same rows: strip i of columns, rows in order, four
 * rows a pass over the strip (each column's figures loaded once and
 * updated row after row: the same additions in the same order).  After
 * each row's pass, ROW(b, st, k, row, c0, c1) (GS_NO_ROW: nothing). */
#define GS_COLS(NAME, T, S, FINITE, ROW)                                            \
GS_VECTORS static void NAME(const gs_batch *b, uint64_t st)                                 \
{                                                                                   \
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
		ROW(b, st, k, r0, c0, c1);                                                  \
		ROW(b, st, k + 1, r1, c0, c1);                                              \
		ROW(b, st, k + 2, r2, c0, c1);                                              \
		ROW(b, st, k + 3, r3, c0, c1);                                              \
	}                                                                               \
	for (; k < rows; k++) {                                                         \
		const T *row = d + k * stride;                                              \
		_Pragma("omp simd")                                                          \
		for (uint64_t v = c0; v < c1; v++) {                                        \
			GS_COL_LOAD(T, S);                                                      \
			GS_COL_STEP(T, S, FINITE, row[v]);                                      \
			reach[v] = c, sum[v] = sm, ecc[v] = e, harm[v] = h;                     \
		}                                                                           \
		ROW(b, st, k, row, c0, c1);                                                 \
	}                                                                               \
}
#define GS_NO_ROW(b, st, k, row, c0, c1) ((void)0)

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
GS_COLS(cols_int32_t, int32_t, int64_t, FINITE_I32, GS_NO_ROW)
GS_COLS(cols_float, float, double, FINITE_F32, GS_NO_ROW)
GS_COLS(cols_double, double, double, FINITE_F32, GS_NO_ROW)

/* int32: each row's share of the out figures from each strip of columns,
 * kept apart (b->part, strip after strip) and added up in gs_batch_end(). */
struct row_part {
	uint64_t cnt;
	int64_t sum;
	int32_t ecc;
};

/* Row k's share of the out figures from columns c0 .. c1 - 1, just read
 * for the in figures (so from the first level of cache). */
GS_VECTORS static void row_strip(const gs_batch *b, uint64_t st, uint64_t k, const int32_t *row,
                                 uint64_t c0, uint64_t c1)
{
	uint64_t cnt = 0;
	int64_t sum = 0;
	int32_t ecc = 0;
#pragma omp simd reduction(+ : cnt, sum) reduction(max : ecc)
	for (uint64_t v = c0; v < c1; v++) {
		const int32_t x = row[v];
		const int fin = FINITE_I32(x);
		cnt += (uint64_t)fin;
		sum += fin ? (int64_t)x : 0;
		ecc = fin && x > ecc ? x : ecc;
	}
	((struct row_part *)b->part)[st * b->rows + k] = (struct row_part){cnt, sum, ecc};
}

/* int32 distances: strip st of columns as cols_int32_t, and each row's
 * share of its out figures from the same columns while they are in cache,
 * so the rows are read once from memory. */
GS_COLS(cols_rows_int32, int32_t, int64_t, FINITE_I32, row_strip)

uint64_t gs_batch_begin(gs_batch *b, gs_stats *s, uint64_t first, uint64_t rows, const void *d,
                        uint64_t stride)
{
	const uint64_t strips = (s->n + GS_STRIP - 1) / GS_STRIP;
	*b = (gs_batch){s, first, rows, stride, d, (rows + GS_ROW_TASK - 1) / GS_ROW_TASK, NULL};
	/* int32: the out figures come with the columns' pass where the rows'
	 * shares have room (else a pass of their own) */
	if (s->type == ST_INT32 && rows && (b->part = malloc(strips * rows * sizeof(struct row_part))))
		b->row_pieces = 0;
	return rows ? b->row_pieces + strips : 0;
}

/* The out figures of a piece of rows, or the in figures of a strip of
 * columns: one touches reach[GS_OUT], the other reach[GS_IN], so the two
 * kinds run at once. */
void gs_batch_piece(gs_batch *b, uint64_t i)
{
	const uint32_t type = b->s->type;
	if (i < b->row_pieces) {
		if (type == ST_INT32)
			rows_int32_t(b, i);
		else if (type == ST_FLOAT32)
			rows_float(b, i);
		else
			rows_double(b, i);
		return;
	}
	i -= b->row_pieces;
	if (type == ST_INT32 && b->part)
		cols_rows_int32(b, i);
	else if (type == ST_INT32)
		cols_int32_t(b, i);
	else if (type == ST_FLOAT32)
		cols_float(b, i);
	else
		cols_double(b, i);
}

/* The diagonal was counted as reached (d(u,u) = 0 adds nothing else). */
void gs_batch_end(gs_batch *b)
{
	gs_stats *s = b->s;
	const int t = s->type == ST_INT32 ? 0 : s->type == ST_FLOAT32 ? 1 : 2;
	const void *d = b->d;
	const struct row_part *part = b->part;
	const uint64_t strips = (s->n + GS_STRIP - 1) / GS_STRIP;
	for (uint64_t k = 0; part && k < b->rows; k++) {
		const uint64_t u = b->first + k;
		int32_t *e = (int32_t *)s->ecc[GS_OUT] + u;
		for (uint64_t st = 0; st < strips; st++) {
			const struct row_part *q = &part[st * b->rows + k];
			s->reach[GS_OUT][u] += q->cnt;
			((int64_t *)s->sum[GS_OUT])[u] += q->sum;
			*e = q->ecc > *e ? q->ecc : *e;
		}
	}
	free(b->part);
	b->part = NULL;
	for (uint64_t k = 0; k < b->rows; k++) {
		const uint64_t u = b->first + k, at = k * b->stride + u;
		if (u >= s->n)
			break;
		const int finite = t == 0 ? FINITE_I32(((const int32_t *)d)[at])
		                   : t == 1 ? FINITE_F32(((const float *)d)[at])
		                   : FINITE_F32(((const double *)d)[at]);
		if (finite) {
			s->reach[GS_OUT][u]--;
			s->reach[GS_IN][u]--;
		}
	}
}

static void batch_body(void *ctx, int t, uint64_t i, struct pool *p)
{
	gs_batch_piece(ctx, i);
	(void)t, (void)p;
}

void gs_add_rows(gs_stats *s, uint64_t first, uint64_t rows, const void *d, uint64_t stride,
                 int threads)
{
	gs_batch b;
	const uint64_t pieces = gs_batch_begin(&b, s, first, rows, d, stride);
	pool_run(lib_threads(threads), pieces, batch_body, &b);
	gs_batch_end(&b);
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

void gs_summary_undirected(gs_summary *m)
{
	m->pairs /= 2;
	m->wiener /= 2;
	m->wiener_i /= 2;
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
