/* solve.h - what every APSP engine shares around its Floyd-Warshall kernel.
 * Public: installed as <apsp/solve.h> with libapsp (make install; pkg-config apsp).
 *
 * Before the kernel: build the n x n distance (and predecessor) matrices from
 * a weight matrix, find negative cycles, and for int32 graphs with negative
 * edges reweight by vertex potentials (Johnson) so that the kernel only sees
 * weights in [0, ST_INF_I32]; then INF + anything stays >= INF and no sum
 * overflows.  After the kernel: undo the reweighting.
 *
 * Kernel contract (CPU and GPU engines alike):
 *   int32:   every input value is in [0, ST_INF_I32]; ST_INF_I32 = no edge;
 *            the kernel computes d[i][j] = min(d[i][j], d[i][k] + d[k][j]) and
 *            every stored value stays <= ST_INF_I32 (min with the old value).
 *   float32: finite values of any sign or +inf; no negative cycle.
 *   pred:    pred[i][j] = vertex before j on the best i->j path, -1 if none;
 *            replaced by pred[k][j] only when the distance strictly improves.
 * Matrices are row-major n x n (stride n), the real n, no padding.
 * Nothing here prints or exits.
 */
#ifndef APSP_SOLVE_H
#define APSP_SOLVE_H

#include <stdint.h>

#include "stream.h"

typedef struct sv_plan {
	uint64_t n;
	uint32_t type;        /* enum st_type */
	int64_t *potential;   /* h[v] when int32 weights were reweighted, else NULL */
	int64_t cycle_vertex; /* a vertex on a negative cycle, or -1 */
} sv_plan;

/* From the stream's weight matrix (h->npad stride) fill dist (n x n) and, if
 * pred is not NULL, pred (n x n).  Returns 0 ready for the kernel, 1 when a
 * negative cycle exists (p->cycle_vertex set; dist and pred undefined), -1 on
 * error (int32 distances could overflow, out of memory; message in err).
 * When h->npad == h->n, dist may be the weight matrix itself (in place). */
int sv_prepare(const st_header *h, const void *weights, void *dist,
               int32_t *pred, int threads, sv_plan *p, st_error *err);

/* What a band of rows of the weights holds, for a process that holds no
 * more (an MPI run): its facts, combined over every band, decide whether
 * the rows can be solved without the whole matrix on one host. */
typedef struct sv_facts {
	uint64_t edges;    /* finite entries off the diagonal */
	int64_t pos_bound; /* the sum of each row's largest weight (int32; stops
	                      growing once it reaches ST_INF_I32) */
	int64_t neg_diag;  /* the first row with a negative diagonal entry, or -1 */
	int bad, negative, zero; /* an entry out of range or NaN; one below 0,
	                            one 0, off the diagonal */
} sv_facts;
/* The facts of rows first .. first + count - 1 of an int32 or float32
 * graph of n vertices (stride n, left as they are) into f.  0, or -1 for
 * another type. */
int sv_band_facts(uint32_t type, uint64_t n, const void *rows, uint64_t first, uint64_t count,
                  int threads, sv_facts *f, st_error *err);
/* The facts of a later band (rows after f's) added to f. */
void sv_facts_add(sv_facts *f, const sv_facts *later);
/* Why rows of such facts (of every band) need more than sv_prepare()'s
 * diagonal of 0 (reweighting, a negative cycle, an error), or NULL where
 * they need nothing else. */
const char *sv_facts_need(uint32_t type, const sv_facts *f);

/* After the kernel: undo reweighting so dist holds true distances. */
void sv_finish(sv_plan *p, void *dist, int threads);
/* The same for rows first .. first + rows - 1 alone; dist points at row first. */
void sv_finish_rows(sv_plan *p, void *dist, uint64_t first, uint64_t rows, int threads);

void sv_plan_free(sv_plan *p);

/* Fill the result header for n vertices from the input header: same type and
 * flags, npad = n, matrices ST_DIST (| ST_PRED when paths), provenance kept. */
int sv_result_header(const st_header *in, int paths, st_header *out, st_error *err);

#endif
