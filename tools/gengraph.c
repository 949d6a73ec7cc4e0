/* gengraph - write a random weighted graph as a binary matrix stream.
 *
 * Three shapes: each ordered pair an edge with a given probability (the
 * default), a rows x cols grid (4 neighbours; as a road network, a third of
 * its streets removed), or a random geometric graph (points in the unit
 * square, an edge between points closer than a radius).
 * Every choice is a pure function of (seed, i, j): edge (i, j) exists and
 * has its weight according to a splitmix64 hash of the pair, so rows can be
 * made in any order on any number of threads and the output bytes depend on
 * the seed alone.  With --negative each vertex v also gets a potential p[v]
 * and w'(u,v) = w(u,v) + p[u] - p[v]: the potentials cancel around every
 * cycle, so cycles keep their positive weight while single edges go
 * negative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <omp.h>

#include "arcsout.h"
#include "tool.h"

#define GOLDEN 0x9e3779b97f4a7c15ull
#define MAX_BYTES ((uint64_t)1 << 48) /* refuse matrices beyond 256 TiB */
#define MAX_N ((uint64_t)1 << 23)        /* so 4 n^2 <= MAX_BYTES */
/* Edge thresholds below this (a density of 5%) make the int32 weights in a
 * second pass, over the edges alone. */
#define SPARSE_THRESHOLD (((uint64_t)1 << 53) / 20)

static void usage(FILE *f)
{
	fprintf(f,
	        "Usage: gengraph -n N -d DENSITY [options]\n"
	        "       gengraph --grid ROWSxCOLS [options]\n"
	        "       gengraph --road ROWSxCOLS [options]\n"
	        "       gengraph -n N --geometric RADIUS [options]\n"
	        "Write a random graph on N vertices as a binary matrix stream: each ordered\n"
	        "pair i != j is an edge with probability DENSITY percent; or a grid, each\n"
	        "vertex joined both ways to its 4 neighbours (vertex r*COLS+c at row r,\n"
	        "column c); or that grid as a road network, about a third of its streets\n"
	        "removed (both ways), mean degree about 2.7; or N random points in the unit square, joined both ways when\n"
	        "closer than RADIUS.  Weights are random in every shape.\n"
	        "\n"
	        "  -n, --vertices N     number of vertices (1..%llu: at most 256 TiB stored)\n"
	        "  -d, --density PCT    edge probability in percent (0..100)\n"
	        "      --grid RxC       a grid of R rows and C columns (N = R*C)\n"
	        "      --road RxC       that grid with a third of its streets removed\n"
	        "      --geometric R    a random geometric graph with radius R (0..2)\n"
	        "  -w, --weights MIN:MAX  edge weights uniform in [MIN, MAX] (default 1:100)\n"
	        "  -s, --seed S         random seed (default 1); same seed, same bytes\n"
	        "  -t, --type TYPE      int32 (default), float32 or float64\n"
	        "  -B, --pad B          pad the stored matrix to a multiple of B (default 1)\n"
	        "  -F, --format FMT     stream (default) or mtx: the same graph as Matrix\n"
	        "                       Market text (coordinate, general; weights that\n"
	        "                       read back exactly), which the engines also take\n"
	        "  -L, --layout L       auto (default), matrix or arcs: the stream's weights\n"
	        "                       as the matrix or as a list of arcs (no n x n\n"
	        "                       anywhere); auto: arcs where the matrix would exceed\n"
	        "                       256 MiB and the arcs take a sixteenth of it\n"
	        "      --keep-order     with -L arcs: keep the sparse engine's vertex order\n"
	        "                       in the stream (the engines' runs skip computing it)\n"
	        "      --undirected     edge (i,j) implies (j,i) with the same weight\n"
	        "      --negative[=P]   add p[u] - p[v] to every edge u->v, p[v] uniform\n"
	        "                       in [0, P] (default P = MAX): negative edges, no\n"
	        "                       negative cycle (directed graphs only)\n"
	        "\n",
	        (unsigned long long)MAX_N);
	tool_common_help(f, 1);
	fputs("\nExit status: 0 success, 2 trouble (usage, output).\n", f);
}

/* The splitmix64 output function: a bijection that mixes all bits. */
static inline __attribute__((always_inline)) uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

enum shape { SHAPE_RANDOM, SHAPE_GRID, SHAPE_GEOMETRIC };

struct gen {
	uint64_t n, npad;
	int type;
	int shape;           /* enum shape */
	uint64_t cols;       /* grid: vertex v is at row v / cols, column v % cols */
	int road;            /* grid: a third of the streets removed (street_key) */
	double radius2;      /* geometric: squared radius */
	float *xy;           /* geometric: the points, x and y of vertex v at 2v, 2v+1 */
	int undirected;
	uint64_t edge_key, weight_key, potential_key, street_key; /* per-seed stream keys */
	uint64_t threshold;  /* edge when (hash >> 11) < threshold (53-bit scale) */
	int64_t imin, imax;  /* int32 weights */
	double fmin, fmax;   /* float32 and float64 weights */
	int negative;
	double pmax;         /* potentials in [0, pmax] */
	void *potential;     /* int64_t[n] or double[n] */
};

/* Hash of pair (i, j): the splitmix64 value of counter i:j in stream key. */
static inline __attribute__((always_inline)) uint64_t pair_hash(uint64_t key, uint64_t i,
                                                                uint64_t j)
{
	return mix64(key + ((i << 32) | j) * GOLDEN);
}

/* An int32 weight uniform in [lo, lo + range - 1] from pair hash h (weight
 * key wk); plain arguments, so that the loops that use it vectorise. */
static inline __attribute__((always_inline)) int64_t uniform_weight(uint64_t h, uint64_t wk,
                                                                    int64_t lo, uint64_t range)
{
	return lo + (int64_t)(((mix64(h ^ wk) >> 32) * range) >> 32);
}

/* Whether i and j are neighbours in the grid or close in the square. */
static inline int shape_edge(const struct gen *g, uint64_t i, uint64_t j)
{
	if (g->shape == SHAPE_GRID) {
		uint64_t ri = i / g->cols, ci = i % g->cols, rj = j / g->cols, cj = j % g->cols;
		if (!((ri == rj && (ci == cj + 1 || cj == ci + 1))
		      || (ci == cj && (ri == rj + 1 || rj == ri + 1))))
			return 0;
		/* a road network: the street between them kept with odds 2/3,
		 * both ways or neither */
		return !g->road
		       || (pair_hash(g->street_key, i < j ? i : j, i < j ? j : i) >> 11)
		                  < (uint64_t)(0x1p53 * 2 / 3);
	}
	double dx = (double)g->xy[2 * i] - g->xy[2 * j], dy = (double)g->xy[2 * i + 1] - g->xy[2 * j + 1];
	return i != j && dx * dx + dy * dy < g->radius2;
}

static inline int is_edge(const struct gen *g, uint64_t i, uint64_t j, uint64_t *h)
{
	if (g->undirected && i > j) {
		uint64_t t = i;
		i = j;
		j = t;
	}
	*h = pair_hash(g->edge_key, i, j);
	if (g->shape != SHAPE_RANDOM)
		return shape_edge(g, i, j);
	return (*h >> 11) < g->threshold;
}

/* Geometric: the points, from the seed alone. */
static void make_points(struct gen *g, uint64_t key)
{
	if (g->shape != SHAPE_GEOMETRIC)
		return;
	g->xy = malloc(g->n * 2 * sizeof *g->xy);
	if (!g->xy)
		tool_die("points:");
	for (uint64_t v = 0; v < 2 * g->n; v++)
		g->xy[v] = (float)((double)(mix64(key + v * GOLDEN) >> 11) * 0x1p-53);
}

static inline int64_t int_weight(const struct gen *g, uint64_t h, uint64_t i, uint64_t j)
{
	int64_t w = uniform_weight(h, g->weight_key, g->imin, (uint64_t)(g->imax - g->imin) + 1);
	if (g->negative)
		w += ((int64_t *)g->potential)[i] - ((int64_t *)g->potential)[j];
	return w;
}

static inline double float_weight(const struct gen *g, uint64_t h, uint64_t i, uint64_t j)
{
	double u = (double)(mix64(h ^ g->weight_key) >> 11) * 0x1p-53;
	double w = g->fmin + (g->fmax - g->fmin) * u;
	if (g->negative)
		w += ((double *)g->potential)[i] - ((double *)g->potential)[j];
	return w;
}

static void make_potentials(struct gen *g)
{
	if (!g->negative)
		return;
	g->potential = malloc(g->n * 8);
	if (!g->potential)
		tool_die("potentials:");
	for (uint64_t v = 0; v < g->n; v++) {
		uint64_t h = mix64(g->potential_key + v * GOLDEN);
		if (g->type == ST_INT32)
			((int64_t *)g->potential)[v] =
				(int64_t)(((h >> 32) * ((uint64_t)g->pmax + 1)) >> 32);
		else
			((double *)g->potential)[v] = (double)(h >> 11) * 0x1p-53 * g->pmax;
	}
}

/* Entries j0..j1-1 of row i of the stored matrix into out.  Built for the
 * x86-64 levels too (chosen at run time): the common case vectorises, with
 * the same values. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default"), optimize("O3")))
#endif
static void make_row(const struct gen *g, uint64_t i, uint64_t j0, uint64_t j1, void *out)
{
	uint64_t h, jn = j1 < g->n ? j1 : g->n, j = j0;
	if (g->shape == SHAPE_GRID) {
		/* At most 4 edges a row: INF everywhere, then the neighbours. */
		for (j = j0; j < j1; j++) {
			if (g->type == ST_INT32)
				((int32_t *)out)[j - j0] = i == j ? 0 : ST_INF_I32;
			else if (g->type == ST_FLOAT32)
				((float *)out)[j - j0] = i == j ? 0.0f : INFINITY;
			else
				((double *)out)[j - j0] = i == j ? 0.0 : INFINITY;
		}
		if (i >= g->n)
			return;
		uint64_t nb[4], k = 0;
		if (i >= g->cols)
			nb[k++] = i - g->cols;
		if (i % g->cols)
			nb[k++] = i - 1;
		if ((i + 1) % g->cols)
			nb[k++] = i + 1;
		if (i + g->cols < g->n)
			nb[k++] = i + g->cols;
		for (uint64_t q = 0; q < k; q++) {
			j = nb[q];
			if (j < j0 || j >= j1 || !is_edge(g, i, j, &h))
				continue;
			if (g->type == ST_INT32)
				((int32_t *)out)[j - j0] = (int32_t)int_weight(g, h, i, j);
			else if (g->type == ST_FLOAT32)
				((float *)out)[j - j0] = (float)float_weight(g, h, i, j);
			else
				((double *)out)[j - j0] = float_weight(g, h, i, j);
		}
		return;
	}
	const int plain = g->shape == SHAPE_RANDOM && !g->undirected && !g->negative;
	if (g->type == ST_INT32) {
		int32_t *r = (int32_t *)out - j0;
		if (i < g->n && plain)
			/* The common case without branches: a random edge test
			 * mispredicts, computing every weight does not. */
			{
				/* int_weight() without potentials: the loops
				 * vectorise */
				const uint64_t ek = g->edge_key, wk = g->weight_key, th = g->threshold;
				const uint64_t range = (uint64_t)(g->imax - g->imin) + 1;
				const int64_t lo = g->imin;
				if (th < SPARSE_THRESHOLD) {
					/* Few edges: the edge test on every entry, then
					 * the weights where it passed (7% to 16%
					 * less CPU at 1%, bench/gengraph.md) */
					for (j = j0; j < jn; j++)
						r[j] = (pair_hash(ek, i, j) >> 11) < th ? 0 : ST_INF_I32;
					for (j = j0; j < jn; j++)
						if (r[j] != ST_INF_I32)
							r[j] = (int32_t)uniform_weight(pair_hash(ek, i, j), wk, lo, range);
				} else
					for (; j < jn; j++) {
						uint64_t hh = pair_hash(ek, i, j);
						int32_t w = (int32_t)uniform_weight(hh, wk, lo, range);
						r[j] = (hh >> 11) < th ? w : ST_INF_I32;
					}
			}
		else if (i < g->n)
			for (; j < jn; j++)
				r[j] = is_edge(g, i, j, &h) ? (int32_t)int_weight(g, h, i, j) : ST_INF_I32;
		for (j = j > jn ? j : jn; j < j1; j++)
			r[j] = ST_INF_I32;
		if (i >= j0 && i < j1)
			r[i] = 0;
	} else if (g->type == ST_FLOAT32) {
		float *r = (float *)out - j0;
		if (i < g->n && plain)
			for (; j < jn; j++) {
				h = pair_hash(g->edge_key, i, j);
				float w = (float)float_weight(g, h, i, j);
				r[j] = (h >> 11) < g->threshold ? w : INFINITY;
			}
		else if (i < g->n)
			for (; j < jn; j++)
				r[j] = is_edge(g, i, j, &h) ? (float)float_weight(g, h, i, j) : INFINITY;
		for (j = j > jn ? j : jn; j < j1; j++)
			r[j] = INFINITY;
		if (i >= j0 && i < j1)
			r[i] = 0;
	} else {
		/* float64: the same weights, unrounded */
		double *r = (double *)out - j0;
		if (i < g->n)
			for (; j < jn; j++)
				r[j] = is_edge(g, i, j, &h) ? float_weight(g, h, i, j) : INFINITY;
		for (j = j > jn ? j : jn; j < j1; j++)
			r[j] = INFINITY;
		if (i >= j0 && i < j1)
			r[i] = 0;
	}
}

/* One block of the stream: the stream's threads call this for each block
 * (st_write_fill), so making the graph runs on all cores beside the codec. */
static uint64_t bytes_done;

static int make_block(void *ctx, uint64_t offset, void *dst, size_t len)
{
	const struct gen *g = ctx;
	const uint64_t es = ST_TYPE_SIZE(g->type);
	uint64_t e = offset / es, end = e + len / es;
	char *out = dst;
	while (e < end) {
		uint64_t i = e / g->npad, j0 = e % g->npad;
		uint64_t j1 = end - i * g->npad < g->npad ? end - i * g->npad : g->npad;
		make_row(g, i, j0, j1, out);
		out += (j1 - j0) * es;
		e += j1 - j0;
	}
	uint64_t done = __atomic_add_fetch(&bytes_done, len, __ATOMIC_RELAXED);
	tool_progress("rows", done / es / g->npad, g->npad);
	return 0;
}

/* Whether any edge weight is negative: decides the header's ST_NEGATIVE flag
 * before a byte is written.  Stops at the first one found. */
static int any_negative(const struct gen *g)
{
	if (!g->negative && (g->type == ST_INT32 ? g->imin >= 0 : g->fmin >= 0))
		return 0;
	int found = 0;
	#pragma omp parallel for schedule(dynamic, 64)
	for (uint64_t i = 0; i < g->n; i++) {
		uint64_t h;
		int mine = 0;
		#pragma omp atomic read
		mine = found;
		for (uint64_t j = 0; j < g->n && !mine; j++)
			if (j != i && is_edge(g, i, j, &h))
				mine = g->type == ST_INT32 ? int_weight(g, h, i, j) < 0
				       : g->type == ST_FLOAT32 ? (float)float_weight(g, h, i, j) < 0
				                               : float_weight(g, h, i, j) < 0;
		if (mine) {
			#pragma omp atomic write
			found = 1;
		}
	}
	return found;
}

/* Whether entry (i, j) at e (from make_row, which made the stream's: the
 * same bits) is an edge. */
static int entry_edge(const struct gen *g, uint64_t i, uint64_t j, const void *e)
{
	if (i == j)
		return 0;
	if (g->type == ST_INT32)
		return *(const int32_t *)e != ST_INF_I32;
	return (g->type == ST_FLOAT32 ? *(const float *)e : *(const double *)e) != INFINITY;
}

/* Edge (i, j) of weight e as a Matrix Market line (1-based) to f. */
static void entry_text(const struct gen *g, uint64_t i, uint64_t j, const void *e, void *f)
{
	const unsigned long long r = i + 1, c = j + 1;
	if (g->type == ST_INT32) /* digits enough to read back the same float32 or float64 */
		fprintf(f, "%llu %llu %d\n", r, c, *(const int32_t *)e);
	else if (g->type == ST_FLOAT32)
		fprintf(f, "%llu %llu %.9g\n", r, c, *(const float *)e);
	else
		fprintf(f, "%llu %llu %.17g\n", r, c, *(const double *)e);
}

/* Edge (i, j) of weight e as the next record of a list of arcs at *at. */
static void entry_arc(const struct gen *g, uint64_t i, uint64_t j, const void *e, void *at)
{
	unsigned char **p = at;
	const uint32_t u = (uint32_t)i, v = (uint32_t)j;
	memcpy(*p, &u, 4);
	memcpy(*p + 4, &v, 4);
	memcpy(*p + 8, e, ST_TYPE_SIZE(g->type));
	*p += ST_ARC_BYTES(g->type);
}

/* The edges of row i, j ascending, each given to put(g, i, j, weight, ctx)
 * (put NULL: counted only); how many. */
typedef void put_fn(const struct gen *g, uint64_t i, uint64_t j, const void *e, void *ctx);
static uint64_t row_edges(const struct gen *g, uint64_t i, put_fn *put, void *ctx)
{
	uint64_t count = 0;
	if (g->shape == SHAPE_GRID) { /* the 4 neighbours at most, each alone */
		const uint64_t nb[4] = {i >= g->cols ? i - g->cols : i, i % g->cols ? i - 1 : i,
		                        (i + 1) % g->cols ? i + 1 : i,
		                        i + g->cols < g->n ? i + g->cols : i};
		double x;
		for (int q = 0; q < 4; q++) {
			make_row(g, i, nb[q], nb[q] + 1, &x);
			if (entry_edge(g, i, nb[q], &x)) {
				count++;
				if (put)
					put(g, i, nb[q], &x, ctx);
			}
		}
		return count;
	}
	void *row = malloc(g->n * 8);
	if (!row)
		tool_die("out of memory for a row");
	make_row(g, i, 0, g->n, row);
	const size_t es = ST_TYPE_SIZE(g->type);
	for (uint64_t j = 0; j < g->n; j++)
		if (entry_edge(g, i, j, (const char *)row + j * es)) {
			count++;
			if (put)
				put(g, i, j, (const char *)row + j * es, ctx);
		}
	free(row);
	return count;
}

/* -L arcs: the graph as a list of arcs, made on every core: each row's
 * count, then each row's records in its place.  malloc'd; *arcs its length. */
static void *make_arcs(const struct gen *g, uint64_t *arcs)
{
	uint64_t *at = malloc((g->n + 1) * sizeof *at);
	if (!at)
		tool_die("out of memory for %llu rows' counts", (unsigned long long)g->n);
	at[0] = 0;
	#pragma omp parallel for schedule(dynamic, 64)
	for (uint64_t i = 0; i < g->n; i++)
		at[i + 1] = row_edges(g, i, NULL, NULL);
	for (uint64_t i = 0; i < g->n; i++)
		at[i + 1] += at[i];
	*arcs = at[g->n];
	const size_t rec = ST_ARC_BYTES(g->type);
	unsigned char *list = malloc(*arcs ? *arcs * rec : 1);
	if (!list)
		tool_die("out of memory for %llu arcs", (unsigned long long)*arcs);
	#pragma omp parallel for schedule(dynamic, 64)
	for (uint64_t i = 0; i < g->n; i++) {
		unsigned char *p = list + at[i] * rec;
		row_edges(g, i, entry_arc, &p);
	}
	free(at);
	return list;
}

/* The arcs expected, for --layout auto: a grid's four a vertex at most, a
 * random graph's n (n - 1) DENSITY, a geometric one's pairs within the
 * radius of each other (pi r^2 of the square, an upper bound). */
static double arcs_expected(const struct gen *g)
{
	const double n = (double)g->n;
	if (g->shape == SHAPE_GRID)
		return 4 * n;
	if (g->shape == SHAPE_GEOMETRIC)
		return fmin(1.0, M_PI * g->radius2) * n * n;
	return (double)g->threshold / 0x1p53 * n * (n - 1);
}

/* -F mtx: the graph as Matrix Market text, the same edges and weights as
 * the stream (float32 in 9 digits, float64 in 17: each reads back exactly). */
static void write_mtx(const struct gen *g, FILE *f)
{
	uint64_t arcs = 0;
	#pragma omp parallel for schedule(dynamic, 64) reduction(+ : arcs)
	for (uint64_t i = 0; i < g->n; i++)
		arcs += row_edges(g, i, NULL, NULL);
	fprintf(f, "%%%%MatrixMarket matrix coordinate %s general\n%llu %llu %llu\n",
	        g->type == ST_INT32 ? "integer" : "real", (unsigned long long)g->n,
	        (unsigned long long)g->n, (unsigned long long)arcs);
	for (uint64_t i = 0; i < g->n; i++) {
		row_edges(g, i, entry_text, f);
		if (i % 4096 == 0)
			tool_progress("rows", i, g->n);
	}
}

static void parse_range(const char *s, int type, struct gen *g)
{
	char buf[128];
	const char *colon = strchr(s, ':');
	const char *lo = s, *hi = s;
	if (colon) {
		if ((size_t)(colon - s) >= sizeof buf)
			tool_usage_error("-w: '%s' is not MIN:MAX", s);
		memcpy(buf, s, (size_t)(colon - s));
		buf[colon - s] = '\0';
		lo = buf;
		hi = colon + 1;
	}
	if (type == ST_INT32) {
		g->imin = tool_parse_ll("-w", lo, -ST_INF_I32 + 1, ST_INF_I32 - 1);
		g->imax = tool_parse_ll("-w", hi, -ST_INF_I32 + 1, ST_INF_I32 - 1);
		if (g->imin > g->imax)
			tool_usage_error("-w: MIN %lld is above MAX %lld",
			                 (long long)g->imin, (long long)g->imax);
	} else {
		g->fmin = tool_parse_double("-w", lo);
		g->fmax = tool_parse_double("-w", hi);
		if (g->fmin > g->fmax)
			tool_usage_error("-w: MIN %g is above MAX %g", g->fmin, g->fmax);
		if (type == ST_FLOAT32 && (fabs(g->fmin) > 1e37 || fabs(g->fmax) > 1e37))
			tool_usage_error("-w: %s is out of the float32 range", s);
		if (!isfinite(g->fmin) || !isfinite(g->fmax))
			tool_usage_error("-w: %s is not a finite range", s);
	}
}

/* --grid or --road ROWSxCOLS into g (its shape, n and columns), or a usage error. */
static void parse_grid(struct gen *g, const char *opt, const char *arg)
{
	const char *x = strchr(arg, 'x');
	char rows[32];
	if (!x || (size_t)(x - arg) >= sizeof rows)
		tool_usage_error("%s: '%s' is not ROWSxCOLS", opt, arg);
	memcpy(rows, arg, (size_t)(x - arg));
	rows[x - arg] = '\0';
	uint64_t r = (uint64_t)tool_parse_ll(opt, rows, 1, (long long)MAX_N);
	g->cols = (uint64_t)tool_parse_ll(opt, x + 1, 1, (long long)MAX_N);
	if (r * g->cols > MAX_N)
		tool_usage_error("%s: %llu x %llu vertices is more than %llu", opt,
		                 (unsigned long long)r, (unsigned long long)g->cols,
		                 (unsigned long long)MAX_N);
	g->shape = SHAPE_GRID;
	g->n = r * g->cols;
}

/* --negative[=P]: the largest potential into g (P, or the largest weight),
 * or a usage error where the weights could leave their type's range. */
static void parse_potentials(struct gen *g, const char *arg)
{
	if (g->undirected)
		tool_usage_error("--negative needs a directed graph "
		                 "(an undirected negative edge is a negative cycle)");
	if (g->type == ST_INT32) {
		g->pmax = arg ? (double)tool_parse_ll("--negative", arg, 0, ST_INF_I32 - 1)
		              : (double)(g->imax > 0 ? g->imax : 1);
		if (g->imin - (int64_t)g->pmax <= -ST_INF_I32 || g->imax + (int64_t)g->pmax >= ST_INF_I32)
			tool_usage_error("--negative: weights %lld..%lld with potentials up to %.0f "
			                 "leave the int32 range (|w| < %d)", (long long)g->imin,
			                 (long long)g->imax, g->pmax, ST_INF_I32);
	} else {
		g->pmax = arg ? tool_parse_double("--negative", arg) : (g->fmax > 0 ? g->fmax : 1);
		if (g->pmax < 0 || g->pmax > 1e37)
			tool_usage_error("--negative: %s is out of range", arg);
	}
}

/* The graph g as a stream (padded to pad), its weight matrix or, as layout
 * chooses, its list of arcs (keep_order: the sparse engine's order beside
 * it), committed. */
static void write_stream(const struct gen *g, uint64_t pad, int layout, int keep_order,
                         int threads)
{
	st_header h;
	st_header_init(&h, g->n, pad, g->type);
	h.matrices = ST_WEIGHTS;
	h.flags = (g->undirected ? 0 : ST_DIRECTED) | (any_negative(g) ? ST_NEGATIVE : 0);
	tool_add_provenance(&h);
	const int arcs = arcsout_chosen(layout, g->npad, g->type, (uint64_t)arcs_expected(g));
	if (!arcs && g->npad > MAX_BYTES / 4 / g->npad)
		tool_usage_error("-n: %llu vertices padded to %llu make a matrix too large to write "
		                 "(--layout arcs writes a list of its arcs)",
		                 (unsigned long long)g->n, (unsigned long long)g->npad);

	int fd = tool_output_open(1);
	const char *outname = tool_opts.output ? tool_opts.output : "standard output";
	st_error err;
	if (arcs) {
		void *list = make_arcs(g, &h.arcs);
		h.matrices = ST_ARCS;
		arcsout_write(fd, &h, list, keep_order);
		free(list);
	} else {
		st_writer *w = st_writer_open(fd, &h, tool_opts.level, threads, &err);
		if (!w)
			tool_die_st(outname, &err);
		if (st_write_fill(w, st_matrix_bytes(&h), make_block, (void *)g, &err) < 0)
			tool_die_st(outname, &err);
		if (st_write_end_matrix(w, &err) < 0 || st_writer_close(w, &err) < 0)
			tool_die_st(outname, &err);
	}
	tool_output_commit();

	st_header_free(&h);
}

int main(int argc, char **argv)
{
	enum { OPT_UNDIRECTED = 0x2000, OPT_NEGATIVE, OPT_GRID, OPT_GEOMETRIC, OPT_ROAD, OPT_KEEP_ORDER };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"vertices", required_argument, 0, 'n'},
		{"density", required_argument, 0, 'd'},
		{"weights", required_argument, 0, 'w'},
		{"seed", required_argument, 0, 's'},
		{"type", required_argument, 0, 't'},
		{"pad", required_argument, 0, 'B'},
		{"undirected", no_argument, 0, OPT_UNDIRECTED},
		{"negative", optional_argument, 0, OPT_NEGATIVE},
		{"grid", required_argument, 0, OPT_GRID},
		{"road", required_argument, 0, OPT_ROAD},
		{"geometric", required_argument, 0, OPT_GEOMETRIC},
		{"format", required_argument, 0, 'F'},
		{"layout", required_argument, 0, 'L'},
		{"keep-order", no_argument, 0, OPT_KEEP_ORDER},
		{0, 0, 0, 0},
	};
	const char *n_arg = NULL, *d_arg = NULL, *w_arg = "1:100", *p_arg = NULL;
	const char *grid_arg = NULL, *geo_arg = NULL, *road_arg = NULL;
	uint64_t seed = 1, pad = 1;
	struct gen g = {.type = ST_INT32};
	int c, text = 0, layout = LAYOUT_AUTO, layout_arg = 0, keep_order = 0;

	tool_init("gengraph", argc, argv);
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS "n:d:w:s:t:B:F:L:", longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case 'n': n_arg = optarg; break;
		case 'd': d_arg = optarg; break;
		case 'w': w_arg = optarg; break;
		case 's': seed = (uint64_t)tool_parse_ll("-s", optarg, 0, INT64_MAX); break;
		case 'B': pad = (uint64_t)tool_parse_ll("-B", optarg, 1, 1 << 16); break;
		case OPT_UNDIRECTED: g.undirected = 1; break;
		case OPT_NEGATIVE: g.negative = 1; p_arg = optarg; break;
		case OPT_GRID: grid_arg = optarg; break;
		case OPT_ROAD: road_arg = optarg; break;
		case OPT_GEOMETRIC: geo_arg = optarg; break;
		case 'L':
			layout = arcsout_parse_layout(optarg), layout_arg = 1;
			break;
		case OPT_KEEP_ORDER:
			keep_order = 1;
			break;
		case 'F':
			if (strcmp(optarg, "mtx") && strcmp(optarg, "stream"))
				tool_usage_error("-F: unknown format '%s' (stream or mtx)", optarg);
			text = !strcmp(optarg, "mtx");
			break;
		case 't':
			if (strcmp(optarg, "int32") == 0)
				g.type = ST_INT32;
			else if (strcmp(optarg, "float32") == 0)
				g.type = ST_FLOAT32;
			else if (strcmp(optarg, "float64") == 0)
				g.type = ST_FLOAT64;
			else
				tool_usage_error("-t: unknown type '%s' (int32, float32 or float64)", optarg);
			break;
		default:
			tool_usage_error("unexpected option");
		}
	}
	if (optind < argc)
		tool_usage_error("unexpected argument '%s'", argv[optind]);
	if (!!grid_arg + !!geo_arg + !!road_arg > 1)
		tool_usage_error("--grid, --road and --geometric are three shapes: give one");
	const char *grid_opt = road_arg ? "--road" : "--grid";
	if (road_arg)
		grid_arg = road_arg, g.road = 1;
	if ((grid_arg || geo_arg) && d_arg)
		tool_usage_error("-d is the random shape's density: not with --%s",
		                 grid_arg ? grid_opt + 2 : "geometric");
	if (grid_arg && n_arg)
		tool_usage_error("%s gives the number of vertices: no -n", grid_opt);
	if (!grid_arg && !n_arg)
		tool_usage_error("-n is required");
	if (!grid_arg && !geo_arg && !d_arg)
		tool_usage_error("-d is required (or --grid, --road, --geometric)");
	if (text && pad != 1)
		tool_usage_error("-B pads a stream's matrix: not with -F mtx");
	if (text && (layout_arg || keep_order))
		tool_usage_error("--%s shapes a stream: not with -F mtx", layout_arg ? "layout" : "keep-order");
	arcsout_check_keep(keep_order, layout);

	/* Check everything before a byte is written. */
	if (grid_arg) {
		parse_grid(&g, grid_opt, grid_arg);
	} else {
		g.n = (uint64_t)tool_parse_ll("-n", n_arg, 1, (long long)MAX_N);
	}
	if (geo_arg) {
		double radius = tool_parse_double("--geometric", geo_arg);
		if (!(radius >= 0 && radius <= 2))
			tool_usage_error("--geometric: radius %s is out of range (0..2)", geo_arg);
		g.shape = SHAPE_GEOMETRIC;
		g.radius2 = radius * radius;
	}
	g.npad = (g.n + pad - 1) / pad * pad;
	if (g.npad > ST_MAX_N || (layout == LAYOUT_MATRIX && g.npad > MAX_BYTES / 4 / g.npad))
		tool_usage_error("-n: %llu vertices padded to %llu make a matrix too large to write",
		                 (unsigned long long)g.n, (unsigned long long)g.npad);
	if (d_arg) {
		double density = tool_parse_double("-d", d_arg);
		if (density < 0 || density > 100)
			tool_usage_error("-d: %s is out of range (0..100)", d_arg);
		g.threshold = (uint64_t)(density / 100 * 0x1p53);
	}
	parse_range(w_arg, g.type, &g);
	if (g.negative)
		parse_potentials(&g, p_arg);
	g.edge_key = mix64(seed * 4 + 1);
	g.weight_key = mix64(seed * 4 + 2);
	g.potential_key = mix64(seed * 4 + 3);
	g.street_key = mix64(seed * 4 + 5);

	int threads = tool_threads();
	omp_set_num_threads(threads);
	make_potentials(&g);
	make_points(&g, mix64(seed * 4 + 4));
	if (text) {
		FILE *f = tool_output_fopen(0);
		write_mtx(&g, f);
		tool_output_commit();
		free(g.potential);
		free(g.xy);
		return EXIT_OK;
	}

	write_stream(&g, pad, layout, keep_order, threads);
	free(g.potential);
	free(g.xy);
	return EXIT_OK;
}
