/* betweenness_search.c - a source searched for betweenness.c (see
 * betweenness_work.h): Dijkstra's search, the vertices in the order they
 * settle with their path counts and the tight arcs into each, then the
 * dependencies summed in reverse order of settling.  Zero arcs are counted
 * exactly: among vertices at the same distance the search settles them in
 * a topological order of the zero arcs (their rank), so a count is final
 * before it is passed on. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "betweenness_count.h"
#include "betweenness_work.h"

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

int btw_source_searched(const btw_graph *g, btw_work *k, uint32_t s, double *vertex, double *arc)
{
	return (g->exact ? source_exact : source_real)(g, k, s, vertex, arc);
}
