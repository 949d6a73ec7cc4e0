/* test_order.c - the schedule of a sparse run's rounds (ord_block_levels)
 * and the nested dissection aligned to blocks: rounds of one level, each
 * made from the state the level began with and merged by min, give the
 * distances of rounds one by one. */
#include <stdlib.h>
#include <string.h>

#include "elim.h"
#include "order.h"
#include "t.h"

#define INF ST_INF_I32

/* Floyd-Warshall rounds of the vertices of block p (B of them) on d. */
static void block_round(int32_t *d, int n, int B, int p)
{
	for (int k = p * B; k < (p + 1) * B && k < n; k++)
		for (int i = 0; i < n; i++) {
			if (d[i * n + k] >= INF)
				continue;
			for (int j = 0; j < n; j++)
				if (d[k * n + j] < INF && d[i * n + k] + d[k * n + j] < d[i * n + j])
					d[i * n + j] = d[i * n + k] + d[k * n + j];
		}
}

static void live_map(const int32_t *d, int n, int B, uint8_t *live)
{
	const int nb = (n + B - 1) / B;
	memset(live, 0, (size_t)nb * nb);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (d[i * n + j] < INF)
				live[(i / B) * nb + j / B] = 1;
}

/* The graph w (n x n) renumbered by perm, solved round after round and level
 * by level; 1 where the two agree.  *levels: how many levels there were. */
static int levels_agree(const int32_t *w, const int32_t *perm, int n, int B, int *levels)
{
	const int nb = (n + B - 1) / B;
	const size_t bytes = (size_t)n * n * sizeof(int32_t);
	int32_t *seq = malloc(bytes), *lev = malloc(bytes), *start = malloc(bytes),
	        *one = malloc(bytes), *level = malloc(nb * sizeof *level);
	uint8_t *live = malloc((size_t)nb * nb);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			seq[i * n + j] = i == j ? 0 : w[perm[i] * n + perm[j]];
	memcpy(lev, seq, bytes);
	live_map(seq, n, B, live);
	*levels = ord_block_levels(live, (uint64_t)nb, level);
	for (int p = 0; p < nb; p++)
		block_round(seq, n, B, p);
	for (int l = 0; l < *levels; l++) {
		memcpy(start, lev, bytes);
		for (int p = 0; p < nb; p++) {
			if (level[p] != l)
				continue;
			memcpy(one, start, bytes);
			block_round(one, n, B, p);
			for (size_t e = 0; e < (size_t)n * n; e++)
				if (one[e] < lev[e])
					lev[e] = one[e];
		}
	}
	int same = memcmp(seq, lev, bytes) == 0;
	free(seq), free(lev), free(start), free(one), free(level), free(live);
	return same;
}

/* A k x k grid, 4 neighbours both ways, weights 1..9. */
static int32_t *grid(int k)
{
	const int n = k * k;
	int32_t *w = malloc((size_t)n * n * sizeof *w);
	for (size_t e = 0; e < (size_t)n * n; e++)
		w[e] = INF;
	for (int r = 0; r < k; r++)
		for (int c = 0; c < k; c++) {
			const int v = r * k + c;
			if (c + 1 < k)
				w[v * n + v + 1] = 1 + t_rnd() % 9, w[(v + 1) * n + v] = 1 + t_rnd() % 9;
			if (r + 1 < k)
				w[v * n + v + k] = 1 + t_rnd() % 9, w[(v + k) * n + v] = 1 + t_rnd() % 9;
		}
	return w;
}

static int is_perm(const int32_t *perm, int n)
{
	char *seen = calloc(n, 1);
	int ok = 1;
	for (int k = 0; k < n && ok; k++) {
		ok = perm[k] >= 0 && perm[k] < n && !seen[perm[k]];
		if (ok)
			seen[perm[k]] = 1;
	}
	free(seen);
	return ok;
}

static void test_small_trees(void)
{
	int32_t level[5];
	uint8_t none[16] = {0};
	T_CHECK("no edges: one level", ord_block_levels(none, 4, level) == 1 && level[0] == 0
	        && level[1] == 0 && level[2] == 0 && level[3] == 0);
	/* a path 0 - 1 - 2 - 3, one direction only */
	uint8_t path[16] = {0};
	path[0 * 4 + 1] = path[2 * 4 + 1] = path[2 * 4 + 3] = 1;
	T_CHECK("a path: four levels", ord_block_levels(path, 4, level) == 4 && level[0] == 0
	        && level[1] == 1 && level[2] == 2 && level[3] == 3);
	/* two halves {0, 1} and {2, 3}, separator 4 */
	uint8_t two[25] = {0};
	two[0 * 5 + 1] = two[2 * 5 + 3] = two[4 * 5 + 1] = two[3 * 5 + 4] = 1;
	T_CHECK("two halves and a separator: three levels",
	        ord_block_levels(two, 5, level) == 3 && level[0] == 0 && level[1] == 1
	        && level[2] == 0 && level[3] == 1 && level[4] == 2);
	T_CHECK("no blocks: no levels", ord_block_levels(none, 0, level) == 0);
}

/* Random sparse graphs as numbered: clusters of 30 vertices that meet only
 * in the last 30 (a separator), one-way edges, zero weights, and in the
 * last graphs negative weights (w + h[i] - h[j]: no negative cycle).
 * Blocks of 10 keep the clusters apart, blocks of 8 straddle them. */
static void test_random_levels(void)
{
	const int n = 150;
	int32_t *w = malloc((size_t)n * n * sizeof *w), perm[150], h[150];
	for (int k = 0; k < n; k++)
		perm[k] = k, h[k] = (int32_t)(t_rnd() % 50);
	for (int trial = 0; trial < 8; trial++) {
		const int B = trial % 2 ? 8 : 10, negative = trial >= 6;
		for (size_t e = 0; e < (size_t)n * n; e++)
			w[e] = INF;
		for (int e = 0; e < 3 * n; e++) {
			const int i = (int)(t_rnd() % n);
			const int j = i >= 120 ? (int)(t_rnd() % n)              /* anywhere */
			            : e % 5 == 0 ? 120 + (int)(t_rnd() % 30)     /* the separator */
			            : i / 30 * 30 + (int)(t_rnd() % 30);         /* its cluster */
			if (i == j)
				continue;
			int32_t x = (int32_t)(t_rnd() % 20);
			if (negative)
				x += h[i] - h[j];
			w[i * n + j] = x;
		}
		int levels = 0;
		T_CHECKF(levels_agree(w, perm, n, B, &levels),
		         "clustered graph %d, B = %d%s: %d levels of %d blocks, the same distances", trial,
		         B, negative ? ", negative weights" : "", levels, (n + B - 1) / B);
		if (B == 10)
			T_CHECKF(levels <= 6, "clusters on whole blocks: at most 6 levels (%d)", levels);
	}
	free(w);
}

static void test_aligned_dissection(void)
{
	if (!ord_available()) {
		printf("SKIP nested dissection: no METIS in this build\n");
		return;
	}
	const int k = 24, n = k * k, B = 16, nb = (n + B - 1) / B;
	int32_t *w = grid(k), *perm = malloc(n * sizeof *perm), *plain = malloc(n * sizeof *plain);
	st_error err;
	T_CHECK("aligned dissection of a grid",
	        ord_nested_dissection(n, ST_INT32, w, perm, B, 1, &err) == 0);
	T_CHECK("it is a permutation", is_perm(perm, n));
	int32_t *again = malloc(n * sizeof *again);
	T_CHECK("the same graph, the same order",
	        ord_nested_dissection(n, ST_INT32, w, again, B, 1, &err) == 0
	        && memcmp(again, perm, n * sizeof *perm) == 0);
	T_CHECK("METIS's own order", ord_nested_dissection(n, ST_INT32, w, plain, 0, 1, &err) == 0
	        && is_perm(plain, n));
	int aligned = 0, own = 0;
	T_CHECKF(levels_agree(w, perm, n, B, &aligned),
	         "grid %dx%d, aligned order: %d levels of %d blocks, the same distances", k, k,
	         aligned, nb);
	T_CHECKF(levels_agree(w, plain, n, B, &own),
	         "grid %dx%d, METIS's order: %d levels of %d blocks, the same distances", k, k, own, nb);
	T_CHECKF(aligned * 3 <= nb, "aligned: at most a third as many levels as blocks (%d of %d)",
	         aligned, nb);
	T_CHECKF(aligned < own, "aligned: fewer levels than METIS's own order (%d against %d)",
	         aligned, own);
	free(w), free(perm), free(plain), free(again);
}

/* The order of a graph's arcs (loops and repeats among them, in any order)
 * is the order of its matrix. */
static void test_arcs_order(void)
{
	if (!ord_available()) {
		printf("SKIP order of arcs: no METIS in this build\n");
		return;
	}
	const int n = 333;
	const uint64_t m = 5 * (uint64_t)n;
	int32_t *w = malloc((size_t)n * n * sizeof *w);
	uint32_t *from = malloc(m * sizeof *from), *to = malloc(m * sizeof *to);
	int32_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
	for (size_t e = 0; e < (size_t)n * n; e++)
		w[e] = e % (n + 1) ? INF : 0;
	for (uint64_t k = 0; k < m; k++) {
		from[k] = (uint32_t)(t_rnd() % n);
		/* mostly near: a mesh-like graph; loops and repeats too */
		to[k] = k % 7 == 0 ? from[k] : k % 11 == 0 ? from[k > 0 ? k - 1 : 0]
		      : (uint32_t)((from[k] + t_rnd() % 9) % n);
		if (k % 11 == 0 && k > 0)
			from[k] = from[k - 1];
		if (from[k] != to[k])
			w[(size_t)from[k] * n + to[k]] = 1 + (int32_t)(t_rnd() % 9);
	}
	st_error err;
	for (int B = 0; B <= 32; B += 32)
		T_CHECKF(ord_nested_dissection(n, ST_INT32, w, a, B, 1, &err) == 0
		         && ord_nested_dissection_arcs(n, m, from, to, b, B, &err) == 0
		         && memcmp(a, b, n * sizeof *a) == 0,
		         "the order of the arcs is the matrix's (B = %d)", B);
	free(w), free(from), free(to), free(a), free(b);
}

/* The factor of the split order: a valid permutation, the same on one
 * thread and on three, a fill within half as much again as METIS's own
 * order's, and the same distances. */
static void test_split_order(void)
{
	if (!ord_available()) {
		printf("SKIP split order: no METIS in this build\n");
		return;
	}
	const uint32_t side = 180, n = side * side; /* split twice (parts from 10,000 on are split) */
	uint32_t *from = malloc(4 * (size_t)n * sizeof *from), *to = malloc(4 * (size_t)n * sizeof *to);
	int32_t *w = malloc(4 * (size_t)n * sizeof *w);
	uint64_t m = 0;
	for (uint32_t v = 0; v < n; v++) /* a grid with a third of its streets gone */
		for (int dir = 0; dir < 2; dir++) {
			const uint32_t u = dir ? v + side : v + 1;
			if ((dir ? v + side >= n : (v + 1) % side == 0) || t_rnd() % 3 == 0)
				continue;
			from[m] = v, to[m] = u, w[m++] = 1 + (int32_t)(t_rnd() % 100);
			from[m] = u, to[m] = v, w[m++] = 1 + (int32_t)(t_rnd() % 100);
		}
	int32_t *one = malloc(n * sizeof *one), *three = malloc(n * sizeof *three);
	int32_t *whole = malloc(n * sizeof *whole), *many = malloc(n * sizeof *many);
	uint8_t *seen = calloc(n, 1);
	st_error err;
	T_CHECKF(ord_split_dissection_arcs(n, m, from, to, one, 1, &err) == 0
	         && ord_split_dissection_arcs(n, m, from, to, three, 3, &err) == 0
	         && ord_split_dissection_arcs(n, m, from, to, many, 16, &err) == 0
	         && ord_nested_dissection_arcs(n, m, from, to, whole, 0, &err) == 0,
	         "the orders made (%s)", err.msg);
	int valid = 1;
	for (uint32_t k = 0; k < n; k++) {
		valid &= one[k] >= 0 && (uint32_t)one[k] < n && !seen[one[k]];
		if (valid)
			seen[one[k]] = 1;
	}
	T_CHECK("the split order is a permutation", valid);
	T_CHECK("the same split order on 1, 3 and 16 threads",
	        memcmp(one, three, n * sizeof *one) == 0 && memcmp(one, many, n * sizeof *one) == 0);
	el_factor *a = NULL, *b = NULL;
	int64_t cycle;
	T_CHECK("both factors made", el_factor_plan(n, m, from, to, one, &a, &err) == 0
	        && el_factor_plan(n, m, from, to, whole, &b, &err) == 0
	        && el_factor_weigh(a, ST_INT32, m, from, to, w, &cycle, &err) == 0
	        && el_factor_weigh(b, ST_INT32, m, from, to, w, &cycle, &err) == 0);
	if (a && b) {
		printf("# split order: %llu entries, METIS alone: %llu\n",
		       (unsigned long long)el_factor_entries(a), (unsigned long long)el_factor_entries(b));
		T_CHECK("the split order's fill within 1.5 times METIS's own",
		        2 * el_factor_entries(a) <= 3 * el_factor_entries(b));
		el_space *sa = el_space_new(a), *sb = el_space_new(b);
		int32_t *ra = malloc(4 * (size_t)n * sizeof *ra), *rb = malloc(4 * (size_t)n * sizeof *rb);
		const uint32_t src[4] = {0, n / 3, n / 2 + 7, n - 1};
		el_rows(a, sa, src, 4, ra, n, NULL);
		el_rows(b, sb, src, 4, rb, n, NULL);
		T_CHECK("the same distances from either order's factor",
		        memcmp(ra, rb, 4 * (size_t)n * sizeof *ra) == 0);
		free(ra), free(rb), el_space_free(sa), el_space_free(sb);
	}
	el_factor_free(a), el_factor_free(b);
	free(from), free(to), free(w), free(one), free(three), free(whole), free(many), free(seen);
}

/* The split order of graphs of chains and trees: the vertices of degree
 * two or less are peeled first (no fill beyond a chain's ends joined), so a
 * tree's factor holds its edges alone and a ring's its edges and one chord
 * a vertex peeled; on threads the same order. */
static void test_peeled_order(void)
{
	if (!ord_available()) {
		printf("SKIP peeled order: no METIS in this build\n");
		return;
	}
	const uint32_t n = 30000; /* above the size a part is split from */
	uint32_t *from = malloc(2 * (size_t)n * sizeof *from), *to = malloc(2 * (size_t)n * sizeof *to);
	int32_t *one = malloc(n * sizeof *one), *two = malloc(n * sizeof *two);
	st_error err = {0};
	for (int ring = 0; ring < 2; ring++) {
		uint64_t m = 0;
		for (uint32_t v = 1; v < n; v++) { /* a random tree, both ways; or a ring */
			from[m] = ring ? v - 1 : (uint32_t)(t_rnd() % v), to[m] = v, m++;
			from[m] = to[m - 1], to[m] = from[m - 1], m++;
		}
		if (ring)
			from[m] = n - 1, to[m] = 0, m++;
		el_factor *f = NULL;
		T_CHECKF(ord_split_dissection_arcs(n, m, from, to, one, 1, &err) == 0
		         && ord_split_dissection_arcs(n, m, from, to, two, 4, &err) == 0
		         && el_factor_plan(n, m, from, to, one, &f, &err) == 0,
		         "the %s's split orders (%s)", ring ? "ring" : "tree", err.msg);
		T_CHECK("the same peeled order on 1 and 4 threads", !memcmp(one, two, n * sizeof *one));
		if (f)
			T_CHECKF(el_factor_entries(f) == (ring ? 2 * (uint64_t)n - 3 : n - 1),
			         "the %s's factor: %llu entries", ring ? "ring" : "tree",
			         (unsigned long long)el_factor_entries(f));
		el_factor_free(f);
	}
	free(from), free(to), free(one), free(two);
}

int main(void)
{
	test_arcs_order();
	test_split_order();
	test_peeled_order();
	test_small_trees();
	test_random_levels();
	test_aligned_dissection();
	return T_DONE();
}
