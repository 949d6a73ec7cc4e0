/* dijkstra.c - an independent all-pairs shortest-path oracle for the tests.
 *
 * Written apart from lib/ on purpose: it shares no code with the engines it
 * checks.  Johnson's method: Bellman-Ford from a virtual source for vertex
 * potentials (and negative cycles), then Dijkstra with a binary heap from
 * every source on the reweighted graph, all in double precision.
 *
 * Input (stdin):
 *   default   Matrix Market coordinate, as bin2mtx writes: '%' comments
 *             (a first line that says "symmetric": each entry both ways),
 *             "n n nnz", then "i j w" lines, 1-based
 *   -s        "n m" then "tail head weight" lines, 1-based
 * Duplicate edges keep the smallest weight; self-loops are ignored unless
 * negative, which is a negative cycle.
 * Output: n lines of n distances ("inf" when unreachable), or the line
 * "negative cycle" and exit status 3.
 *
 * Build: cc -O2 -o dijkstra dijkstra.c -lm
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct arc {
	int head;
	double w;
};

static int n;
static int *first, *deg;  /* arcs of u: arcs[first[u] .. first[u] + deg[u]) */
static struct arc *arcs;

static void die(const char *msg)
{
	fprintf(stderr, "dijkstra: %s\n", msg);
	exit(2);
}

/* Read edges into a triplet list, then build adjacency (minimum of duplicates). */
static int read_graph(int stanford)
{
	char line[4096];
	long m = 0, cap = 1024, got = 0;
	int header = 0, negloop = 0, symmetric = 0;
	int *tu = malloc(cap * sizeof *tu), *tv = malloc(cap * sizeof *tv);
	double *tw = malloc(cap * sizeof *tw);

	while (fgets(line, sizeof line, stdin)) {
		if (!header && !strncmp(line, "%%MatrixMarket", 14) && strstr(line, " symmetric"))
			symmetric = 1;
		if (line[0] == '%' || line[0] == '#' || line[0] == '\n')
			continue;
		if (!header) {
			long a, b, c;
			int k = sscanf(line, "%ld %ld %ld", &a, &b, &c);
			if (stanford ? k < 2 : k < 3)
				die("bad size line");
			n = (int)a, m = stanford ? b : c, header = 1;
			continue;
		}
		long u, v;
		double w;
		if (sscanf(line, "%ld %ld %lf", &u, &v, &w) != 3)
			die("bad edge line");
		if (u < 1 || u > n || v < 1 || v > n)
			die("vertex out of range");
		for (int way = 0; way < 1 + (symmetric && u != v); way++) {
			if (got == cap) {
				cap *= 2;
				tu = realloc(tu, cap * sizeof *tu);
				tv = realloc(tv, cap * sizeof *tv);
				tw = realloc(tw, cap * sizeof *tw);
			}
			tu[got] = (int)(way ? v : u) - 1, tv[got] = (int)(way ? u : v) - 1, tw[got] = w;
			got++;
		}
	}
	(void)m;
	/* dense minimum first: the test graphs are small */
	double *best = malloc((size_t)n * n * sizeof *best);
	for (long i = 0; i < (long)n * n; i++)
		best[i] = INFINITY;
	for (long e = 0; e < got; e++) {
		if (tu[e] == tv[e]) {
			negloop |= tw[e] < 0;
			continue;
		}
		double *b = &best[(long)tu[e] * n + tv[e]];
		if (tw[e] < *b)
			*b = tw[e];
	}
	first = calloc(n + 1, sizeof *first);
	deg = calloc(n + 1, sizeof *deg);
	arcs = malloc(((size_t)got + 1) * sizeof *arcs);
	int k = 0;
	for (int u = 0; u < n; u++) {
		first[u] = k;
		for (int v = 0; v < n; v++)
			if (best[(long)u * n + v] < INFINITY)
				arcs[k].head = v, arcs[k].w = best[(long)u * n + v], k++;
		deg[u] = k - first[u];
	}
	free(best), free(tu), free(tv), free(tw);
	return negloop;
}

/* Bellman-Ford from a virtual source joined to all vertices by 0 edges. */
static int potentials(double *h)
{
	for (int v = 0; v < n; v++)
		h[v] = 0;
	for (int round = 0; round <= n; round++) {
		int changed = 0;
		for (int u = 0; u < n; u++)
			for (int e = first[u]; e < first[u] + deg[u]; e++)
				if (h[u] + arcs[e].w < h[arcs[e].head]) {
					h[arcs[e].head] = h[u] + arcs[e].w;
					changed = 1;
				}
		if (!changed)
			return 0;
	}
	return 1; /* still improving after n + 1 rounds */
}

/* Binary heap of (key, vertex) with decrease-key by lazy insertion. */
struct item {
	double key;
	int v;
};
static struct item *heap;
static long hn;

static void push(double key, int v)
{
	long i = hn++;
	while (i > 0 && heap[(i - 1) / 2].key > key) {
		heap[i] = heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	heap[i].key = key, heap[i].v = v;
}

static struct item pop(void)
{
	struct item top = heap[0], last = heap[--hn];
	long i = 0;
	for (;;) {
		long c = 2 * i + 1;
		if (c >= hn)
			break;
		if (c + 1 < hn && heap[c + 1].key < heap[c].key)
			c++;
		if (heap[c].key >= last.key)
			break;
		heap[i] = heap[c];
		i = c;
	}
	heap[i] = last;
	return top;
}

int main(int argc, char **argv)
{
	int stanford = argc > 1 && strcmp(argv[1], "-s") == 0;
	int negloop = read_graph(stanford);
	double *h = malloc((n + 1) * sizeof *h), *d = malloc((n + 1) * sizeof *d);
	char *done = malloc(n + 1);

	if (negloop || potentials(h)) {
		puts("negative cycle");
		return 3;
	}
	heap = malloc(((size_t)first[n - 1] + deg[n - 1] + n + 1) * sizeof *heap);
	for (int s = 0; s < n; s++) {
		for (int v = 0; v < n; v++)
			d[v] = INFINITY, done[v] = 0;
		d[s] = 0, hn = 0;
		push(0, s);
		while (hn > 0) {
			struct item it = pop();
			int u = it.v;
			if (done[u])
				continue;
			done[u] = 1;
			for (int e = first[u]; e < first[u] + deg[u]; e++) {
				int v = arcs[e].head;
				/* reduced cost, >= 0 up to rounding */
				double w = arcs[e].w + h[u] - h[v];
				if (w < 0)
					w = 0;
				if (d[u] + w < d[v]) {
					d[v] = d[u] + w;
					push(d[v], v);
				}
			}
		}
		for (int v = 0; v < n; v++) {
			if (v)
				putchar(' ');
			if (isinf(d[v]))
				fputs("inf", stdout);
			else
				printf("%.10g", d[v] - h[s] + h[v]);
		}
		putchar('\n');
	}
	return 0;
}
