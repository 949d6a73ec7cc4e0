/* test_fw.c - the CPU blocked Floyd-Warshall engine against the textbook
 * triple loop: every SIMD level this processor runs, every type, with and
 * without predecessors, block sizes and n that do and do not divide; the
 * textbook predecessors (fw_opts.textbook_paths, fw_solve) equal to the
 * loop's own. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fw.h"
#include "solve.h"
#include "t.h"

#define INF ST_INF_I32

static void ref_f32(float *d, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j])
					d[i * n + j] = d[i * n + k] + d[k * n + j];
}

/* Every predecessor chain is a path of edges whose weights sum to the
 * distance; unreachable pairs have -1. */
static int chains_ok_i32(const int32_t *w, const int32_t *d, const int32_t *p, int n)
{
	for (int s = 0; s < n; s++)
		for (int t = 0; t < n; t++) {
			if (d[s * n + t] >= INF) {
				if (p[s * n + t] != -1)
					return 0;
				continue;
			}
			if (s == t)
				continue;
			int64_t sum = 0;
			int v = t, steps = 0;
			while (v != s) {
				int u = p[s * n + v];
				if (u < 0 || ++steps > n || w[u * n + v] >= INF)
					return 0;
				sum += w[u * n + v];
				v = u;
			}
			if (sum != d[s * n + t])
				return 0;
		}
	return 1;
}

/* A graph with zero-weight edges and cycles, duplicate-free, two parts. */
static void graph(int32_t *w, int n, unsigned *seed, int density)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			int32_t x = i == j ? 0 : INF;
			int same_part = (i < n / 2) == (j < n / 2) || n < 6;
			if (i != j && same_part && (int)(rand_r(seed) % 100) < density)
				x = (int32_t)(rand_r(seed) % 10); /* 0 .. 9: zero-weight cycles */
			w[i * n + j] = x;
		}
}

static int run_i32(int n, int B, int simd, int paths, unsigned seed)
{
	int32_t *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
	int32_t *r = malloc(sizeof *r * n * n), *p = malloc(sizeof *p * n * n);
	int32_t *rp = malloc(sizeof *rp * n * n);
	graph(w, n, &seed, 30);
	st_header h;
	memset(&h, 0, sizeof h);
	h.n = h.npad = (uint64_t)n, h.type = ST_INT32;
	sv_plan plan;
	st_error err;
	int ok = sv_prepare(&h, w, d, paths ? p : NULL, 2, &plan, &err) == 0;
	memcpy(r, d, sizeof *r * n * n);
	for (int i = 0; i < n * n; i++)
		rp[i] = w[i] < INF && i / n != i % n ? i / n : -1;
	t_fw_i32(r, rp, n);
	/* paths: 0 none, 1 derived from the distances, 2 tracked */
	fw_counts st = {0, 0, 0};
	fw_opts o = {.block = B, .threads = 2, .simd = simd, .counts = &st, .track_paths = paths == 2};
	ok = ok && fw_cpu(&o, ST_INT32, (uint64_t)n, d, paths ? p : NULL, &err) == 0;
	ok = ok && memcmp(d, r, sizeof *r * n * n) == 0 && st.derived == (paths == 1);
	if (paths)
		ok = ok && chains_ok_i32(w, d, p, n);
	free(w), free(d), free(r), free(p), free(rp);
	return ok;
}

/* Derived int32 predecessors follow one rule, however the search runs (a
 * vector over each vertex's first edges, then over the rest): the first
 * edge (u, t) in order of weight, then of u, with d[s][u] + w = d[s][t].
 * *late counts those found past IE_HEAD (8) edges of that order. */
static int first_tight_ok(const int32_t *w, const int32_t *d, const int32_t *p, int n, int *late)
{
	for (int s = 0; s < n; s++)
		for (int t = 0; t < n; t++) {
			int best = -1, rank = 0;
			for (int u = 0; u < n; u++) {
				int32_t x = w[u * n + t];
				if (u == t || x >= INF)
					continue;
				if (s != t && d[s * n + t] < INF && d[s * n + u] + x == d[s * n + t] &&
				    (best < 0 || x < w[best * n + t]))
					best = u;
			}
			for (int u = 0; best >= 0 && u < n; u++) /* best's place in the order */
				if (u != t && (w[u * n + t] < w[best * n + t] ||
				               (w[u * n + t] == w[best * n + t] && u < best)))
					rank++;
			if (p[s * n + t] != best)
				return 0;
			*late += rank >= 8;
		}
	return 1;
}

/* run_i32's derivation with weights 1 to 9 (no zero: no chain repaired),
 * held to first_tight_ok. */
static int run_first_tight(int n, int simd, int density, unsigned seed, int *late)
{
	int32_t *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
	int32_t *p = malloc(sizeof *p * n * n);
	graph(w, n, &seed, density);
	for (int i = 0; i < n * n; i++)
		if (w[i] == 0 && i / n != i % n)
			w[i] = 1 + (int32_t)(rand_r(&seed) % 9);
	memcpy(d, w, sizeof *d * n * n);
	fw_counts st = {0, 0, 0};
	fw_opts o = {.block = 32, .threads = 2, .simd = simd, .counts = &st};
	st_error err;
	int ok = fw_cpu(&o, ST_INT32, (uint64_t)n, d, p, &err) == 0 && st.derived;
	ok = ok && first_tight_ok(w, d, p, n, late);
	free(w), free(d), free(p);
	return ok;
}

/* Tile skipping and orders: a sparse graph in two parts (blocks that stay
 * all INF), solved as numbered and through a vertex order (reversed, or a
 * shuffle), against the textbook loop; returns the skipped tile count
 * through *skipped, or -1 when a result differs. */
static int run_sparse(int n, int B, int density, int order_kind, unsigned seed, uint64_t *skipped)
{
	int32_t *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
	int32_t *r = malloc(sizeof *r * n * n), *p = malloc(sizeof *p * n * n);
	int32_t *rp = malloc(sizeof *rp * n * n), *ord = malloc(sizeof *ord * n);
	graph(w, n, &seed, density);
	for (int k = 0; k < n; k++)
		ord[k] = order_kind == 1 ? n - 1 - k : k;
	if (order_kind == 2)
		for (int k = n - 1; k > 0; k--) {
			int j = (int)(rand_r(&seed) % (unsigned)(k + 1)), t = ord[k];
			ord[k] = ord[j], ord[j] = t;
		}
	memcpy(d, w, sizeof *d * n * n);
	for (int i = 0; i < n * n; i++)
		p[i] = rp[i] = w[i] < INF && i / n != i % n ? i / n : -1;
	memcpy(r, d, sizeof *r * n * n);
	t_fw_i32(r, rp, n);
	fw_counts st = {0, 0, 0};
	fw_opts o = {.block = B, .threads = 2, .counts = &st, .order = order_kind ? ord : NULL};
	st_error err;
	int ok = fw_cpu(&o, ST_INT32, (uint64_t)n, d, p, &err) == 0;
	ok = ok && memcmp(d, r, sizeof *r * n * n) == 0 && chains_ok_i32(w, d, p, n);
	*skipped = st.tiles_skipped;
	free(w), free(d), free(r), free(p), free(rp), free(ord);
	return ok;
}

static int run_f32(int n, int B, int simd, int paths, unsigned seed)
{
	float *d = malloc(sizeof *d * n * n), *r = malloc(sizeof *r * n * n);
	int32_t *p = malloc(sizeof *p * n * n);
	float pot[64];
	int neg = 0;
	for (int v = 0; v < n && v < 64; v++)
		pot[v] = (float)(rand_r(&seed) % 8);
	/* negative edges from potentials: no negative cycle, exact in float */
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			float x = i == j ? 0 : INFINITY;
			if (i != j && rand_r(&seed) % 100 < 30)
				x = (float)(rand_r(&seed) % 16) * 0.5f + (n <= 64 ? pot[i] - pot[j] : 0);
			d[i * n + j] = x;
			p[i * n + j] = x < INFINITY && i != j ? i : -1;
			neg |= x < 0;
		}
	memcpy(r, d, sizeof *r * n * n);
	ref_f32(r, n);
	/* derived where no weight is negative, else tracked */
	fw_counts st = {0, 0, 0};
	fw_opts o = {.block = B, .threads = 2, .simd = simd, .counts = &st, .track_paths = paths == 2};
	st_error err;
	int ok = fw_cpu(&o, ST_FLOAT32, (uint64_t)n, d, paths ? p : NULL, &err) == 0;
	ok = ok && st.derived == (paths == 1 && !neg);
	for (int i = 0; ok && i < n * n; i++)
		ok = d[i] == r[i] || fabsf(d[i] - r[i]) <= 1e-4f * (1 + fabsf(r[i]));
	free(d), free(r), free(p);
	return ok;
}

/* The textbook loop in double, with predecessors (strict improvements). */
static void ref_f64(double *d, int32_t *p, int n)
{
	for (int k = 0; k < n; k++)
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (d[i * n + k] + d[k * n + j] < d[i * n + j]) {
					d[i * n + j] = d[i * n + k] + d[k * n + j];
					if (p)
						p[i * n + j] = p[k * n + j];
				}
}

/* float64, fractional weights (whole with ties where whole), negative
 * edges from potentials for n <= 64: the distances within 1e-12 of the
 * loop's (equal where whole), every chain adding up to its distance; with
 * textbook 1 (fw_solve) the loop's predecessors exactly (whole weights). */
static int run_f64(int n, int B, int simd, int paths, int whole, unsigned seed)
{
	double *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
	double *r = malloc(sizeof *r * n * n);
	int32_t *p = malloc(sizeof *p * n * n), *rp = malloc(sizeof *rp * n * n);
	double pot[64];
	for (int v = 0; v < 64; v++)
		pot[v] = (double)(rand_r(&seed) % 8);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++) {
			double x = i == j ? 0 : INFINITY;
			if (i != j && rand_r(&seed) % 100 < 30) {
				x = whole ? (double)(rand_r(&seed) % 6)
				          : (double)rand_r(&seed) / RAND_MAX * 10;
				x += n <= 64 ? pot[i] - pot[j] : 0;
			}
			w[i * n + j] = d[i * n + j] = r[i * n + j] = x;
			p[i * n + j] = rp[i * n + j] = x < INFINITY && i != j ? i : -1;
		}
	ref_f64(r, rp, n);
	st_error err;
	int ok;
	if (paths == 3) {
		int64_t cycle;
		ok = fw_solve(ST_FLOAT64, (uint64_t)n, d, p, B, 2, &cycle, &err) == 0;
	} else {
		/* 4: textbook predecessors at this SIMD level */
		fw_opts o = {.block = B, .threads = 2, .simd = simd, .track_paths = paths == 2,
		             .textbook_paths = paths == 4};
		ok = fw_cpu(&o, ST_FLOAT64, (uint64_t)n, d, paths ? p : NULL, &err) == 0;
	}
	for (int i = 0; ok && i < n * n; i++)
		ok = d[i] == r[i] || (!whole && fabs(d[i] - r[i]) <= 1e-12 * (1 + fabs(r[i])));
	for (int s = 0; ok && paths && s < n; s++)
		for (int t = 0; ok && t < n; t++) {
			if (paths >= 3 && whole && p[s * n + t] != rp[s * n + t])
				ok = 0;
			if (s == t || d[s * n + t] == INFINITY)
				continue;
			double sum = 0;
			for (int v = t, steps = 0; ok && v != s; v = p[s * n + v])
				if (p[s * n + v] < 0 || ++steps > n)
					ok = 0;
				else
					sum += w[p[s * n + v] * n + v];
			ok = ok && fabs(sum - d[s * n + t]) <= 1e-9 * (1 + fabs(d[s * n + t]));
		}
	free(w), free(d), free(r), free(p), free(rp);
	return ok;
}

/* fw_solve's int32 predecessors against the loop's, zero-weight cycles and
 * ties included. */
static int run_textbook_i32(int n, int B, unsigned seed)
{
	int32_t *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
	int32_t *p = malloc(sizeof *p * n * n), *rp = malloc(sizeof *rp * n * n);
	graph(w, n, &seed, 30);
	for (int i = 0; i < n * n; i++)
		rp[i] = w[i] < INF && i / n != i % n ? i / n : -1;
	memcpy(d, w, sizeof *d * n * n);
	t_fw_i32(w, rp, n);
	st_error err;
	int64_t cycle;
	int ok = fw_solve(ST_INT32, (uint64_t)n, d, p, B, 2, &cycle, &err) == 0;
	ok = ok && memcmp(d, w, sizeof *d * n * n) == 0 && memcmp(p, rp, sizeof *p * n * n) == 0;
	free(w), free(d), free(p), free(rp);
	return ok;
}

int main(void)
{
	static const int sizes[] = {1, 2, 3, 17, 31, 64, 97, 130};
	static const int blocks[] = {16, 32, 48, 64, 128};
	char name[160];
	int best = fw_simd_detect();

	for (int simd = FW_SIMD_PORTABLE; simd <= FW_SIMD_AVX512; simd++) {
		if (simd > best) {
			printf("SKIP fw: %s (not on this processor)\n", fw_simd_name(simd));
			continue;
		}
		for (int paths = 0; paths <= 2; paths++) {
			int ok_i = 1, ok_f = 1;
			for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
				for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
					unsigned seed = (unsigned)(sizes[s] * 131 + blocks[b]);
					ok_i &= run_i32(sizes[s], blocks[b], simd, paths, seed);
					ok_f &= run_f32(sizes[s], blocks[b], simd, paths, seed);
				}
			static const char *how[] = {"distances", "with paths derived", "with paths tracked"};
			snprintf(name, sizeof name, "fw: %s int32 %s matches the textbook loop",
			         fw_simd_name(simd), how[paths]);
			T_CHECK(name, ok_i);
			snprintf(name, sizeof name, "fw: %s float32 %s matches the textbook loop",
			         fw_simd_name(simd), how[paths]);
			T_CHECK(name, ok_f);
		}
	}
	for (int simd = FW_SIMD_PORTABLE; simd <= best; simd++) {
		static const int dens[] = {4, 30, 90};
		int ok = 1, late = 0;
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (size_t k = 0; k < sizeof dens / sizeof *dens; k++)
				ok &= run_first_tight(sizes[s], simd, dens[k], (unsigned)(sizes[s] + dens[k]), &late);
		T_CHECKF(ok && late > 0, "fw: %s int32 derived predecessors: the first tight edge by weight "
		         "then vertex (%d found past the first 8)", fw_simd_name(simd), late);
	}
	for (int simd = FW_SIMD_PORTABLE; simd <= best; simd++)
		for (int paths = 0; paths <= 4; paths += paths == 2 ? 2 : 1) {
			int ok = 1;
			for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
				for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
					for (int whole = 0; whole < 2; whole++)
						ok &= run_f64(sizes[s], blocks[b], simd, paths, whole,
						              (unsigned)(sizes[s] * 7 + blocks[b] + whole));
			static const char *how[] = {"distances", "with paths derived", "with paths tracked",
			                            "", "with textbook paths (the loop's where whole)"};
			snprintf(name, sizeof name, "fw: %s float64 %s matches the textbook loop, chains add up",
			         fw_simd_name(simd), how[paths]);
			T_CHECK(name, ok);
		}
	{
		int ok_i = 1, ok_f = 1;
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
				unsigned seed = (unsigned)(sizes[s] * 13 + blocks[b]);
				ok_i &= run_textbook_i32(sizes[s], blocks[b], seed);
				ok_f &= run_f64(sizes[s], blocks[b], 0, 3, 1, seed);
				ok_f &= run_f64(sizes[s], blocks[b], 0, 3, 0, seed);
			}
		T_CHECK("fw: fw_solve int32: the textbook loop's distances and predecessors, ties included", ok_i);
		T_CHECK("fw: fw_solve float64: the textbook loop's predecessors where weights are whole, chains add up", ok_f);
		double neg[4] = {0, -1, -1, 0};
		int64_t cycle = -2;
		st_error e;
		T_CHECK("fw: fw_solve finds a negative cycle and a vertex on it",
		        fw_solve(ST_FLOAT64, 2, neg, NULL, 0, 1, &cycle, &e) == 1 && cycle >= 0 && cycle < 2);
		double nan2[4] = {0, NAN, 1, 0};
		T_CHECK("fw: fw_solve refuses a NaN weight",
		        fw_solve(ST_FLOAT64, 2, nan2, NULL, 0, 1, &cycle, &e) == -1 && strstr(e.msg, "NaN"));
	}
	/* fw_repair_paths on a row-major result whose chains were broken by hand:
	 * 0 -> 1 -> 2 -> 3 with 1 <-> 2 a zero-weight cycle. */
	{
		int32_t w[16] = {0, 4, INF, INF, INF, 0, 0, INF, INF, 0, 0, 1, INF, INF, INF, 0};
		int32_t d[16], p[16];
		memcpy(d, w, sizeof d);
		for (int i = 0; i < 16; i++)
			p[i] = w[i] < INF && i / 4 != i % 4 ? i / 4 : -1;
		t_fw_i32(d, p, 4);
		p[0 * 4 + 1] = 2, p[0 * 4 + 2] = 1; /* a predecessor cycle */
		p[1 * 4 + 3] = -1;                  /* a chain that stops short */
		int64_t fixed = fw_repair_paths(ST_INT32, 4, w, 4, d, p, 1);
		T_CHECK("fw: fw_repair_paths re-attaches broken chains",
		        fixed >= 3 && chains_ok_i32(w, d, p, 4));
		T_CHECK("fw: fw_repair_paths leaves good chains alone",
		        fw_repair_paths(ST_INT32, 4, w, 4, d, p, 2) == 0);
	}
	/* Every chain broken at once: a zero-weight path numbered against its
	 * direction (n - 1 -> n - 2 -> ... -> 0, entered from 0's far end), so
	 * that a bad vertex is attached only after the one before it; and a
	 * zero-weight complete graph entered through its last vertex alone,
	 * with more tight edges between bad vertices than the repair keeps. */
	{
		enum { NP = 300, NK = 120 };
		static int32_t w[NP * NP], d[NP * NP], p[NP * NP];
		for (int g = 0; g < 2; g++) {
			int n = g == 0 ? NP : NK;
			for (int i = 0; i < n * n; i++)
				w[i] = i / n == i % n ? 0 : INF;
			if (g == 0) {
				/* vertex n - 1 <- source 0 (weight 3), then down to 1 */
				w[0 * n + n - 1] = 3;
				for (int v = n - 1; v > 1; v--)
					w[v * n + v - 1] = 0;
			} else {
				/* 1 .. n - 1 all joined by 0; 0 -> n - 1 alone */
				for (int u = 1; u < n; u++)
					for (int v = 1; v < n; v++)
						if (u != v)
							w[u * n + v] = 0;
				w[0 * n + n - 1] = 5;
			}
			memcpy(d, w, sizeof *d * n * n);
			for (int i = 0; i < n * n; i++)
				p[i] = w[i] < INF && i / n != i % n ? i / n : -1;
			t_fw_i32(d, p, n);
			/* row 0 broken: dead ends, below n - 1 on the path, at
			 * every vertex of the clique */
			for (int t = 1; t < n - (g == 0); t++)
				p[0 * n + t] = -1;
			int64_t fixed = fw_repair_paths(ST_INT32, n, w, n, d, p, 1);
			T_CHECK(g == 0 ? "fw: fw_repair_paths attaches a chain of 298 bad vertices in one call"
			               : "fw: fw_repair_paths attaches a zero-weight clique past its kept edges",
			        fixed == n - 1 - (g == 0) && chains_ok_i32(w, d, p, n));
		}
	}
	{
		uint64_t sk[3] = {0}, dense = 1;
		int ok = 1;
		for (int kind = 0; kind < 3; kind++)
			ok &= run_sparse(300, 16, 2, kind, 7u + (unsigned)kind, &sk[kind]);
		T_CHECK("fw: sparse graph in two parts, as numbered, reversed and shuffled: "
		        "the textbook loop's distances, chains reach their sources", ok);
		T_CHECK("fw: tiles whose operands are all INF are skipped", sk[0] > 0 && sk[1] > 0);
		ok = run_sparse(97, 32, 100, 0, 3, &dense);
		T_CHECK("fw: two complete parts: the blocks between them are skipped", ok && dense > 0);
		enum { NC = 40 };
		static int32_t w[NC * NC], pp[NC * NC];
		for (int i = 0; i < NC * NC; i++)
			w[i] = i / NC == i % NC ? 0 : 1, pp[i] = i / NC != i % NC ? i / NC : -1;
		fw_counts st = {0, 0, 0};
		fw_opts o = {.block = 16, .threads = 1, .counts = &st};
		st_error e2;
		T_CHECK("fw: a complete graph skips nothing (24 tile updates)",
		        fw_cpu(&o, ST_INT32, NC, w, pp, &e2) == 0 && st.tiles == 24 && st.tiles_skipped == 0);
	}
	fw_opts bad = {.block = 24, .threads = 1};
	st_error err;
	int32_t one = 0;
	T_CHECK("fw: block size not a multiple of 16 refused",
	        fw_cpu(&bad, ST_INT32, 1, &one, NULL, &err) == -1);
	return T_DONE();
}
