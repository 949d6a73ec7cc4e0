/* stream.h - the binary matrix stream every apsp tool reads and writes.
 * Public: installed as <apsp/stream.h> with libapsp (make install; pkg-config apsp).
 *
 * A stream is a header followed by zero or more square matrices (edge weights,
 * distances, predecessors, in that order), each a sequence of independently
 * deflated blocks with sizes and a CRC32, ended by a marker.  The byte layout
 * is documented in man/apspmat.5.  A stream never needs seeking, so streams go
 * through pipes; a reader that skips blocks seeks past them where its input is
 * a regular file (and moves the position of fd, as reading would).  Nothing
 * here prints or exits: every function that can fail returns
 * a negative value (or NULL) and leaves a message in the st_error it was given.
 */
#ifndef APSP_STREAM_H
#define APSP_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "types.h"

/* The newest version read; version 1 is written where there are no arcs or
 * sources, version 3 for a table (ST_TARGETS). */
#define ST_VERSION 3

/* Which matrices follow the header (bit set), stored in this order (after
 * a list of sources, ST_SOURCES, which comes first); or, in place of them
 * all, the graph as a list of arcs (ST_ARCS, below). */
enum st_matrix {
	ST_WEIGHTS = 1u << 0,
	ST_DIST = 1u << 1,
	ST_PRED = 1u << 2,
	ST_ARCS = 1u << 3,
	ST_ORDER = 1u << 4, /* after a list of arcs: the vertex order kept beside it */
	ST_SOURCES = 1u << 5, /* before distances: the sources of their rows (below) */
	ST_TARGETS = 1u << 6, /* after the sources: the targets of a table's columns (below) */
};

/* A graph as a list of arcs: a stream whose only "matrix" is h->arcs
 * records of ST_ARC_BYTES(h->type) bytes, each tail (u32), head (u32) and
 * weight (an element of the type), in host (little-endian) order, sorted by
 * tail then head, no pair twice, every vertex below n, every weight finite
 * (int32: strictly between -ST_INF_I32 and ST_INF_I32), a loop (tail =
 * head) only with a weight below 0 (a negative cycle).  Such a stream has a
 * version 2 header, which counts the arcs; a reader of version 1 refuses it
 * by its version.  Its bytes are read as any matrix's (st_read_matrix,
 * st_scan_matrix), never as rows.  The list may be followed by the order
 * the sparse engine solves the graph in (ST_ORDER: n int32 vertices, the
 * vertex at each position, a permutation), so that a run on the stream
 * need not compute it. */
#define ST_ARC_BYTES(type) (8u + ST_TYPE_SIZE(type))
/* A result of some rows only (apsp-cpu and apsp-gpu --rows, --sources): a
 * stream whose first "matrix" is the list of h->rows sources (uint32
 * vertices, each below n, none twice, in the order asked), followed by the
 * distances and, where present, the predecessors of those sources alone: h->rows
 * rows of npad entries each, row i the source's at i of the list.  Its
 * header is version 2, which counts the rows.  Its rows are read as any
 * matrix's (st_read_rows numbers them in the list's order); the list
 * itself is read whole (st_read_matrix). */
#define ST_ROWS_REFUSAL "a result of some rows only (--rows, --sources), not every row"

/* A table of distances (apsp-cpu and apsp-gpu --targets): a result of some
 * rows (above) whose list of sources is followed by a list of h->cols
 * targets (uint32 vertices, each below n, none twice, in the order asked),
 * then the distances from each source to each target alone: h->rows rows
 * of h->cols entries, row i the source's at i, column j the target's at j;
 * then, where present, the predecessors of the sources' whole rows (h->rows
 * rows of npad entries, as a result of some rows holds them), which the
 * paths to the targets walk.  Its header is version 3, which counts the rows
 * and the columns.  Its rows are read as any matrix's (of h->cols entries,
 * the predecessors' of npad). */
#define ST_TABLE_REFUSAL "a table of distances (--targets), not whole rows"

#define ST_ARCS_REFUSAL "a graph as a list of arcs, not a matrix: give it to apsp-cpu, " \
                        "apsp-gpu or bin2mtx"

#define ST_BLOCK_DEFAULT (1u << 20) /* raw bytes per block */
#define ST_LEVEL_DEFAULT 1          /* deflate level: see bench/stream.md */
/* The deflate engine the library was built with: "ISA-L" or "zlib".  Either
 * reads what the other writes. */
const char *st_engine(void);
/* The CRC-32 the stream's blocks carry (zlib's crc32), of len bytes, at
 * the deflate engine's speed. */
uint32_t st_crc32(const void *p, size_t len);

typedef struct st_header {
	uint64_t n;         /* real vertex count */
	uint64_t npad;      /* stored size: n rounded up to the padding factor */
	uint32_t type;      /* enum st_type */
	uint32_t matrices;  /* enum st_matrix bits */
	uint32_t flags;     /* enum st_flag bits */
	uint32_t block;     /* raw bytes per block (a multiple of 4) */
	int32_t inf_i32;    /* the INF convention (ST_INF_I32) */
	int64_t cycle_vertex; /* a vertex on the negative cycle, or -1 */
	char *provenance;   /* '\n'-terminated lines "@PG\tID:tool\tVN:ver\tCL:cmd", malloc'd */
	uint64_t arcs;      /* ST_ARCS: the number of arcs; else 0 */
	uint64_t rows;      /* ST_SOURCES: the number of sources (rows); else 0 */
	uint64_t cols;      /* ST_TARGETS: the number of targets (columns); else 0 */
} st_header;

/* Fill h with defaults for an n-vertex graph padded to a multiple of pad. */
void st_header_init(st_header *h, uint64_t n, uint64_t pad, enum st_type type);
/* Append one provenance line for tool name, version and argv. 0 or -1. */
int st_header_add_pg(st_header *h, const char *name, const char *version,
                     int argc, char **argv, st_error *err);
void st_header_free(st_header *h);

/* An engine's checkpoint (apsp-cpu's and apsp-gpu's --checkpoint) is a
 * stream too, whose provenance has a line "@PG\tID:checkpoint\t...": the
 * state between rounds in the engine's own layout (padded, tiled, a round
 * short of the end), not distances.  1 where h is one, else 0.  Readers of
 * results refuse it (st_read_all does). */
#define ST_CHECKPOINT_ID "checkpoint"
#define ST_CHECKPOINT_REFUSAL "a checkpoint, not a result: go on with --resume"
int st_header_is_checkpoint(const st_header *h);

/* "int32", "float32", "float64", or "unknown". */
const char *st_type_name(uint32_t type);
/* Bytes of the stored weights or distances: npad * npad * ST_TYPE_SIZE(type)
 * (for a result of some rows, the full matrix's size all the same). */
uint64_t st_matrix_bytes(const st_header *h);
/* Bytes of the stored matrix given by its bit: the predecessors are int32
 * (npad * npad * 4) whatever the type; a list of arcs, arcs *
 * ST_ARC_BYTES(type); after a list of sources, rows * npad entries (in a
 * table, rows * cols, its predecessors rows * npad); the list itself, rows *
 * 4, the targets' cols * 4. */
uint64_t st_matrix_bytes_of(const st_header *h, uint32_t matrix);
/* Number of matrices the header announces (a list of arcs counts as one,
 * an order kept beside it as another). */
int st_matrix_count(const st_header *h);
/* Check a list of arcs read from the stream named name (its header h): 0,
 * or -1 with "NAME: arc K: reason" in err for the first record that breaks
 * the rules above. */
int st_arcs_check(const char *name, const st_header *h, const void *arcs, st_error *err);
/* Check a list of sources (ST_SOURCES) the same way: 0, or -1 with
 * "NAME: ..." in err for the first vertex out of range or given twice. */
int st_sources_check(const char *name, const st_header *h, const uint32_t *src, st_error *err);
/* The same for a table's list of targets (ST_TARGETS, h->cols of them). */
int st_targets_check(const char *name, const st_header *h, const uint32_t *dst, st_error *err);
/* Check a kept order (ST_ORDER) the same way: 0, or -1 with "NAME: ..." in
 * err where it is not a permutation of the n vertices. */
int st_order_check(const char *name, const st_header *h, const int32_t *order, st_error *err);

/* ---- writing ---- */
typedef struct st_writer st_writer;

/* Write the header to fd and return a writer.  level: 0 stores blocks,
 * 1..9 deflate.  threads <= 0: all cores. */
st_writer *st_writer_open(int fd, const st_header *h, int level, int threads,
                          st_error *err);
/* Append len raw bytes of the current matrix (any length; blocks are cut at
 * h->block bytes).  Returns 0 or -1. */
int st_write(st_writer *w, const void *buf, size_t len, st_error *err);
/* Append len raw bytes of the current matrix that fill makes: the writer's
 * threads each call fill(ctx, offset, dst, n) for one block at a time (offset
 * in bytes from the start of the matrix, n bytes into dst), compress it and
 * write it in order, so producing the data runs on all cores with the codec
 * and no matrix is held in memory.  fill returns 0, or non-zero to fail the
 * write.  The matrix written so far and len must be whole blocks (len may
 * end the matrix).  Returns 0 or -1. */
typedef int st_fill_fn(void *ctx, uint64_t offset, void *dst, size_t n);
int st_write_fill(st_writer *w, uint64_t len, st_fill_fn *fill, void *ctx, st_error *err);
/* End the current matrix (its byte count must equal st_matrix_bytes()). */
int st_write_end_matrix(st_writer *w, st_error *err);
/* Write the end-of-stream marker and free w (also on error).  Does not close fd. */
int st_writer_close(st_writer *w, st_error *err);
/* Free w without writing anything more (after an error). */
void st_writer_abort(st_writer *w);
/* Convenience: one whole matrix = st_write + st_write_end_matrix. */
int st_write_matrix(st_writer *w, const void *m, st_error *err);

/* A later matrix compressed ahead of its turn, e.g. the predecessors while
 * the distances are still being written.  st_spool_open() takes a matrix
 * bit that w's header announces after the current matrix.
 * st_spool_write() takes that matrix's bytes in order, as st_write() does,
 * from one thread at a time (which may be another than w's); the blocks are
 * held compressed in memory (at most the raw size).  When w has ended the
 * matrices before it, st_write_spool() writes the spool's blocks, which are
 * the bytes st_write() would have written, ends the matrix and frees the
 * spool (also on error); into a pipe they go by reference (vmsplice), so the
 * pipe's reader may get them after the writer has ended.  st_spool_free()
 * drops a spool unwritten. */
typedef struct st_spool st_spool;
st_spool *st_spool_open(st_writer *w, uint32_t matrix, st_error *err);
int st_spool_write(st_spool *s, const void *buf, size_t len, st_error *err);
int st_write_spool(st_writer *w, st_spool *s, st_error *err);
void st_spool_free(st_spool *s);

/* A part of a matrix compressed apart from the stream's writer, e.g. by
 * one of several processes that each hold some rows: the blocks of matrix
 * (one bit of h->matrices) that cover its raw bytes offset .. offset +
 * len - 1 (offset on a block boundary; len whole blocks or up to the
 * matrix's end), the bytes a writer of h would write there.  Fill it with
 * st_spool_write(); then a writer at that offset takes it with
 * st_write_spool() (which ends the matrix where the part does), or another
 * process's writer takes its blocks: st_spool_block(s, i, &len) for i up
 * to st_spool_blocks(s), each a block's header and stored bytes, and
 * st_write_stored() appends such blocks, in order, where the writer stands
 * (a block boundary), checking their headers. */
st_spool *st_spool_open_part(const st_header *h, uint32_t matrix, uint64_t offset, uint64_t len,
                             int level, int threads, st_error *err);
uint64_t st_spool_blocks(const st_spool *s);
const void *st_spool_block(const st_spool *s, uint64_t i, size_t *len);
int st_write_stored(st_writer *w, const void *blocks, size_t len, st_error *err);

/* ---- reading ---- */
typedef struct st_reader st_reader;

/* Read and check the header from fd.  name is used in messages ("-" = stdin).
 * h is filled (free it with st_header_free). */
st_reader *st_reader_open(int fd, const char *name, st_header *h, int threads,
                          st_error *err);
/* While st_read_matrix() fills dst: fn(ctx, bytes) each time the part of dst
 * from its start that is read and checked grows, with its length (called in
 * order, from the reading threads, one call at a time).  A caller may then use
 * that part before the matrix is whole; the read can still fail further on.
 * fn NULL: none. */
typedef void st_progress_fn(void *ctx, uint64_t bytes);
void st_reader_progress(st_reader *r, st_progress_fn *fn, void *ctx);
/* Which matrix comes next (an enum st_matrix bit), or 0 at the end. */
uint32_t st_next_matrix(st_reader *r);
/* Read the next whole matrix into dst (st_matrix_bytes() bytes). */
int st_read_matrix(st_reader *r, void *dst, st_error *err);
/* Read the next matrix, keeping only the given rows (ascending, < npad):
 * row rows[i] goes to dst + i * npad * e (e: its entries' bytes, 8 for
 * float64 weights and distances, else 4).  Blocks that hold none of them
 * are skipped without being inflated. */
int st_read_rows(st_reader *r, const uint64_t *rows, size_t nrows, void *dst,
                 st_error *err);
/* The same for rows first .. first + count - 1. */
int st_read_row_range(st_reader *r, uint64_t first, uint64_t count, void *dst, st_error *err);
/* Read the next matrix a window of whole rows at a time, in order:
 * fn(ctx, first, count, data) for rows first .. first + count - 1, each
 * npad * e bytes (as above), back to back in data (valid during the call);
 * count is about rows or more, so the reader holds a few of them, never the
 * matrix.
 * fn returns 0, or non-zero to stop reading (then -1). */
typedef int st_rows_fn(void *ctx, uint64_t first, uint64_t count, const void *data);
int st_read_windows(st_reader *r, uint64_t rows, st_rows_fn *fn, void *ctx, st_error *err);
/* The same with each window's work done on the reader's threads while the
 * next window is read and inflated (into a second buffer): for each window
 * in order, begin(ctx, first, count, data) says how many pieces its work
 * has; piece(ctx, i) runs each of them, on any of the threads, several at
 * once; end(ctx, first, count, data) follows once all have run (0, or
 * non-zero to stop reading), before the next window's begin.  begin and
 * end run one at a time, in order, on any of the threads (with keep, on
 * the calling thread).  data stays in place from begin to end.  Where the
 * reading fails, end still follows each begin (so that what begin took can
 * be given back), though not every piece may have run.
 * Where alloc is set, the windows are inflated into buffers it gives
 * (NULL: out of memory), each given back by release(ctx, p, bytes).  With
 * keep, there are three in turn: a window's data stays in place until the
 * next window's end has returned, so that end may hand it to work that runs
 * on beside the reading (a device's copy). */
typedef struct st_window_work {
	uint64_t (*begin)(void *ctx, uint64_t first, uint64_t count, const void *data);
	void (*piece)(void *ctx, uint64_t i);
	int (*end)(void *ctx, uint64_t first, uint64_t count, const void *data);
	void *ctx;
	void *(*alloc)(void *ctx, size_t bytes);
	void (*release)(void *ctx, void *p, size_t bytes);
	int keep;
} st_window_work;
int st_read_windows_beside(st_reader *r, uint64_t rows, const st_window_work *w, st_error *err);
/* Read the next matrix's blocks as stored, in order, without inflating
 * them, e.g. to hand each to another process: fn(ctx, index, block, len)
 * with block index's header and stored bytes (valid during the call), as
 * st_spool_block() gives them; fn returns 0, or non-zero to stop reading
 * (then -1).  Headers, sizes and the end marker are checked as reading
 * checks them.  st_decode_stored() inflates such a block of matrix (its
 * bit) of a stream with header h into dst (its raw bytes: h->block, fewer
 * for the matrix's last), checking its CRC and its place. */
typedef int st_stored_fn(void *ctx, uint64_t index, const void *block, size_t len);
int st_read_stored(st_reader *r, st_stored_fn *fn, void *ctx, st_error *err);
int st_decode_stored(const st_header *h, uint32_t matrix, uint64_t index, const void *block,
                     size_t len, void *dst, st_error *err);
/* Skip the next matrix without inflating it. */
int st_skip_matrix(st_reader *r, st_error *err);
/* What a matrix holds, from its block headers. */
typedef struct st_matrix_info {
	uint64_t blocks;       /* blocks read */
	uint64_t raw_bytes;    /* npad * npad * 4 */
	uint64_t stored_bytes; /* in the stream: blocks with their headers, and the end marker */
	uint64_t by_method[3]; /* blocks stored (0), deflated (1), shuffled and deflated (2) */
} st_matrix_info;
/* Read past the next matrix, filling info (may be NULL).  Without verify,
 * as st_skip_matrix: block headers and sizes are checked, nothing is
 * inflated; with verify, every block is also inflated and its CRC checked
 * (on the reader's threads). */
int st_scan_matrix(st_reader *r, int verify, st_matrix_info *info, st_error *err);
/* Check the end-of-stream marker (call after the last matrix) and free r. */
int st_reader_close(st_reader *r, st_error *err);
void st_reader_free(st_reader *r);

/* Read a whole stream: header and every matrix the header announces into
 * malloc'd buffers (NULL for absent ones).  For tools that need everything.
 * A checkpoint is refused ("NAME: a checkpoint, not a result: ..."); a list
 * of arcs is read into arcs and checked (st_arcs_check). */
typedef struct st_matrices {
	st_header h;
	void *weights, *dist, *pred;
	void *arcs, *order;
	uint32_t *sources; /* ST_SOURCES: the rows' sources (h.rows) */
	uint32_t *targets; /* ST_TARGETS: a table's targets (h.cols) */
} st_matrices;
int st_read_all(int fd, const char *name, int threads, st_matrices *m, st_error *err);
void st_matrices_free(st_matrices *m);

/* Write a whole stream (header + the matrices present in h->matrices; a
 * list of arcs from weights; a kept order is written by st_write_matrix). */
int st_write_all(int fd, const st_header *h, const void *weights,
                 const void *dist, const void *pred, int level, int threads,
                 st_error *err);

#endif
