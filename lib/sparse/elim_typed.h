/* elim_typed.h - the sparse engine's work for one element type, included by
 * elim.c with EL_T (the type), EL_I (the signed integer of its width),
 * EL_NAME(x) (its functions' names), EL_INF (unreachable) and EL_FIN(x)
 * (whether x is finite) defined; undefined
 * again at the end.  Every finite int32 value lies strictly between
 * -ST_INF_I32 and ST_INF_I32 (el_factor_make checks the paths' bound), so a
 * sum of two never overflows, and a sum is kept only below what it would
 * replace, never above ST_INF_I32. */

/* The arcs into the factor, the least of repeats; a negative loop is a
 * negative cycle (its vertex returned), other loops are dropped. */
static int64_t EL_NAME(place)(el_factor *f, uint64_t count, const uint32_t *from,
                              const uint32_t *to, const EL_T *w)
{
	EL_T *up = f->up, *down = f->down;
	const uint64_t entries = f->first[f->n];
	for (uint64_t k = 0; k < entries; k++)
		up[k] = EL_INF, down[k] = EL_INF;
	for (uint64_t k = 0; k < count; k++) {
		if (from[k] == to[k]) {
			if (w[k] < 0)
				return from[k];
			continue;
		}
		const int32_t p = f->pos[from[k]], q = f->pos[to[k]];
		if (p < q) { /* p -> q: up at q's entry of p */
			const uint64_t e = entry_of(f, p, q);
			up[e] = w[k] < up[e] ? w[k] : up[e];
		} else { /* from above, q below: down at p's entry of q */
			const uint64_t e = entry_of(f, q, p);
			down[e] = w[k] < down[e] ? w[k] : down[e];
		}
	}
	return -1;
}

/* Eliminate the positions in order: each pair of p's upper neighbours a, b
 * gets a -> p -> b where it is shorter.  A negative cycle shows as a
 * negative a -> p -> a: a's vertex is returned; -1 where there is none. */
static int64_t EL_NAME(eliminate)(el_factor *f, uint64_t count, const uint32_t *from,
                                  const uint32_t *to, const void *weights)
{
	int64_t cycle = EL_NAME(place)(f, count, from, to, weights);
	if (cycle >= 0)
		return cycle;
	EL_T *up = f->up, *down = f->down;
	for (uint64_t p = 0; p < f->n; p++) {
		const uint64_t k0 = f->first[p], m = f->first[p + 1] - k0;
		const int32_t *u = f->upper + k0;
		for (uint64_t i = 0; i < m; i++) {
			const EL_T into = down[k0 + i], out = up[k0 + i]; /* u[i] -> p, p -> u[i] */
			if (EL_FIN(into) && EL_FIN(out) && into + out < 0)
				return f->perm[u[i]];
			if (!EL_FIN(into) && !EL_FIN(out))
				continue;
			uint64_t r = f->first[u[i]];
			for (uint64_t j = i + 1; j < m; j++) {
				while (f->upper[r] != u[j])
					r++;
				const EL_T in_j = down[k0 + j], out_j = up[k0 + j];
				if (EL_FIN(into) && EL_FIN(out_j) && into + out_j < up[r])
					up[r] = into + out_j; /* u[i] -> p -> u[j] */
				if (EL_FIN(in_j) && EL_FIN(out) && in_j + out < down[r])
					down[r] = in_j + out; /* u[j] -> p -> u[i] */
			}
		}
	}
	return -1;
}

/* A batch's distances at one position in vectors of 32 bytes (GCC's
 * vector extension: AVX2's width, two halves of SSE2's, half of AVX-512's),
 * and their masks. */
#define EL_LANES (32 / (int)sizeof(EL_T))
typedef EL_T EL_NAME(vec) __attribute__((vector_size(32)));
typedef EL_I EL_NAME(mask) __attribute__((vector_size(32)));

#define EL_VECS (EL_BATCH / EL_LANES)

/* acc = min(acc, from + w), every lane; where w is negative (int32)
 * unreachable stays so. */
static inline __attribute__((always_inline)) void EL_NAME(relax)(EL_NAME(vec) *acc,
                                                                 const EL_T *from, EL_T w)
{
	EL_NAME(vec) inf;
	for (int l = 0; l < EL_LANES; l++)
		inf[l] = EL_INF;
	for (int h = 0; h < EL_VECS; h++) {
		EL_NAME(vec) f, c;
		memcpy(&f, from + h * EL_LANES, sizeof f);
		c = f + w;
		if (w < 0) {
			const EL_NAME(mask) fin = f < inf;
			c = (EL_NAME(vec))(((EL_NAME(mask))c & fin) | ((EL_NAME(mask))inf & ~fin));
		}
		const EL_NAME(mask) m = c < acc[h];
		acc[h] = (EL_NAME(vec))(((EL_NAME(mask))c & m) | ((EL_NAME(mask))acc[h] & ~m));
	}
}

static inline __attribute__((always_inline)) void EL_NAME(load)(EL_NAME(vec) *acc,
                                                                const EL_T *at)
{
	for (int h = 0; h < EL_VECS; h++)
		memcpy(&acc[h], at + h * EL_LANES, sizeof acc[h]);
}

static inline __attribute__((always_inline)) void EL_NAME(store)(EL_T *at,
                                                                 const EL_NAME(vec) *acc)
{
	for (int h = 0; h < EL_VECS; h++)
		memcpy(at + h * EL_LANES, &acc[h], sizeof acc[h]);
}

/* The sweeps for one batch (el_rows): returns the arcs relaxed. */
__attribute__((target_clones("avx512f", "avx2", "default")))
static uint64_t EL_NAME(rows)(const el_factor *f, el_space *s, const uint32_t *src, int count,
                              void *rows, uint64_t stride)
{
	const uint64_t n = f->n;
	EL_T(*d)[EL_BATCH] = s->d;
	const EL_T *up = f->up, *down = f->down;
	uint8_t *mark = s->mark;
	uint64_t lo = n, relaxed = 0;
	for (uint64_t p = 0; p < n; p++) {
		for (int l = 0; l < EL_BATCH; l++)
			d[p][l] = EL_INF;
		mark[p] = 0;
	}
	for (int i = 0; i < count; i++) {
		const uint64_t p = (uint64_t)f->pos[src[i]];
		d[p][i] = 0, mark[p] = 1;
		lo = p < lo ? p : lo;
	}
	/* up: through the sources' ancestors */
	for (uint64_t p = lo; p < n; p++) {
		if (!mark[p])
			continue;
		for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++) {
			const EL_T w = up[k];
			if (!EL_FIN(w))
				continue;
			const int32_t q = f->upper[k];
			EL_NAME(vec) acc[EL_VECS];
			EL_NAME(load)(acc, d[q]);
			EL_NAME(relax)(acc, d[p], w);
			EL_NAME(store)(d[q], acc);
			mark[q] = 1, relaxed++;
		}
	}
	/* down: every position from the top */
	for (uint64_t p = n; p-- > 0;) {
		EL_NAME(vec) acc[EL_VECS]; /* d[p], in registers through its arcs */
		EL_NAME(load)(acc, d[p]);
		for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++) {
			const EL_T w = down[k];
			if (!EL_FIN(w))
				continue;
			EL_NAME(relax)(acc, d[f->upper[k]], w);
			relaxed++;
		}
		EL_NAME(store)(d[p], acc);
	}
	/* out in strips of 256 vertices: each row written in runs, the
	 * strip's distances kept in the cache (rows a power of two apart
	 * would share its sets) */
	EL_T *row = rows;
	for (uint64_t v0 = 0; v0 < n; v0 += 256) {
		const uint64_t v1 = n - v0 < 256 ? n : v0 + 256;
		for (int i = 0; i < count; i++) {
			EL_T *r = row + (uint64_t)i * stride;
			for (uint64_t v = v0; v < v1; v++)
				r[v] = d[f->pos[v]][i];
		}
	}
	return relaxed;
}

#undef EL_T
#undef EL_NAME
#undef EL_INF
#undef EL_FIN
#undef EL_I
#undef EL_LANES
#undef EL_VECS
