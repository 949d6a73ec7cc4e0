/* betweenness_typed.h - one source's search and accumulation for one type
 * of path length, included by betweenness.c with BT_D (int64_t for int32
 * weights, exact; double for float32 and float64, as networkx sums them),
 * BT_INF (unreached) and BT_NAME(x) defined; undefined again at the end. */

/* The heap's entries: lengths first, the zero arcs' ranks between equals. */
typedef struct {
	BT_D d;
	uint32_t rank, v;
} BT_NAME(entry);

static inline int BT_NAME(before)(const BT_NAME(entry) *a, const BT_NAME(entry) *b)
{
	return a->d < b->d || (a->d == b->d && a->rank < b->rank);
}

static void BT_NAME(push)(btw_work *k, BT_D d, uint32_t rank, uint32_t v)
{
	BT_NAME(entry) *h = k->heap;
	if (k->heap_len == k->heap_cap) {
		uint64_t cap = k->heap_cap * 2;
		if (!(h = realloc(h, cap * sizeof *h))) {
			k->failed = 1;
			return;
		}
		k->heap = h, k->heap_cap = cap;
	}
	const BT_NAME(entry) e = {d, rank, v};
	uint64_t i = k->heap_len++;
	while (i > 0 && BT_NAME(before)(&e, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = e;
}

static BT_NAME(entry) BT_NAME(pop)(btw_work *k)
{
	BT_NAME(entry) *h = k->heap;
	const BT_NAME(entry) top = h[0], last = h[--k->heap_len];
	const uint64_t len = k->heap_len;
	uint64_t i = 0;
	for (;;) {
		uint64_t c = 2 * i + 1;
		if (c >= len)
			break;
		if (c + 1 < len && BT_NAME(before)(&h[c + 1], &h[c]))
			c++;
		if (!BT_NAME(before)(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	if (len)
		h[i] = last;
	return top;
}

/* Source s: Dijkstra's search, the vertices in the order they settle
 * (k->order), their path counts and the tight arcs into each (k->head,
 * k->link); then the dependencies accumulated in reverse order into
 * vertex[] (and arc[] where not NULL).  Returns -1 out of memory. */
static int BT_NAME(source)(const btw_graph *g, btw_work *k, uint32_t s, double *vertex,
                           double *arc)
{
	BT_D *dist = k->dist;
	const BT_D *w = g->w;
	uint64_t settled = 0;
	k->heap_len = 0, k->links = 0;
	dist[s] = 0;
	k->sig_m[s] = 1.0, k->sig_e[s] = 0;
	k->head[s] = -1;
	BT_NAME(push)(k, 0, g->rank[s], s);
	while (k->heap_len) {
		const BT_NAME(entry) top = BT_NAME(pop)(k);
		const uint32_t v = top.v;
		if (k->done[v])
			continue;
		k->done[v] = 1;
		k->order[settled++] = v;
		const BT_D dv = top.d;
		for (uint64_t a = g->first[v]; a < g->first[v + 1]; a++) {
			const uint32_t u = g->to[a];
			const BT_D nd = dv + w[a];
			if (nd < dist[u]) { /* (never for a settled u: weights are >= 0) */
				dist[u] = nd;
				k->sig_m[u] = k->sig_m[v], k->sig_e[u] = k->sig_e[v];
				k->head[u] = -1;
				if (btw_link(k, u, a) < 0)
					return -1;
				BT_NAME(push)(k, nd, g->rank[u], u);
				if (k->failed)
					return -1;
			} else if (nd == dist[u] && !k->done[u]) {
				count_add_vertex(k, u, v);
				if (btw_link(k, u, a) < 0)
					return -1;
			}
		}
	}
	btw_accumulate(g, k, s, settled, vertex, arc);
	for (uint64_t i = 0; i < settled; i++) { /* ready for the next source */
		const uint32_t v = k->order[i];
		dist[v] = BT_INF, k->done[v] = 0, k->delta[v] = 0, k->sig_m[v] = 0;
	}
	return 0;
}

#undef BT_D
#undef BT_INF
#undef BT_NAME
