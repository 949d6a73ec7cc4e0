/* engine.h - what the two engines, apsp-cpu and apsp-gpu, share around their
 * solvers: opening the graph stream, refusing what cannot fit in memory before
 * allocating, reading the weights, and the result of a negative cycle. */
#ifndef APSP_ENGINE_H
#define APSP_ENGINE_H

#include "graphio.h"
#include "solve.h"
#include "stream.h"
#include "betweenness.h"
#include "statsout.h"

/* The engines' input: a matrix stream, or a graph as text (Matrix Market,
 * DIMACS .gr, an edge list; plain, gzip or in an archive), read as mtx2bin
 * reads it with its defaults (run/graphin.h). */
typedef struct engine_in {
	st_reader *r; /* a stream: its reader, the header read; NULL for text */
	gio_graph g;  /* a graph as text: its edges, the matrix not made */
	int32_t *order; /* a list of arcs' kept vertex order (ST_ORDER), or NULL */
} engine_in;

/* Open the input path ("-" = stdin) and read its header into h (for a graph
 * as text, the header of its weights as mtx2bin would write them).  Dies
 * (exit 3) when the stream records a negative cycle, (exit 2) when it holds
 * no weights or the text is not a graph. */
engine_in *engine_open(const char *path, int threads, st_header *h);
/* -t, --type TYPE: the element type of a graph given as text (dies with a
 * usage error on another word); a stream of another type is refused. */
void engine_parse_type(const char *arg);

/* The machine's physical memory in bytes (APSP_MEMORY, or APSP_HOST_MEMORY,
 * for tests and shared machines: this many instead). */
double engine_physical_memory(void);

/* Die (exit 2), before anything is allocated, when bytes exceed physical
 * memory; the largest n that fits told as for bytes growing as n^power
 * (engine_check_memory: 2, the dense matrices). */
void engine_check_memory(const char *path, const st_header *h, double bytes);
void engine_check_memory_as(const char *path, const st_header *h, double bytes, int power);

/* Read the weight matrix into dst (st_matrix_bytes(h) bytes), skip the rest
 * of the stream and close it (text: the matrix of the edges).  Frees in.
 * Dies on any error. */
void engine_read_weights(engine_in *in, void *dst);
/* The same, with fn told of the weights' progress (st_reader_progress; text:
 * once, whole), and an error returned: 0, or -1 with err set (in freed
 * either way). */
int engine_read_weights_as(engine_in *in, void *dst, st_progress_fn *fn, void *ctx,
                           st_error *err);
/* The same a window of about rows rows at a time, each window's work done
 * by w beside the reading of the next (st_read_windows_beside); a stream
 * only, not text. */
int engine_read_weights_windows(engine_in *in, uint64_t rows, const st_window_work *w,
                                st_error *err);
/* The same, fn(ctx, first, count, data) given each window of about rows
 * rows in turn (st_read_windows: stride npad); a stream only, not text. */
int engine_read_weights_rows(engine_in *in, uint64_t rows, st_rows_fn *fn, void *ctx,
                             st_error *err);
/* Free in unread. */
void engine_in_free(engine_in *in);

/* Write a result with no matrices whose header records the negative cycle
 * through vertex v (so a tool downstream can say why), then exit 3, the
 * message naming input, the graph's file. */
_Noreturn void engine_negative_cycle(const char *input, int out, st_header *result, int64_t v,
                                     int threads);

/* Vertex orders (--order): natural, nested dissection, or chosen by the
 * graph (auto: nested dissection for a sparse graph when METIS is built in). */
enum { ORDER_AUTO, ORDER_NATURAL, ORDER_ND };
int engine_parse_order(const char *arg); /* dies with a usage error */

/* --derive-paths: predecessors derived from the final distances (auto, the
 * engine's choice; always) or tracked through the rounds (never). */
enum { DERIVE_AUTO, DERIVE_ALWAYS, DERIVE_NEVER };
int engine_parse_derive(const char *arg); /* dies with a usage error */
/* The auto rule's bound: a sparse graph has at most this many edges a
 * vertex on average. */
#define ND_MAX_DEGREE 32
/* Whether w is sparse by the auto rule (at most 32 edges a vertex). */
int engine_sparse(uint64_t n, uint32_t type, const void *w, int threads);
/* The auto rule itself: a graph of n vertices and that many edges (off the
 * diagonal) is sparse with at most ND_MAX_DEGREE (32) a vertex on average. */
int engine_sparse_count(uint64_t n, uint64_t edges);
/* The order to solve the n x n matrix w in: NULL for the natural one, else a
 * malloc'd perm (position -> vertex); block > 0 aligns its halves to blocks
 * of that many vertices (ord_nested_dissection).  *sparse (when not NULL) is
 * set to whether w is sparse by the auto rule.  why gets a few words for -v
 * (what was chosen and why, and how long ordering took).  Dies on error. */
int32_t *engine_order(int mode, uint64_t n, uint32_t type, const void *w, int block,
                      int threads, int *sparse, char *why, size_t len);
/* The same choice for a graph known only by its count of edges (off the
 * diagonal): 1 where it is dense and kept as numbered, why saying so; 0
 * where it is sparse or nested dissection is asked (its matrix needed). */
int engine_stays_dense(int mode, uint64_t n, uint32_t type, uint64_t edges, char *why,
                       size_t len);
/* Whether the graph of g's edges is sparse by the auto rule (repeated
 * edges counted). */
int engine_sparse_edges(const gio_graph *g);
/* The same for the graph of g's edges (a graph as text), whose matrix need
 * not exist: the same order for the same graph. */
int32_t *engine_order_edges(int mode, const gio_graph *g, int block, int *sparse, char *why,
                            size_t len);

/* --stats: the statistics of the finished distances (n x n, reweighting
 * undone here) of a graph with flags (its header's) to out in form, with
 * the betweenness of bc (run/betweenness.h; NULL: none) given the rows,
 * then the output committed. */
void engine_write_stats(FILE *out, const struct stats_form *form, sv_plan *plan, void *dist,
                        uint64_t n, uint32_t type, uint32_t flags, int threads, btw_run *bc);
/* The engines' --stats and the statistics' own options (statsout.h):
 * 1 if c was one of them. */
enum { ENGINE_OPT_STATS = 0x3800, ENGINE_OPT_NO_PATHS, ENGINE_OPT_ORDER, ENGINE_OPT_DERIVE,
       ENGINE_OPT_BETWEENNESS, ENGINE_OPT_NORMALIZED, ENGINE_OPT_EDGE_BETWEENNESS };
/* The options both engines take alike (each reads their values itself):
 * -B, --no-paths, --order, --derive-paths, --stats and its form. */
#define ENGINE_LONGOPTS                                                   \
	{"block", required_argument, 0, 'B'},                              \
	{"type", required_argument, 0, 't'},                               \
	{"no-paths", no_argument, 0, ENGINE_OPT_NO_PATHS},                 \
	{"order", required_argument, 0, ENGINE_OPT_ORDER},                 \
	{"derive-paths", required_argument, 0, ENGINE_OPT_DERIVE},         \
	ENGINE_STATS_LONGOPTS
#define ENGINE_STATS_LONGOPTS                                                   \
	{"stats", no_argument, 0, ENGINE_OPT_STATS},                             \
	{"betweenness", no_argument, 0, ENGINE_OPT_BETWEENNESS},                 \
	{"normalized", no_argument, 0, ENGINE_OPT_NORMALIZED},                   \
	{"edge-betweenness", required_argument, 0, ENGINE_OPT_EDGE_BETWEENNESS}, \
	STATS_LONGOPTS
int engine_stats_option(int c, const char *arg, struct stats_form *form, int *stats);
/* Their help lines. */
void engine_stats_help(FILE *f);
/* --summary, --json, --base, --betweenness, --normalized, --edge-betweenness
 * without --stats, --normalized without either betweenness, --betweenness
 * with --summary: a usage error. */
void engine_check_stats(const struct stats_form *form, int stats);
/* Undo the plan's reweighting, write the result stream (distances, and
 * predecessors when pred is not NULL; src not NULL: the rows of those
 * sources alone, result made by sources_header of run/sources.h; dst not
 * NULL: their table of those columns) and commit the output; dies on
 * error. */
void engine_write_result(int out, const st_header *result, sv_plan *plan, void *dist,
                         const int32_t *pred, const uint32_t *src, const uint32_t *dst,
                         int threads);

#endif
