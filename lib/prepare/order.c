/* order.c - nested-dissection orders through METIS.  See order.h. */
#include "order.h"
#include "common.h"

#include <errno.h>
#include <math.h>
#include <omp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef HAVE_METIS
#include <metis.h>
#endif


int ord_available(void)
{
#ifdef HAVE_METIS
	return 1;
#else
	return 0;
#endif
}

static inline int finite_at(uint32_t type, const void *w, uint64_t e)
{
	return type == ST_INT32 ? ((const int32_t *)w)[e] < ST_INF_I32
	       : type == ST_FLOAT32 ? ((const float *)w)[e] < INFINITY
	                            : ((const double *)w)[e] < INFINITY;
}

/* Finite off-diagonal entries of row i. */
static uint64_t row_edges(uint64_t n, uint32_t type, const void *w, uint64_t i)
{
	uint64_t c = 0;
	for (uint64_t j = 0; j < n; j++)
		c += j != i && finite_at(type, w, i * n + j);
	return c;
}

uint64_t ord_count_edges(uint64_t n, uint32_t type, const void *w, uint64_t limit, int threads)
{
	/* Rows in a spread order, so a dense graph is known for one after a few. */
	uint64_t edges = 0;
	#pragma omp parallel for schedule(static, 1) LIB_OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		if (__atomic_load_n(&edges, __ATOMIC_RELAXED) > limit)
			continue;
		__atomic_add_fetch(&edges, row_edges(n, type, w, i), __ATOMIC_RELAXED);
	}
	return edges;
}

#ifdef HAVE_METIS
static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

/* The aligned dissection (ord_nested_dissection with block > 0): a part of
 * at most LEAF_BLOCKS blocks is ordered by METIS's own nested dissection;
 * a larger one is split by a vertex separator S into halves A and B, each
 * trimmed to a whole number of blocks by moving vertices into S (a
 * separator with more vertices still separates), and laid out A, B, S.
 * Every part then starts on a block boundary, so no block holds vertices of
 * two halves, and the rounds of A's blocks and of B's can run together. */
#define LEAF_BLOCKS 4

struct dissect {
	const idx_t *xadj, *adj; /* the whole graph */
	idx_t *loc;              /* vertex -> its index in the current part, or -1 */
	int32_t *perm;
	uint64_t at;             /* next position of perm */
	idx_t block;
	idx_t opts[METIS_NOPTIONS];
};

/* The part's own graph (vertices set[0 .. k - 1]), into *x and *a. */
static int part_graph(struct dissect *z, const int32_t *set, idx_t k, idx_t **x, idx_t **a)
{
	idx_t m = 0;
	for (idx_t i = 0; i < k; i++) {
		z->loc[set[i]] = i;
		m += z->xadj[set[i] + 1] - z->xadj[set[i]];
	}
	*x = malloc((k + 1) * sizeof **x);
	*a = malloc((m ? m : 1) * sizeof **a);
	if (!*x || !*a) {
		free(*x), free(*a);
		for (idx_t i = 0; i < k; i++)
			z->loc[set[i]] = -1;
		return -1;
	}
	m = 0;
	for (idx_t i = 0; i < k; i++) {
		(*x)[i] = m;
		for (idx_t e = z->xadj[set[i]]; e < z->xadj[set[i] + 1]; e++)
			if (z->loc[z->adj[e]] >= 0)
				(*a)[m++] = z->loc[z->adj[e]];
	}
	(*x)[k] = m;
	for (idx_t i = 0; i < k; i++)
		z->loc[set[i]] = -1;
	return 0;
}

/* METIS's own nested dissection of the part set[0 .. k - 1] (its graph x,
 * a) into perm from z->at: METIS_OK or its error. */
static int leaf(struct dissect *z, const int32_t *set, idx_t k, idx_t *x, idx_t *a)
{
	idx_t nv = k, *p = malloc(k * sizeof *p), *ip = malloc(k * sizeof *ip);
	int rc = p && ip ? METIS_NodeND(&nv, x, a, NULL, z->opts, p, ip) : METIS_ERROR_MEMORY;
	for (idx_t i = 0; i < k && rc == METIS_OK; i++)
		z->perm[z->at++] = set[p[i]];
	free(p), free(ip);
	return rc;
}

/* Orders the vertices set[0 .. k - 1] into perm from z->at: METIS_OK or
 * its error. */
static int dissect(struct dissect *z, const int32_t *set, idx_t k)
{
	idx_t *x, *a;
	if (k == 0)
		return METIS_OK;
	if (part_graph(z, set, k, &x, &a) < 0)
		return METIS_ERROR_MEMORY;
	if (x[k] == 0) { /* no edges: any order, every block on its own */
		for (idx_t i = 0; i < k; i++)
			z->perm[z->at++] = set[i];
		free(x), free(a);
		return METIS_OK;
	}
	if (k <= LEAF_BLOCKS * z->block) {
		int rc = leaf(z, set, k, x, a);
		free(x), free(a);
		return rc;
	}
	idx_t nv = k, sep = 0, *part = malloc(k * sizeof *part);
	int rc = part ? METIS_ComputeVertexSeparator(&nv, x, a, NULL, z->opts, &sep, part)
	              : METIS_ERROR_MEMORY;
	idx_t count[3] = {0, 0, 0};
	for (idx_t i = 0; i < k && rc == METIS_OK; i++)
		count[part[i]]++;
	/* Trim each half to whole blocks: first vertices next to the
	 * separator, then any. */
	for (int side = 0; side < 2 && rc == METIS_OK; side++) {
		idx_t drop = count[side] % z->block;
		count[2] += drop;
		count[side] -= drop;
		for (int pass = 0; pass < 2 && drop; pass++)
			for (idx_t i = 0; i < k && drop; i++) {
				if (part[i] != side)
					continue;
				int next_to_s = pass;
				for (idx_t e = x[i]; e < x[i + 1] && !next_to_s; e++)
					next_to_s = part[a[e]] == 2;
				if (next_to_s) {
					part[i] = 2;
					drop--;
				}
			}
	}
	/* both halves empty of whole blocks: no split left, the part is a leaf */
	const int split = rc == METIS_OK && count[0] > 0 && count[1] > 0;
	if (rc == METIS_OK && !split)
		rc = leaf(z, set, k, x, a);
	free(x), free(a);
	if (split) {
		int32_t *sides = malloc(k * sizeof *sides);
		idx_t q[3] = {0, count[0], count[0] + count[1]};
		if (!sides)
			rc = METIS_ERROR_MEMORY;
		for (idx_t i = 0; i < k && sides; i++)
			sides[q[part[i]]++] = set[i];
		if (rc == METIS_OK)
			rc = dissect(z, sides, count[0]);
		if (rc == METIS_OK)
			rc = dissect(z, sides + count[0], count[1]);
		for (idx_t i = count[0] + count[1]; i < k && rc == METIS_OK; i++)
			z->perm[z->at++] = sides[i];
		free(sides);
	}
	free(part);
	return rc;
}
#endif

#ifdef HAVE_METIS
/* The split dissection (ord_split_dissection_arcs): the top SPLIT_LEVELS
 * levels of vertex separators found by METIS_ComputeVertexSeparator, each
 * part laid out A, B, S as dissect() lays it out, the parts below them
 * (and any under SPLIT_FROM vertices) ordered by METIS's own nested
 * dissection.  The two halves of a separator are ordered at once, the
 * second in a child process writing its positions into memory shared with
 * the caller: METIS's random numbers are one state a process, which two
 * threads would share, and each of its calls starts again from its seed,
 * so the order is the same however many processes make it. */
#define SPLIT_LEVELS 4
#define SPLIT_FROM 10000

/* The part set[0 .. k - 1] (its graph x, a) by METIS's own nested
 * dissection into z->perm from position at: METIS_OK or its error. */
static int leaf_at(struct dissect *z, const int32_t *set, idx_t k, idx_t *x, idx_t *a,
                   uint64_t at)
{
	if (x[k] > 0) {
		z->at = at;
		return leaf(z, set, k, x, a);
	}
	for (idx_t i = 0; i < k; i++) /* no edges: any order */
		z->perm[at + (uint64_t)i] = set[i];
	return METIS_OK;
}

/* Waits for child pid: METIS_OK where it ordered its half, else an error. */
static int child_rc(pid_t pid)
{
	int status = 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return METIS_ERROR;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? METIS_OK : METIS_ERROR;
}

/* The vertices set[0 .. k - 1] into z->perm from position at, split levels
 * times more, on at most procs processes: METIS_OK or its error. */
static int split_order(struct dissect *z, const int32_t *set, idx_t k, uint64_t at, int levels,
                       int procs)
{
	idx_t *x, *a;
	if (k == 0)
		return METIS_OK;
	if (part_graph(z, set, k, &x, &a) < 0)
		return METIS_ERROR_MEMORY;
	idx_t nv = k, sep = 0, *side = NULL, count[3] = {0, 0, 0};
	int rc = METIS_OK;
	if (levels > 0 && k >= SPLIT_FROM && x[k] > 0) {
		side = malloc(k * sizeof *side);
		rc = side ? METIS_ComputeVertexSeparator(&nv, x, a, NULL, z->opts, &sep, side)
		          : METIS_ERROR_MEMORY;
		for (idx_t i = 0; i < k && rc == METIS_OK; i++)
			count[side[i]]++;
	}
	if (rc != METIS_OK || !count[0] || !count[1]) { /* a part to order whole */
		rc = rc != METIS_OK ? rc : leaf_at(z, set, k, x, a, at);
		free(x), free(a), free(side);
		return rc;
	}
	free(x), free(a);
	int32_t *sides = malloc(k * sizeof *sides);
	idx_t q[3] = {0, count[0], count[0] + count[1]};
	for (idx_t i = 0; i < k && sides; i++)
		sides[q[side[i]]++] = set[i];
	free(side);
	if (!sides)
		return METIS_ERROR_MEMORY;
	for (idx_t i = count[0] + count[1]; i < k; i++)
		z->perm[at + (uint64_t)i] = sides[i];
	const uint64_t at_b = at + (uint64_t)count[0];
	const pid_t pid = procs > 1 ? fork() : -1;
	if (pid == 0)
		_exit(split_order(z, sides + count[0], count[1], at_b, levels - 1, procs / 2)
		      == METIS_OK ? 0 : 1);
	rc = split_order(z, sides, count[0], at, levels - 1, pid > 0 ? procs - procs / 2 : 1);
	if (pid > 0) {
		const int b = child_rc(pid);
		rc = rc != METIS_OK ? rc : b;
	} else if (rc == METIS_OK) {
		rc = split_order(z, sides + count[0], count[1], at_b, levels - 1, 1);
	}
	free(sides);
	return rc;
}

/* Peeling (the split dissection's first step): the vertices of degree one
 * or none are eliminated first (no fill: a tree's leaves), then while none
 * is left one of degree two (one fill edge, between its neighbours: a
 * chain's ends joined), as minimum degree would.  Road networks are mostly
 * such vertices (FLA: 64% of them), so METIS orders the core that is left,
 * a third of the graph.  Degrees never grow, so the lists change in place. */
struct peeled {
	idx_t *xadj, *adj; /* the core's graph (its vertices numbered 0 ..) */
	int32_t *core;     /* core vertex -> the graph's vertex */
	int32_t *hang;     /* peeled vertex k's neighbours as it went: hang[2k], hang[2k + 1] (-1: none) */
	uint64_t count;    /* vertices peeled: perm[0 .. count - 1] */
	uint64_t left;     /* the core's vertices */
};

/* In list [b, b + *d) of adj: v replaced by u, or dropped where u is
 * there already or u < 0 (*d one less). */
static void replace_neighbour(idx_t *adj, idx_t b, idx_t *d, idx_t v, idx_t u)
{
	idx_t at = -1, has = 0;
	for (idx_t e = b; e < b + *d; e++) {
		at = adj[e] == v ? e : at;
		has |= adj[e] == u;
	}
	if (u >= 0 && !has) {
		adj[at] = u;
	} else {
		adj[at] = adj[b + *d - 1];
		--*d;
	}
}

/* The peeling's queues: vertices of degree at most one (low), of two
 * (two); a vertex joins each at most once (a degree falls by one at a
 * time and never rises). */
struct peel_queues {
	int32_t *low, *two;
	uint64_t low_head, low_tail, two_head, two_tail;
};

static void queue_by_degree(struct peel_queues *q, idx_t v, idx_t was, idx_t now)
{
	if (now <= 1 && was > 1)
		q->low[q->low_tail++] = v;
	else if (now == 2 && was > 2)
		q->two[q->two_tail++] = v;
}

/* The core left: its vertices (those not gone) renumbered in order, their
 * lists (deg[i] entries from xadj[i]) into *p.  0, or -1 (out of memory). */
static int core_graph(uint64_t n, const idx_t *xadj, const idx_t *adj, const idx_t *deg,
                      const uint8_t *gone, int32_t *id, struct peeled *p)
{
	uint64_t edges = 0, c = 0;
	p->core = malloc((p->left ? p->left : 1) * sizeof *p->core);
	p->xadj = malloc((p->left + 1) * sizeof *p->xadj);
	for (uint64_t i = 0; i < n; i++) {
		id[i] = gone[i] ? -1 : (int32_t)c;
		if (!gone[i] && p->core)
			p->core[c] = (int32_t)i;
		c += !gone[i];
		edges += gone[i] ? 0 : (uint64_t)deg[i];
	}
	p->adj = malloc((edges ? edges : 1) * sizeof *p->adj);
	if (!p->core || !p->xadj || !p->adj) {
		free(p->core), free(p->xadj), free(p->adj);
		return -1;
	}
	idx_t k = 0;
	c = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (gone[i])
			continue;
		p->xadj[c++] = k;
		for (idx_t e = xadj[i]; e < xadj[i] + deg[i]; e++)
			p->adj[k++] = id[adj[e]];
	}
	p->xadj[p->left] = k;
	return 0;
}

/* The graph's (xadj, adj: no loops, no repeats; changed) peeled vertices
 * into perm in turn, the rest as *p's core: 0, or -1 (out of memory). */
static int peel(uint64_t n, idx_t *xadj, idx_t *adj, int32_t *perm, struct peeled *p)
{
	const size_t some = n ? n : 1;
	idx_t *deg = malloc(some * sizeof *deg);
	struct peel_queues q = {malloc(some * sizeof *q.low), malloc(some * sizeof *q.two), 0, 0, 0, 0};
	uint8_t *gone = calloc(some, 1);
	memset(p, 0, sizeof *p);
	p->hang = malloc(2 * some * sizeof *p->hang);
	int rc = deg && q.low && q.two && gone && p->hang ? 0 : -1;
	for (uint64_t i = 0; i < n && rc == 0; i++) {
		deg[i] = xadj[i + 1] - xadj[i];
		queue_by_degree(&q, (idx_t)i, 3, deg[i]);
	}
	while (rc == 0 && (q.low_head < q.low_tail || q.two_head < q.two_tail)) {
		const idx_t v = q.low_head < q.low_tail ? q.low[q.low_head++] : q.two[q.two_head++];
		if (gone[v])
			continue; /* (queued with two, peeled with one) */
		gone[v] = 1;
		const idx_t b = xadj[v];
		p->hang[2 * p->count] = deg[v] > 0 ? adj[b] : -1;
		p->hang[2 * p->count + 1] = deg[v] > 1 ? adj[b + 1] : -1;
		perm[p->count++] = v;
		for (idx_t s = 0; s < deg[v]; s++) {
			const idx_t a = adj[b + s], was = deg[a];
			replace_neighbour(adj, xadj[a], &deg[a], v, deg[v] == 2 ? adj[b + 1 - s] : -1);
			queue_by_degree(&q, a, was, deg[a]);
		}
	}
	p->left = n - p->count;
	if (rc == 0)
		rc = core_graph(n, xadj, adj, deg, gone, q.low, p); /* (q.low: work space) */
	free(deg), free(q.low), free(q.two), free(gone);
	if (rc < 0)
		free(p->hang);
	return rc;
}

/* The peeled vertices (perm[0 .. p->count - 1]) set among the core's
 * (their order cperm), each just before the first core vertex it hangs
 * on, at any remove (those on none first), in the order they were peeled
 * within each place: where the factor's walk finds their neighbours close
 * by, and with the same fill, since a peeled vertex still goes before
 * every vertex it met as it went, and no core vertex before it is one of
 * them.  0, or -1 (out of memory). */
static int interleave(uint64_t n, int32_t *perm, const struct peeled *p, const int32_t *cperm)
{
	int32_t *at = malloc((n ? n : 1) * sizeof *at); /* core: its place; peeled: -1 - its turn */
	int32_t *key = malloc((p->count ? p->count : 1) * sizeof *key);
	uint64_t *start = calloc(p->left + 2, sizeof *start);
	int32_t *out = malloc((n ? n : 1) * sizeof *out);
	if (!at || !key || !start || !out) {
		free(at), free(key), free(start), free(out);
		return -1;
	}
	for (uint64_t k = 0; k < p->count; k++)
		at[perm[k]] = -1 - (int32_t)k;
	for (uint64_t c = 0; c < p->left; c++)
		at[p->core[cperm[c]]] = (int32_t)c;
	/* key: the first core place a peeled vertex hangs on, p->left for none
	 * (a neighbour peeled later has its key already) */
	for (uint64_t k = p->count; k-- > 0;) {
		key[k] = (int32_t)p->left;
		for (int s = 0; s < 2; s++) {
			const int32_t h = p->hang[2 * k + s];
			const int32_t kh = h < 0 ? (int32_t)p->left : at[h] >= 0 ? at[h] : key[-1 - at[h]];
			key[k] = kh < key[k] ? kh : key[k];
		}
	}
	/* a counting sort: those on none (bucket 0), then each core place's */
	for (uint64_t k = 0; k < p->count; k++)
		start[key[k] == (int32_t)p->left ? 1 : (uint64_t)key[k] + 2]++;
	uint64_t o = 0;
	for (uint64_t c = 0; c < p->left + 2; c++) {
		const uint64_t here = start[c];
		start[c] = o;
		o += here + (c >= 2); /* (room for the core vertex after its peeled ones) */
	}
	for (uint64_t k = 0; k < p->count; k++)
		out[start[key[k] == (int32_t)p->left ? 1 : (uint64_t)key[k] + 2]++] = perm[k];
	for (uint64_t c = 0; c < p->left; c++)
		out[start[c + 2]] = p->core[cperm[c]];
	memcpy(perm, out, n * sizeof *perm);
	free(at), free(key), free(start), free(out);
	return 0;
}

/* The split dissection of the whole graph z (n vertices) into perm, on at
 * most procs processes (the positions in shared memory where more than
 * one): METIS_OK or its error. */
static int split_dissection(struct dissect *z, uint64_t n, int32_t *perm, int procs)
{
	int32_t *all = malloc((n ? n : 1) * sizeof *all);
	int32_t *shared = procs > 1 ? mmap(NULL, n * sizeof *shared, PROT_READ | PROT_WRITE,
	                                   MAP_SHARED | MAP_ANONYMOUS, -1, 0)
	                            : MAP_FAILED;
	if (!all) {
		if (shared != MAP_FAILED)
			munmap(shared, n * sizeof *shared);
		return METIS_ERROR_MEMORY;
	}
	for (uint64_t i = 0; i < n; i++)
		all[i] = (int32_t)i;
	z->perm = shared != MAP_FAILED ? shared : perm;
	const int rc = split_order(z, all, (idx_t)n, 0, SPLIT_LEVELS, shared != MAP_FAILED ? procs : 1);
	if (shared != MAP_FAILED) {
		memcpy(perm, shared, n * sizeof *perm);
		munmap(shared, n * sizeof *shared);
	}
	z->perm = perm;
	free(all);
	return rc;
}
#endif

#ifdef HAVE_METIS
/* The split order of the graph (xadj, adj; changed) into perm: its
 * vertices of degree two or less peeled first, then its core split
 * (loc: n entries of work space): METIS_OK or its error. */
static int peeled_split(uint64_t n, idx_t *xadj, idx_t *adj, const idx_t *opts, int32_t *perm,
                        idx_t *loc, int procs)
{
	struct peeled c;
	if (peel(n, xadj, adj, perm, &c) < 0)
		return METIS_ERROR_MEMORY;
	int32_t *cperm = malloc((c.left ? c.left : 1) * sizeof *cperm);
	struct dissect z = {c.xadj, c.adj, loc, cperm, 0, 1, {0}};
	memcpy(z.opts, opts, sizeof z.opts);
	for (uint64_t i = 0; i < c.left; i++)
		loc[i] = -1;
	int rc = cperm ? split_dissection(&z, c.left, cperm, procs) : METIS_ERROR_MEMORY;
	if (rc == METIS_OK && interleave(n, perm, &c, cperm) < 0)
		rc = METIS_ERROR_MEMORY;
	free(cperm), free(c.core), free(c.xadj), free(c.adj), free(c.hang);
	return rc;
}
#endif

#ifdef HAVE_METIS
/* The order of the graph whose arcs leave vertex i for out[deg[i] ..
 * deg[i + 1] - 1] (no loops), directions dropped: see
 * ord_nested_dissection. */
static int order_lists(uint64_t n, const uint64_t *deg, const int32_t *out, int32_t *perm,
                       int block, int split, int threads, st_error *err)
{
	if (2 * deg[n] > INT32_MAX)
		return lib_fail(err, "%llu edges are too many for METIS's 32-bit indices",
		                (unsigned long long)deg[n]);
	idx_t *xadj = calloc(n + 1, sizeof *xadj), *adj = malloc((2 * deg[n] + 1) * sizeof *adj);
	idx_t *iperm = malloc((n ? n : 1) * sizeof *iperm), *p = malloc((n ? n : 1) * sizeof *p);
	idx_t *fillp = malloc((n ? n : 1) * sizeof *fillp);
	if (!xadj || !adj || !iperm || !p || !fillp) {
		free(xadj), free(adj), free(iperm), free(p), free(fillp);
		return lib_fail(err, "out of memory for the graph's adjacency");
	}
	/* undirected degrees (with duplicates), then both directions */
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t e = deg[i]; e < deg[i + 1]; e++) {
			xadj[i + 1]++;
			xadj[out[e] + 1]++;
		}
	for (uint64_t i = 0; i < n; i++)
		xadj[i + 1] += xadj[i];
	memcpy(fillp, xadj, n * sizeof *fillp);
	for (uint64_t i = 0; i < n; i++)
		for (uint64_t e = deg[i]; e < deg[i + 1]; e++) {
			adj[fillp[i]++] = out[e];
			adj[fillp[out[e]]++] = (idx_t)i;
		}
	/* sort each list and drop repeats, compacting in place */
	idx_t k = 0;
	for (uint64_t i = 0; i < n; i++) {
		idx_t b = xadj[i], e = xadj[i + 1];
		qsort(adj + b, (size_t)(e - b), sizeof *adj, cmp_i32);
		xadj[i] = k;
		for (idx_t q = b; q < e; q++)
			if (q == b || adj[q] != adj[q - 1])
				adj[k++] = adj[q];
	}
	xadj[n] = k;
	free(fillp);

	idx_t nv = (idx_t)n, opts[METIS_NOPTIONS];
	METIS_SetDefaultOptions(opts);
	opts[METIS_OPTION_SEED] = 1; /* the same graph, the same order */
	opts[METIS_OPTION_NUMBERING] = 0;
	int rc = METIS_OK;
	if (k == 0) { /* no edges: any order will do */
		for (uint64_t i = 0; i < n; i++)
			p[i] = (idx_t)i;
	} else if (block > 0) {
		struct dissect z = {xadj, adj, iperm, perm, 0, (idx_t)block, {0}};
		memcpy(z.opts, opts, sizeof opts);
		for (uint64_t i = 0; i < n; i++) {
			iperm[i] = -1;
			p[i] = (idx_t)i;
		}
		int32_t *all = malloc(n * sizeof *all);
		if (!all)
			rc = METIS_ERROR_MEMORY;
		for (uint64_t i = 0; i < n && all; i++)
			all[i] = (int32_t)i;
		if (all)
			rc = dissect(&z, all, (idx_t)n);
		free(all);
		for (uint64_t i = 0; i < n && rc == METIS_OK; i++)
			p[i] = perm[i];
	} else if (split) {
		rc = peeled_split(n, xadj, adj, opts, perm, iperm, lib_threads(threads));
		for (uint64_t i = 0; i < n && rc == METIS_OK; i++)
			p[i] = perm[i];
	} else {
		rc = METIS_NodeND(&nv, xadj, adj, NULL, opts, p, iperm);
	}
	free(xadj), free(adj), free(iperm);
	if (rc != METIS_OK) {
		free(p);
		return lib_fail(err, "METIS's nested dissection failed (%s)",
		            rc == METIS_ERROR_MEMORY ? "out of memory" : "error");
	}
	for (uint64_t i = 0; i < n; i++)
		perm[i] = (int32_t)p[i];
	free(p);
	return 0;
}
#else
static int order_lists(uint64_t n, const uint64_t *deg, const int32_t *out, int32_t *perm,
                       int block, int split, int threads, st_error *err)
{
	(void)n, (void)deg, (void)out, (void)perm, (void)block, (void)split, (void)threads;
	return lib_fail(err, "nested dissection needs METIS, which this build lacks");
}
#endif

/* 0 where METIS can order n vertices, else -1 with why. */
static int orderable(uint64_t n, st_error *err)
{
	if (!ord_available())
		return lib_fail(err, "nested dissection needs METIS, which this build lacks");
	if (n > INT32_MAX)
		return lib_fail(err, "n = %llu is too large for METIS", (unsigned long long)n);
	return 0;
}

int ord_nested_dissection(uint64_t n, uint32_t type, const void *w, int32_t *perm, int block,
                          int threads, st_error *err)
{
	if (orderable(n, err) < 0)
		return -1;
	/* Each edge i -> j once in row i, then both directions, then the
	 * duplicates (i -> j and j -> i both present) dropped. */
	uint64_t *deg = calloc(n + 1, sizeof *deg);
	if (!deg)
		return lib_fail(err, "out of memory for the graph's adjacency");
	#pragma omp parallel for schedule(static) LIB_OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++)
		deg[i + 1] = row_edges(n, type, w, i);
	for (uint64_t i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	const uint64_t m = deg[n];
	int32_t *out = malloc((m ? m : 1) * sizeof *out);
	if (!out) {
		free(deg);
		return lib_fail(err, "out of memory for the graph's adjacency");
	}
	#pragma omp parallel for schedule(static) LIB_OMP_THREADS(threads)
	for (uint64_t i = 0; i < n; i++) {
		uint64_t c = deg[i];
		for (uint64_t j = 0; j < n; j++)
			if (j != i && finite_at(type, w, i * n + j))
				out[c++] = (int32_t)j;
	}
	int rc = order_lists(n, deg, out, perm, block, 0, threads, err);
	free(out);
	free(deg);
	return rc;
}

/* The arcs' order: ord_nested_dissection_arcs, or split (threads) with
 * split set. */
static int order_arcs(uint64_t n, uint64_t count, const uint32_t *from, const uint32_t *to,
                      int32_t *perm, int block, int split, int threads, st_error *err)
{
	if (orderable(n, err) < 0)
		return -1;
	/* The arcs in lists by their tails (a counting sort), loops left out. */
	uint64_t *deg = calloc(n + 1, sizeof *deg);
	if (!deg)
		return lib_fail(err, "out of memory for the graph's adjacency");
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k])
			deg[from[k] + 1]++;
	for (uint64_t i = 0; i < n; i++)
		deg[i + 1] += deg[i];
	int32_t *out = malloc((deg[n] ? deg[n] : 1) * sizeof *out);
	uint64_t *at = malloc((n ? n : 1) * sizeof *at);
	if (!out || !at) {
		free(deg), free(out), free(at);
		return lib_fail(err, "out of memory for the graph's adjacency");
	}
	memcpy(at, deg, n * sizeof *at);
	for (uint64_t k = 0; k < count; k++)
		if (from[k] != to[k])
			out[at[from[k]]++] = (int32_t)to[k];
	free(at);
	int rc = order_lists(n, deg, out, perm, block, split, threads, err);
	free(out);
	free(deg);
	return rc;
}

int ord_nested_dissection_arcs(uint64_t n, uint64_t count, const uint32_t *from,
                               const uint32_t *to, int32_t *perm, int block, st_error *err)
{
	return order_arcs(n, count, from, to, perm, block, 0, 0, err);
}

int ord_split_dissection_arcs(uint64_t n, uint64_t count, const uint32_t *from,
                              const uint32_t *to, int32_t *perm, int threads, st_error *err)
{
	return order_arcs(n, count, from, to, perm, 0, 1, threads, err);
}

int ord_block_levels(const uint8_t *live, uint64_t nb, int32_t *level)
{
	/* The elimination tree of the blocks (Liu's algorithm, with path
	 * compression through anc), then each block one level above its
	 * highest child. */
	int64_t *parent = malloc((nb ? nb : 1) * sizeof *parent);
	int64_t *anc = malloc((nb ? nb : 1) * sizeof *anc);
	if (!parent || !anc) {
		free(parent), free(anc);
		return -1;
	}
	for (uint64_t k = 0; k < nb; k++) {
		parent[k] = anc[k] = -1;
		for (uint64_t j = 0; j < k; j++) {
			if (!live[k * nb + j] && !live[j * nb + k])
				continue;
			int64_t i = (int64_t)j;
			while (i != -1 && i < (int64_t)k) {
				int64_t next = anc[i];
				anc[i] = (int64_t)k;
				if (next == -1)
					parent[i] = (int64_t)k;
				i = next;
			}
		}
	}
	int32_t levels = nb ? 1 : 0;
	for (uint64_t k = 0; k < nb; k++)
		level[k] = 0;
	for (uint64_t k = 0; k < nb; k++) {
		if (parent[k] >= 0 && level[parent[k]] < level[k] + 1)
			level[parent[k]] = level[k] + 1;
		if (level[k] + 1 > levels)
			levels = level[k] + 1;
	}
	free(parent), free(anc);
	return levels;
}
