/* fw_internal.h - what the CPU engine's files share, internal to the
 * library: the SIMD block kernels (fw_simd.c), the lists of edges in
 * (fw_inedges.c), the predecessors' repair and derivation (fw_paths.c),
 * used by the driver (fw_cpu.c).  Names carry
 * fwc_, which libapsp.so does not export. */
#ifndef APSP_FW_INTERNAL_H
#define APSP_FW_INTERNAL_H

#include <math.h>
#include <stdint.h>

#include "fw.h"

/* Functions built for AVX-512, called only where the processor has it. */
#define T512 __attribute__((target("avx512f")))

/* C = min(C, A (+) Bk) over the B pivots of a B x B block (see fw_cpu.c);
 * cp, bp: the predecessors of C and Bk, or NULL for distances alone. */
typedef void fwc_update_fn(void *c, int32_t *cp, const void *a, const void *bk,
                           const int32_t *bp, int B);
/* The pivot block closed through its own B vertices (phase 1). */
typedef void fwc_closure_fn(void *c, int32_t *cp, int B);
fwc_update_fn *fwc_update_kernel(enum fw_simd simd, uint32_t type);
/* The same with fw_opts.textbook_paths: cm, am, bm hold the largest
 * intermediate vertex of each entry's path (-1: none) in place of
 * predecessors; kbase is the round's first pivot (fw_simd.c). */
typedef void fwc_textbook_update_fn(void *c, int32_t *cm, const void *a, const int32_t *am,
                                    const void *bk, const int32_t *bm, int32_t kbase, int B);
typedef void fwc_textbook_closure_fn(void *c, int32_t *cm, int32_t kbase, int B);
void fwc_textbook_kernels(uint32_t type, enum fw_simd simd, fwc_textbook_update_fn **update,
                          fwc_textbook_closure_fn **closure);
fwc_closure_fn *fwc_closure_kernel(uint32_t type);

/* Whether entry v of a distance (or weight) row is infinite, and its value. */
static inline int fwc_unreachable(uint32_t type, const void *drow, uint64_t v)
{
	if (type == ST_INT32)
		return ((const int32_t *)drow)[v] >= ST_INF_I32;
	if (type == ST_FLOAT32)
		return ((const float *)drow)[v] == INFINITY;
	return ((const double *)drow)[v] == INFINITY;
}

static inline double fwc_dist_at(uint32_t type, const void *drow, uint64_t v)
{
	return type == ST_INT32 ? ((const int32_t *)drow)[v]
	       : type == ST_FLOAT32 ? ((const float *)drow)[v] : ((const double *)drow)[v];
}

/* The lists of edges into each vertex, by increasing weight, that the
 * derivation searches and the repair reads (fw_paths.c), made by
 * fw_inedges.c. */
typedef struct in_edges {
	uint64_t *off;  /* n + 1 */
	uint64_t *key;  /* sorted keys, split into: */
	uint32_t *from; /* u of each edge */
	uint32_t *wbits; /* its weight's bits (float64: the sort key, see weight_bits) */
	double *w64;     /* float64: its weight; else NULL */
	uint32_t *head;  /* int32, none negative: each vertex's first IE_HEAD
	                  * edges in 2 * IE_HEAD words, from then weight */
	int zero;        /* some weight is 0 (ties can then form loops) */
	int neg;         /* some weight is negative: then not in order of value */
} in_edges;

enum { IE_HEAD = 8 };

int fwc_list_in_edges(uint32_t type, uint64_t n, const void *w, int derive, uint64_t max,
                      int use512, in_edges *ie, int threads);
void fwc_in_edges_free(in_edges *ie);
void fwc_repair_tiles(const void *d, int32_t *p, const void *w, const int32_t *order,
                         const int32_t *pos, const in_edges *ie, uint64_t n, uint64_t nb, int B,
                         uint32_t type, int threads);
int fwc_derive_tiles(const void *d, const void *w, int32_t *pred, const in_edges *ie,
                        const int32_t *order, const int32_t *pos, uint64_t n, uint64_t nb,
                        int B, uint32_t type, int use512, int threads);

#endif
