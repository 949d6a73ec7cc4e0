/* fw_cpu.c - blocked Floyd-Warshall on the CPU (see fw.h).
 *
 * The matrix is copied into a tiled layout, each B x B block contiguous, so
 * that a block's rows do not fall into the same cache sets, and padded to a
 * multiple of B with isolated vertices.
 *
 * Every block update has one form: C = min(C, A (+) Bk), where (+) is the
 * min-plus product over the round's B pivot vertices.  In phase 3, A is the
 * block in the pivot column and Bk the block in the pivot row, both final for
 * the round.  In phase 2 one operand is the block itself: since the pivot
 * block is already closed (phase 1), one pass over a copy of the block's old
 * values gives the same result as the textbook order, so phase 2 reuses the
 * phase 3 kernel.  A predecessor is replaced only on a strict improvement:
 * updating on ties can close predecessor cycles through zero-weight cycles.
 * Even so, relaxing a block through all pivots at once can pick, among equal
 * paths, predecessors the textbook order would not, so a last pass
 * (fw_repair_paths) re-attaches the few chains that miss their source.
*
 * The block kernels are fw_simd.c's, the predecessors' repair and
 * derivation fw_paths.c's; this file is the driver: tiles, rounds, phases.
 */
#include <immintrin.h>
#include <math.h>
#include <sys/mman.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fw_internal.h"
#include "common.h"

/* Copy the n x n matrices into tiles (padding: isolated vertices); es is
 * the element's size.  With order, position r holds vertex order[r]; pos
 * is its inverse, for the predecessors' values. */
static void to_tiles(const void *src, const int32_t *psrc, void *dst, int32_t *pdst,
                     uint64_t n, uint64_t nb, int B, uint32_t type, const int32_t *order,
                     const int32_t *pos, int threads)
{
	const size_t es = ST_TYPE_SIZE(type);
	uint64_t npad = nb * (uint64_t)B;
	const int32_t inf = ST_INF_I32;
	const float finf = INFINITY;
	const double dinf = INFINITY;
	const void *pad = type == ST_INT32 ? (const void *)&inf
	                  : type == ST_FLOAT32 ? (const void *)&finf : (const void *)&dinf;

	#pragma omp parallel for schedule(static) num_threads(threads)
	for (uint64_t r = 0; r < npad; r++) {
		uint64_t I = r / B, i = r % B;
		uint64_t sr = order && r < n ? (uint64_t)order[r] : r;
		for (uint64_t J = 0; J < nb; J++) {
			size_t off = ((I * nb + J) * B + i) * B;
			uint64_t c0 = J * B, len = r < n && c0 < n ? (n - c0 < (uint64_t)B ? n - c0 : (uint64_t)B) : 0;
			char *d = (char *)dst + off * es;
			const char *srow = (const char *)src + sr * n * es;
			if (len && order)
				for (uint64_t j = 0; j < len; j++)
					memcpy(d + j * es, srow + (uint64_t)order[c0 + j] * es, es);
			else if (len)
				memcpy(d, srow + c0 * es, len * es);
			for (uint64_t j = len; j < (uint64_t)B; j++) {
				if (c0 + j == r)
					memset(d + j * es, 0, es);
				else
					memcpy(d + j * es, pad, es);
			}
			if (!pdst)
				continue;
			const int32_t *prow = psrc + sr * n;
			if (len && order)
				for (uint64_t j = 0; j < len; j++) {
					int32_t v = prow[order[c0 + j]];
					pdst[off + j] = v >= 0 ? pos[v] : v;
				}
			else if (len)
				memcpy(pdst + off, prow + c0, len * 4);
			for (uint64_t j = len; j < (uint64_t)B; j++)
				pdst[off + j] = -1;
		}
	}
}

/* Back from tiles, to the given numbering when there is an order. */
static void from_tiles(const void *src, const int32_t *psrc, void *dst, int32_t *pdst,
                       uint64_t n, uint64_t nb, int B, size_t es, const int32_t *order,
                       int threads)
{
	#pragma omp parallel for schedule(static) num_threads(threads)
	for (uint64_t r = 0; r < n; r++) {
		uint64_t I = r / B, i = r % B;
		uint64_t dr = order ? (uint64_t)order[r] : r;
		char *drow = (char *)dst + dr * n * es;
		int32_t *prow = pdst ? pdst + dr * n : NULL;
		for (uint64_t J = 0; J * B < n; J++) {
			size_t off = ((I * nb + J) * B + i) * B;
			uint64_t c0 = J * B, len = n - c0 < (uint64_t)B ? n - c0 : (uint64_t)B;
			const char *s = (const char *)src + off * es;
			if (order) {
				for (uint64_t j = 0; j < len; j++)
					memcpy(drow + (uint64_t)order[c0 + j] * es, s + j * es, es);
				if (prow)
					for (uint64_t j = 0; j < len; j++) {
						int32_t v = psrc[off + j];
						prow[order[c0 + j]] = v >= 0 ? order[v] : v;
					}
			} else {
				memcpy(drow + c0 * es, s, len * es);
				if (prow)
					memcpy(prow + c0, psrc + off, len * 4);
			}
		}
	}
}

/* Whether a tile of bb entries holds a finite one. */
static unsigned char tile_live(const void *t, size_t bb, uint32_t type)
{
	if (type == ST_INT32) {
		const int32_t *v = t;
		for (size_t k = 0; k < bb; k++)
			if (v[k] < ST_INF_I32)
				return 1;
	} else if (type == ST_FLOAT32) {
		const float *v = t;
		for (size_t k = 0; k < bb; k++)
			if (v[k] < INFINITY)
				return 1;
	} else {
		const double *v = t;
		for (size_t k = 0; k < bb; k++)
			if (v[k] < INFINITY)
				return 1;
	}
	return 0;
}

/* The block kernels of a run: the textbook ones (tb, tbc) where its
 * predecessors are textbook_paths', else update and closure. */
struct kernels {
	fwc_update_fn *update;
	fwc_closure_fn *closure;
	fwc_textbook_update_fn *tb;
	fwc_textbook_closure_fn *tbc;
};

/* C = min(C, A (+) Bk) over the pivots from kbase; cp, ap, bp the
 * predecessors (or largest intermediates) of C, A and Bk, or NULL. */
static inline void relax(const struct kernels *k, void *c, int32_t *cp, const void *a,
                         const int32_t *ap, const void *bk, const int32_t *bp, int32_t kbase,
                         int B)
{
	if (k->tb)
		k->tb(c, cp, a, ap, bk, bp, kbase, B);
	else
		k->update(c, cp, a, bk, bp, B);
}

/* The tiled matrices of a run and what its rounds need of them. */
struct tiled {
	void *d;         /* distances, nb x nb tiles of B x B */
	int32_t *p;      /* predecessors (or intermediates, textbook) the same way, or NULL */
	unsigned char *live; /* live[I * nb + J]: tile (I, J) holds a finite entry */
	uint64_t nb;
	size_t bb, es;
	int B, textbook, threads;
	uint32_t type;
};

/* The tiled state to and from a checkpoint (fw_state_fn): bytes from
 * offset of the distances or the predecessors. */
static int state_get(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
{
	const struct tiled *t = ctx;
	memcpy(buf, (const char *)(pred ? (void *)t->p : t->d) + offset, bytes);
	return 0;
}

static int state_put(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
{
	const struct tiled *t = ctx;
	memcpy((char *)(pred ? (void *)t->p : t->d) + offset, buf, bytes);
	return 0;
}

/* The state after round steps of nb handed to the checkpoints where one is
 * due. */
static void checkpoint(const fw_opts *o, const struct tiled *t, uint64_t round)
{
	const fw_checkpoint *c = o->checkpoint;
	const uint64_t side = t->nb * (uint64_t)t->B;
	if (c && c->due(c->ctx, side * side * (t->es + (t->p ? 4 : 0))))
		c->save(c->ctx, "", round, t->nb, side, t->p != NULL, state_get, (void *)t);
}

/* Rounds first .. nb - 1 over the tiles (phase 1 the pivot tile, phase 2
 * its row and column, phase 3 the rest; tiles whose operands are not both
 * live skipped, counted into *skipped); checkpoints and progress through
 * o's callbacks.  0, or -1 out of memory. */
static int rounds(const fw_opts *o, const struct kernels *kern, const struct tiled *t,
                  uint64_t first, uint64_t *skipped_out)
{
	void *d = t->d;
	int32_t *p = t->p;
	unsigned char *live = t->live;
	const uint64_t nb = t->nb;
	const size_t bb = t->bb, es = t->es;
	const int B = t->B, textbook = t->textbook;
	const uint32_t type = t->type;
#define TILE_D(I, J) ((char *)d + ((I) * nb + (J)) * bb * es)
#define TILE_P(I, J) (p ? p + ((I) * nb + (J)) * bb : NULL)
	int oom = 0;
	uint64_t skipped = 0;
	#pragma omp parallel num_threads(t->threads) reduction(+ : skipped)
	{
		/* a copy of the phase 2 block's old values */
		void *old = aligned_alloc(64, bb * es);
		int32_t *pold = p ? aligned_alloc(64, bb * 4) : NULL;
		if (!old || (p && !pold)) {
			#pragma omp atomic write
			oom = 1;
		}
		#pragma omp barrier
		for (uint64_t K = (uint64_t)first; K < nb && !oom; K++) {
			#pragma omp single
			{
				if (K > 0)
					checkpoint(o, t, K);
				if (o->progress)
					o->progress(o->ctx, K, nb);
				if (kern->tbc)
					kern->tbc(TILE_D(K, K), TILE_P(K, K), (int32_t)(K * B), B);
				else
					kern->closure(TILE_D(K, K), TILE_P(K, K), B);
			}

			#pragma omp for schedule(dynamic, 1)
			for (uint64_t x = 0; x < 2 * nb; x++) {
				uint64_t o2 = x / 2;
				if (o2 == K)
					continue;
				/* the pivot block is live (its diagonal is 0): the
				 * tile's own liveness decides */
				if (!live[x % 2 == 0 ? K * nb + o2 : o2 * nb + K]) {
					skipped++;
					continue;
				}
				if (x % 2 == 0) {
					/* pivot row block (K, o2): A = pivot block */
					void *c = TILE_D(K, o2);
					int32_t *cp = TILE_P(K, o2);
					memcpy(old, c, bb * es);
					if (cp)
						memcpy(pold, cp, bb * 4);
					relax(kern, c, cp, TILE_D(K, K), TILE_P(K, K), old, pold,
					      (int32_t)(K * B), B);
				} else {
					/* pivot column block (o2, K): Bk = pivot block */
					void *c = TILE_D(o2, K);
					int32_t *cp = TILE_P(o2, K);
					memcpy(old, c, bb * es);
					if (textbook)
						memcpy(pold, cp, bb * 4);
					relax(kern, c, cp, old, pold, TILE_D(K, K), TILE_P(K, K),
					      (int32_t)(K * B), B);
				}
			}

			#pragma omp for schedule(static)
			for (uint64_t x = 0; x < nb * nb; x++) {
				uint64_t I = x / nb, J = x % nb;
				if (I == K || J == K)
					continue;
				if (!live[I * nb + K] || !live[K * nb + J]) {
					skipped++;
					continue;
				}
				relax(kern, TILE_D(I, J), TILE_P(I, J), TILE_D(I, K), TILE_P(I, K),
				      TILE_D(K, J), TILE_P(K, J), (int32_t)(K * B), B);
				if (!live[x])
					live[x] = tile_live(TILE_D(I, J), bb, type);
			}
		}
		free(old), free(pold);
	}
#undef TILE_D
#undef TILE_P
	*skipped_out = skipped;
	return oom ? -1 : 0;
}

int fw_cpu(const fw_opts *o, uint32_t type, uint64_t n, void *dist,
           int32_t *pred, st_error *err)
{
	int B = o->block ? o->block : FW_BLOCK_DEFAULT;
	int threads = lib_threads(o->threads);
	enum fw_simd simd = o->simd ? (enum fw_simd)o->simd : fw_simd_detect();
	struct kernels kern = {0};

	if (B < 16 || B > 512 || B % 16)
		return lib_fail(err, "blocking factor must be a multiple of 16 from 16 to 512");
	if (type != ST_INT32 && type != ST_FLOAT32 && type != ST_FLOAT64)
		return lib_fail(err, "unknown element type");
	if (simd > fw_simd_detect())
		return lib_fail(err, "this processor lacks the requested SIMD instructions");
	const int textbook = pred && o->textbook_paths;
	if (textbook && o->order)
		return lib_fail(err, "textbook predecessors are for the graph's own numbering, not an order");
	if (n == 0)
		return 0;
	const size_t es = ST_TYPE_SIZE(type);
	kern.update = fwc_update_kernel(simd, type);
	kern.closure = fwc_closure_kernel(type);
	if (textbook)
		fwc_textbook_kernels(type, simd, &kern.tb, &kern.tbc);

	uint64_t nb = (n + B - 1) / B;
	size_t bb = (size_t)B * B, total = nb * nb * bb;
	/* With paths: derived from the distances afterwards unless asked to
	 * track them, or a weight is negative.  The lists of edges in serve the
	 * repair of tracked chains too, where there are at most n^2 / 8 edges
	 * (else a column read is as short). */
	in_edges ie = {0};
	int derive = 0;
	if (o->stage)
		o->stage(o->ctx, "tiling");
	if (pred)
		/* no room for the lists (16 bytes an edge at most): tracked, which
		 * needs a tiled predecessor matrix instead */
		derive = !textbook &&
		         fwc_list_in_edges(type, n, dist, !o->track_paths, n * n / 8,
		                           simd == FW_SIMD_AVX512, &ie, threads) == 0 &&
		         !o->track_paths && !ie.neg;
	if (o->counts)
		o->counts->derived = derive;
	void *d = lib_huge_alloc(total * es);
	int32_t *p = pred && !derive ? lib_huge_alloc(total * 4) : NULL;
	if (!d || (pred && !derive && !p)) {
		free(d), free(p), fwc_in_edges_free(&ie);
		return lib_fail(err, "out of memory for the tiled matrix");
	}
	const int32_t *order = o->order;
	int32_t *pos = NULL;
	if (order) {
		pos = malloc(n * sizeof *pos);
		if (!pos) {
			free(d), free(p), fwc_in_edges_free(&ie);
			return lib_fail(err, "out of memory for the vertex order");
		}
		for (uint64_t k = 0; k < n; k++)
			pos[order[k]] = (int32_t)k;
	}
	const struct tiled t0 = {d, p, NULL, nb, bb, es, B, textbook, threads, type};
	const fw_checkpoint *ck = o->checkpoint;
	int64_t first = ck ? ck->load(ck->ctx, "", nb, nb * (uint64_t)B, p != NULL, state_put,
	                              (void *)&t0)
	                   : 0;
	if (first < 0 || (uint64_t)first > nb) {
		free(d), free(p), free(pos), fwc_in_edges_free(&ie);
		return lib_fail(err, "checkpoint not loaded");
	}
	if (first == 0) /* textbook: not predecessors but intermediates, all -1 (edges) */
		to_tiles(dist, p && !textbook ? pred : NULL, d, textbook ? NULL : p, n, nb, B, type,
		         order, pos, threads);
	if (first == 0 && textbook)
		memset(p, 0xff, total * 4);
	/* live[I * nb + J]: tile (I, J) holds a finite entry.  A tile whose
	 * operands in a round are not both live cannot change in it, and a
	 * tile only turns live, never back (entries only decrease).  Sparse
	 * graphs, above all in a nested-dissection order, keep most tiles
	 * dead until the last rounds. */
	unsigned char *live = malloc(nb * nb);
	if (!live) {
		free(d), free(p), free(pos), fwc_in_edges_free(&ie);
		return lib_fail(err, "out of memory for the tile map");
	}
	#pragma omp parallel for schedule(static) num_threads(threads)
	for (uint64_t x = 0; x < nb * nb; x++)
		live[x] = tile_live((char *)d + x * bb * es, bb, type);
	const struct tiled t = {d, p, live, nb, bb, es, B, textbook, threads, type};
	uint64_t skipped = 0;
	int oom = rounds(o, &kern, &t, (uint64_t)first, &skipped) < 0;
	free(live);
	/* The state after the last round, the rounds' whole result: a run
	 * stopped in what follows goes on from it with no round left (save
	 * decides whether to keep it). */
	if (!oom && (uint64_t)first < nb)
		checkpoint(o, &t, nb);
	if (o->counts) {
		o->counts->tiles = nb > 1 ? nb * (2 * (nb - 1) + (nb - 1) * (nb - 1)) : 0;
		o->counts->tiles_skipped = skipped;
	}
	if (!oom && p && !textbook && o->stage)
		o->stage(o->ctx, "repairing the predecessors");
	if (!oom && p && !textbook)
		fwc_repair_tiles(d, p, dist, order, pos, ie.off ? &ie : NULL, n, nb, B, type, threads);
	if (!oom && derive && o->stage)
		o->stage(o->ctx, "deriving the predecessors");
	if (!oom && derive && fwc_derive_tiles(d, dist, pred, &ie, order, pos, n, nb, B, type,
	                                   simd == FW_SIMD_AVX512, threads))
		oom = 1;
	if (!oom && o->stage)
		o->stage(o->ctx, "untiling");
	if (!oom)
		from_tiles(d, p, dist, p ? pred : NULL, n, nb, B, es, order, threads);
	if (!oom && textbook && fw_textbook_preds(type, n, dist, pred, threads))
		oom = 1;
	free(d), free(p), free(pos), fwc_in_edges_free(&ie);
	return oom ? lib_fail(err, "out of memory") : 0;
}
