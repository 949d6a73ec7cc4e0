/* test_solve.c - sv_prepare / sv_finish: distances from weights, negative
 * cycles, int32 reweighting and the overflow bound. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solve.h"
#include "t.h"

#define INF ST_INF_I32

static st_header header(uint64_t n, uint64_t npad, uint32_t type)
{
	st_header h;
	memset(&h, 0, sizeof h);
	h.n = n, h.npad = npad, h.type = type, h.matrices = ST_WEIGHTS;
	h.flags = ST_DIRECTED, h.block = ST_BLOCK_DEFAULT, h.inf_i32 = INF;
	h.cycle_vertex = -1;
	return h;
}

/* Bellman-Ford from s on the raw weights (stride npad), 64-bit. */
static void bf(const int32_t *w, int n, int npad, int s, int64_t *d)
{
	const int64_t big = INT64_MAX / 4;
	for (int v = 0; v < n; v++)
		d[v] = v == s ? 0 : big;
	for (int r = 0; r < n; r++)
		for (int u = 0; u < n; u++)
			for (int v = 0; v < n; v++)
				if (u != v && w[u * npad + v] < INF && d[u] < big &&
				    d[u] + w[u * npad + v] < d[v])
					d[v] = d[u] + w[u * npad + v];
}

static void test_basic(void)
{
	/* 3 vertices padded to 4: 0->1 (5), 1->2 (-2), 2->0 (4), self-loop 7 on 1. */
	int32_t w[16] = {
		0, 5, INF, INF,
		INF, 7, -2, INF,
		4, INF, 0, INF,
		INF, INF, INF, 0,
	};
	st_header h = header(3, 4, ST_INT32);
	int32_t d[9], p[9];
	sv_plan plan;
	st_error err = {""};

	int rc = sv_prepare(&h, w, d, p, 0, &plan, &err);
	T_CHECK("solve: negative edge, no cycle: ready", rc == 0);
	T_CHECK("solve: int32 negative weights get potentials", plan.potential != NULL);
	int nonneg = 1, diag0 = 1;
	for (int i = 0; i < 9; i++)
		nonneg &= d[i] >= 0 && d[i] <= INF;
	for (int i = 0; i < 3; i++)
		diag0 &= d[i * 3 + i] == 0 && p[i * 3 + i] == -1;
	T_CHECK("solve: reweighted values in [0, INF]", nonneg);
	T_CHECK("solve: diagonal 0, self-loop ignored, pred -1", diag0);
	T_CHECK("solve: pred = tail of edge", p[0 * 3 + 1] == 0 && p[1 * 3 + 2] == 1 &&
	        p[2 * 3 + 0] == 2 && p[0 * 3 + 2] == -1);
	t_fw_i32(d, p, 3);
	sv_finish(&plan, d, 0);
	int32_t want[9] = {0, 5, 3, 2, 0, -2, 4, 9, 0};
	T_CHECK("solve: distances after finish", memcmp(d, want, sizeof want) == 0);
	T_CHECK("solve: path 0->2 goes through 1", p[0 * 3 + 2] == 1);
	sv_plan_free(&plan);

	st_header out;
	h.provenance = "@PG\tID:gengraph\n";
	T_CHECK("solve: result header", sv_result_header(&h, 1, &out, &err) == 0 &&
	        out.n == 3 && out.npad == 3 && out.matrices == (ST_DIST | ST_PRED) &&
	        out.type == ST_INT32 && strcmp(out.provenance, h.provenance) == 0);
	free(out.provenance);
	T_CHECK("solve: result header without paths",
	        sv_result_header(&h, 0, &out, &err) == 0 && out.matrices == ST_DIST);
	free(out.provenance);
}

static void test_cycles(void)
{
	st_header h = header(4, 4, ST_INT32);
	int32_t d[16], p[16];
	sv_plan plan;
	st_error err = {""};

	/* negative self-loop on 2 */
	int32_t w1[16] = {0, 1, INF, INF, INF, 0, 1, INF, INF, INF, -1, INF, INF, INF, INF, 0};
	T_CHECK("solve: negative self-loop is a cycle",
	        sv_prepare(&h, w1, d, p, 0, &plan, &err) == 1 && plan.cycle_vertex == 2);

	/* 1 -> 2 -> 3 -> 1 sums to -1; 0 leads into it */
	int32_t w2[16] = {
		0, 3, INF, INF,
		INF, 0, 2, INF,
		INF, INF, 0, -4,
		INF, 1, INF, 0,
	};
	int rc = sv_prepare(&h, w2, d, p, 0, &plan, &err);
	T_CHECK("solve: negative cycle found", rc == 1);
	T_CHECK("solve: cycle vertex lies on the cycle",
	        plan.cycle_vertex >= 1 && plan.cycle_vertex <= 3);

	/* zero-weight cycle: not negative */
	int32_t w3[16] = {
		0, 3, INF, INF,
		INF, 0, 2, INF,
		INF, INF, 0, -3,
		INF, 1, INF, 0,
	};
	rc = sv_prepare(&h, w3, d, p, 0, &plan, &err);
	T_CHECK("solve: zero-weight cycle is not negative", rc == 0);
	sv_plan_free(&plan);

	/* float32 */
	st_header hf = header(3, 3, ST_FLOAT32);
	float f1[9] = {0, 1.5f, INFINITY, INFINITY, 0, -2.5f, 0.5f, INFINITY, 0};
	float fd[9];
	T_CHECK("solve: float32 negative cycle",
	        sv_prepare(&hf, f1, fd, NULL, 0, &plan, &err) == 1 && plan.cycle_vertex >= 0);
	float f2[9] = {0, 1.5f, INFINITY, INFINITY, 0, -2.5f, 1.5f, INFINITY, 0};
	rc = sv_prepare(&hf, f2, fd, NULL, 0, &plan, &err);
	T_CHECK("solve: float32 negative edges, no cycle, no reweighting",
	        rc == 0 && plan.potential == NULL && fd[1 * 3 + 2] == -2.5f && fd[2] == INFINITY);
	sv_plan_free(&plan);
	float f3[9] = {0, NAN, 1, 1, 0, 1, 1, 1, 0};
	T_CHECK("solve: NaN weight refused", sv_prepare(&hf, f3, fd, NULL, 0, &plan, &err) == -1);
}

static void test_overflow(void)
{
	st_header h = header(3, 3, ST_INT32);
	int32_t d[9], p[9];
	sv_plan plan;
	st_error err = {""};

	int32_t w[9] = {0, 600000000, INF, INF, 0, 600000000, INF, INF, 0};
	int rc = sv_prepare(&h, w, d, p, 0, &plan, &err);
	T_CHECK("solve: int32 overflow refused", rc == -1 && strstr(err.msg, "overflow") &&
	        strstr(err.msg, "float32"));
	int32_t w2[9] = {0, -600000000, INF, INF, 0, -600000000, INF, INF, 0};
	rc = sv_prepare(&h, w2, d, p, 0, &plan, &err);
	T_CHECK("solve: int32 negative overflow refused", rc == -1 && strstr(err.msg, "overflow"));
	int32_t w3[9] = {0, 500000000, INF, INF, 0, 500000000, INF, INF, 0};
	T_CHECK("solve: large but safe weights accepted",
	        sv_prepare(&h, w3, d, p, 0, &plan, &err) == 0);
	sv_plan_free(&plan);
	int32_t w4[9] = {0, INF + 1, INF, INF, 0, 1, INF, INF, 0};
	T_CHECK("solve: value above INF refused", sv_prepare(&h, w4, d, p, 0, &plan, &err) == -1);
}

static void test_sizes(void)
{
	sv_plan plan;
	st_error err = {""};
	st_header h0 = header(0, 0, ST_INT32);
	T_CHECK("solve: n = 0", sv_prepare(&h0, NULL, NULL, NULL, 0, &plan, &err) == 0);
	st_header h1 = header(1, 8, ST_INT32);
	int32_t w[64], d[1], p[1];
	for (int i = 0; i < 64; i++)
		w[i] = INF;
	T_CHECK("solve: n = 1", sv_prepare(&h1, w, d, p, 0, &plan, &err) == 0 &&
	        d[0] == 0 && p[0] == -1);
}

/* Random graphs with negative edges made safe by potentials: compare the
 * whole pipeline against Bellman-Ford from every source. */
static void test_random(void)
{
	int ok = 1;
	unsigned seed = 12345;
	for (int trial = 0; trial < 30 && ok; trial++) {
		int n = 1 + trial % 13, npad = n + trial % 3;
		int32_t *w = malloc(sizeof *w * npad * npad);
		int32_t *d = malloc(sizeof *d * n * n), *p = malloc(sizeof *p * n * n);
		int64_t *ref = malloc(sizeof *ref * n);
		int pot[16];
		for (int v = 0; v < n; v++)
			pot[v] = (int)(rand_r(&seed) % 50);
		for (int i = 0; i < npad; i++)
			for (int j = 0; j < npad; j++) {
				int32_t x = i == j ? 0 : INF;
				if (i < n && j < n && i != j && rand_r(&seed) % 100 < 40)
					x = (int32_t)(rand_r(&seed) % 20) + pot[i] - pot[j];
				w[i * npad + j] = x;
			}
		st_header h = header((uint64_t)n, (uint64_t)npad, ST_INT32);
		sv_plan plan;
		st_error err = {""};
		if (sv_prepare(&h, w, d, p, trial % 2 + 1, &plan, &err) != 0) {
			ok = 0;
			break;
		}
		t_fw_i32(d, p, n);
		sv_finish(&plan, d, 0);
		for (int s = 0; s < n; s++) {
			bf(w, n, npad, s, ref);
			for (int t = 0; t < n; t++) {
				int64_t want = ref[t] >= INT64_MAX / 4 ? INF : ref[t];
				ok &= d[s * n + t] == want;
			}
		}
		sv_plan_free(&plan);
		free(w), free(d), free(p), free(ref);
	}
	T_CHECK("solve: random graphs with negative edges match Bellman-Ford", ok);
}

/* Random graphs with a planted negative cycle: the vertex reported lies on
 * a negative cycle (a walk from it back to itself has negative weight). */
static void test_random_cycles(void)
{
	int ok = 1;
	unsigned seed = 777;
	for (int trial = 0; trial < 40 && ok; trial++) {
		int n = 3 + trial % 20;
		int32_t *w = malloc(sizeof *w * n * n), *d = malloc(sizeof *d * n * n);
		for (int i = 0; i < n * n; i++)
			w[i] = i / n == i % n ? 0 : rand_r(&seed) % 100 < 20 ? (int32_t)(rand_r(&seed) % 30) : INF;
		int a = (int)(rand_r(&seed) % n), b = (a + 1 + (int)(rand_r(&seed) % (n - 1))) % n;
		w[a * n + b] = 5, w[b * n + a] = -6; /* the cycle a -> b -> a weighs -1 */
		st_header h = header((uint64_t)n, (uint64_t)n, ST_INT32);
		sv_plan plan;
		st_error err;
		int rc = sv_prepare(&h, w, d, NULL, trial % 2 + 1, &plan, &err);
		ok &= rc == 1 && plan.cycle_vertex >= 0 && plan.cycle_vertex < n;
		if (ok) {
			/* Bellman-Ford from v over n rounds, edges counted: the
			 * best closed walk back to v must be negative. */
			int v = (int)plan.cycle_vertex;
			int64_t *dd = malloc(sizeof *dd * n);
			const int64_t big = INT64_MAX / 4;
			for (int x = 0; x < n; x++)
				dd[x] = big;
			for (int x = 0; x < n; x++)
				if (x != v && w[v * n + x] < INF)
					dd[x] = w[v * n + x];
			for (int r = 0; r < n; r++)
				for (int u = 0; u < n; u++)
					for (int x = 0; x < n; x++)
						if (u != x && dd[u] < big && w[u * n + x] < INF &&
						    dd[u] + w[u * n + x] < dd[x])
							dd[x] = dd[u] + w[u * n + x];
			ok &= dd[v] < 0;
			free(dd);
		}
		free(w), free(d);
	}
	T_CHECK("solve: random planted negative cycles, the vertex lies on one", ok);
}

/* In place without predecessors (the matrix read straight into place) the
 * facts are read and only the diagonal written: the same result, return
 * code, plan and message as a separate copy, for plain, negative,
 * out-of-range and negative-diagonal weights. */
static void test_in_place(void)
{
	static const int kinds = 5;
	uint64_t seed = 7;
	for (int kind = 0; kind < kinds; kind++)
		for (int n = 1; n <= 70; n += 23) {
			st_header h = header((uint64_t)n, (uint64_t)n, ST_INT32);
			int32_t *w = malloc((size_t)n * n * 4), *a = malloc((size_t)n * n * 4),
			        *b = malloc((size_t)n * n * 4);
			for (int e = 0; e < n * n; e++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				uint32_t r = (uint32_t)(seed >> 33);
				w[e] = r % 4 == 0 ? INF : (int32_t)(r % 97) - (kind == 1 ? 3 : 0);
			}
			if (kind == 2)
				w[(n * n) / 2] = INF + 5;            /* out of range */
			if (kind == 3)
				w[(n / 2) * n + n / 2] = -1;         /* negative diagonal */
			if (kind == 4)
				w[n * n - 1 - (n > 1)] = -INF;       /* out of range, low */
			memcpy(a, w, (size_t)n * n * 4);
			sv_plan pa, pb;
			st_error ea = {""}, eb = {""};
			int ra = sv_prepare(&h, a, a, NULL, 0, &pa, &ea);
			int rb = sv_prepare(&h, w, b, NULL, 0, &pb, &eb);
			int same = ra == rb && !strcmp(ea.msg, eb.msg) && pa.cycle_vertex == pb.cycle_vertex
			           && (ra != 0 || !memcmp(a, b, (size_t)n * n * 4))
			           && !pa.potential == !pb.potential
			           && (!pa.potential || !memcmp(pa.potential, pb.potential, (size_t)n * 8));
			char name[96];
			snprintf(name, sizeof name, "solve: in place = copied, kind %d, n %d (rc %d)", kind, n, ra);
			T_CHECK(name, same);
			sv_plan_free(&pa);
			sv_plan_free(&pb);
			free(w), free(a), free(b);
		}
}

/* facts_equal: the same facts, pos_bound compared as the callers use it
 * (exact below ST_INF_I32, else past it). */
static int facts_equal(const sv_facts *a, const sv_facts *b)
{
	const int bounded = a->pos_bound < INF ? a->pos_bound == b->pos_bound : b->pos_bound >= INF;
	return a->edges == b->edges && bounded && a->neg_diag == b->neg_diag && a->bad == b->bad
	       && a->negative == b->negative && a->zero == b->zero;
}

/* The facts of every split of w (n x n, stride n) into two bands, added,
 * equal those of the whole. */
static int splits_agree(uint32_t type, const void *w, uint64_t n, const sv_facts *whole)
{
	st_error err;
	for (uint64_t cut = 0; cut <= n; cut++) {
		sv_facts a, b;
		if (sv_band_facts(type, n, w, 0, cut, 1, &a, &err) < 0
		    || sv_band_facts(type, n, (const char *)w + cut * n * 4, cut, n - cut, 2, &b, &err) < 0)
			return 0;
		sv_facts_add(&a, &b);
		if (!facts_equal(&a, whole))
			return 0;
	}
	return 1;
}

static void test_band_facts(void)
{
	/* row 0: edges 5 and 0; row 1: a positive loop, edge 7; row 2: a
	 * negative loop, edges 1 and 2; row 3: an edge of -3. */
	const int32_t w[16] = {
		0, 5, INF, 0,
		INF, 9, 7, INF,
		1, INF, -1, 2,
		-3, INF, INF, 0,
	};
	sv_facts f;
	st_error err;
	T_CHECK("band facts: int32 taken",
	        sv_band_facts(ST_INT32, 4, w, 0, 4, 2, &f, &err) == 0);
	T_CHECK("band facts: edges off the diagonal", f.edges == 6);
	T_CHECK("band facts: the sum of each row's largest weight", f.pos_bound == 5 + 7 + 2);
	T_CHECK("band facts: the first negative diagonal entry", f.neg_diag == 2);
	T_CHECK("band facts: a weight below zero, a weight of 0, nothing out of range",
	        f.negative && f.zero && !f.bad);
	T_CHECK("band facts: every split into two bands adds up to the whole",
	        splits_agree(ST_INT32, w, 4, &f));
	T_CHECK("band facts: a negative loop and edge need more than the diagonal",
	        sv_facts_need(ST_INT32, &f) != NULL);
	sv_band_facts(ST_INT32, 2, w, 0, 2, 1, &f, &err);
	T_CHECK("band facts: rows 0 and 1 (a positive loop) need nothing more",
	        sv_facts_need(ST_INT32, &f) == NULL);
	sv_facts g;
	sv_band_facts(ST_INT32, 2, (const int32_t[]){0, INF + 1, 3, 0}, 0, 2, 1, &g, &err);
	T_CHECK("band facts: an int32 entry past INF is out of range", g.bad && g.edges == 1);
	sv_band_facts(ST_INT32, 2, (const int32_t[]){0, INF - 1, INF - 1, 0}, 0, 2, 1, &g, &err);
	T_CHECK("band facts: the path bound passes INF", g.pos_bound >= INF && !g.bad);
	T_CHECK("band facts: past INF, int32 distances could overflow",
	        sv_facts_need(ST_INT32, &g) && strstr(sv_facts_need(ST_INT32, &g), "overflow")
	        && !sv_facts_need(ST_FLOAT32, &g));

	const float inf = INFINITY;
	const float fw[9] = {0, -0.0f, inf, NAN, 0, 2.5f, 1, -inf, 0};
	T_CHECK("band facts: float32 taken", sv_band_facts(ST_FLOAT32, 3, fw, 0, 3, 1, &f, &err) == 0);
	T_CHECK("band facts: float32 NaN and -inf are out of range", f.bad && f.neg_diag == -1);
	T_CHECK("band facts: float32 splits add up", splits_agree(ST_FLOAT32, fw, 3, &f));
	sv_band_facts(ST_FLOAT32, 2, (const float[]){0, -0.0f, 1, 0}, 0, 2, 1, &g, &err);
	T_CHECK("band facts: float32 -0 weighs 0, not below zero",
	        g.zero && !g.negative && !g.bad && g.edges == 2);
	const double dw[1] = {0};
	T_CHECK("band facts: float64 refused with a reason",
	        sv_band_facts(ST_FLOAT64, 1, dw, 0, 1, 1, &f, &err) < 0 && strstr(err.msg, "float64"));

	/* Random graphs: a count made here, and every split. */
	enum { N = 40 };
	static int32_t r[N * N];
	int ok = 1, splits = 1;
	for (int trial = 0; trial < 20; trial++) {
		uint64_t edges = 0;
		int64_t bound = 0;
		int neg = 0;
		for (int i = 0; i < N; i++) {
			int32_t most = 0;
			for (int j = 0; j < N; j++) {
				const uint32_t x = t_rnd();
				int32_t v = x % 3 ? INF : (int32_t)(x >> 8) % 1000 - (trial % 2 ? 5 : 0);
				r[i * N + j] = i == j ? 0 : v;
				if (i != j && v < INF) {
					edges++;
					neg |= v < 0;
					most = v > most ? v : most;
				}
			}
			bound += most;
		}
		sv_band_facts(ST_INT32, N, r, 0, N, 3, &f, &err);
		ok &= f.edges == edges && f.pos_bound == bound && f.negative == neg && !f.bad;
		splits &= splits_agree(ST_INT32, r, N, &f);
	}
	T_CHECK("band facts: random graphs, counted here", ok);
	T_CHECK("band facts: random graphs, every split adds up", splits);
}

int main(void)
{
	test_in_place();
	test_random_cycles();
	test_basic();
	test_cycles();
	test_overflow();
	test_sizes();
	test_random();
	test_band_facts();
	return T_DONE();
}
