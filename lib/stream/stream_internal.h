/* stream_internal.h - what the stream's format, writer and reader share,
 * internal to the library: the layout's constants (man/apspmat.5), byte
 * order, the per-block tag, each thread's codec state. */
#ifndef APSP_STREAM_INTERNAL_H
#define APSP_STREAM_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "blockcodec.h"
#include "stream.h"

extern const unsigned char st_magic[8];

#define HDR_FIXED 64              /* header bytes before the provenance text */
#define HDR_COUNT 8               /* version 2: the arcs or rows counted after them */
                                  /* (version 3: the rows, then the columns) */
#define PROV_MAX (1u << 20)       /* provenance bytes */
#define BLOCK_MAX (64u << 20)     /* raw bytes per block */
#define BLK_HDR 16                /* raw, stored, crc, method */
#define TAG_EOM 0x4d444e45u       /* "ENDM": end of one matrix */
#define TAG_EOS 0x53444e45u       /* "ENDS": end of the stream */
#define PARALLEL_MIN_BYTES (64u << 10) /* less is not worth waking threads */

enum { M_STORED = BC_STORED, M_DEFLATE = BC_DEFLATE, M_SHUFFLE = BC_SHUFFLE };

/* Little-endian fields, and the names and tags of matrices. */

/* The matrix bits this version knows. */
#define ST_KNOWN (ST_WEIGHTS | ST_DIST | ST_PRED | ST_ARCS | ST_ORDER | ST_SOURCES | ST_TARGETS)

/* Bytes of an entry of the matrix given by its bit: predecessors are
 * int32 whatever the type, weights and distances of the type's size. */
static inline uint32_t entry_bytes(uint32_t type, uint32_t matrix)
{
	return matrix == ST_PRED ? 4 : ST_TYPE_SIZE(type);
}

/* What the size of a matrix depends on: the header's n, npad, type, arc
 * count, the rows of its matrices (npad; for a result of some rows, their
 * count) and the entries of a row (npad; for a table, its columns). */
struct sizes {
	uint64_t n, npad, arcs, rows, cols;
	uint32_t type;
};
static inline struct sizes sizes_of(const st_header *h)
{
	return (struct sizes){h->n, h->npad, h->arcs,
	                      h->matrices & ST_SOURCES ? h->rows : h->npad,
	                      h->matrices & ST_TARGETS ? h->cols : h->npad, h->type};
}

/* Entries of a row of the matrix given by its bit: npad, or a table's
 * columns (its predecessors keep whole rows). */
static inline uint64_t row_entries(struct sizes z, uint32_t matrix)
{
	return matrix == ST_PRED ? z.npad : z.cols;
}

/* Raw bytes of the matrix given by its bit (0: none). */
static inline uint64_t raw_bytes_of(struct sizes z, uint32_t matrix)
{
	if (matrix == ST_ARCS)
		return z.arcs * ST_ARC_BYTES(z.type);
	if (matrix == ST_ORDER)
		return z.n * 4;
	if (matrix == ST_SOURCES)
		return z.rows * 4;
	if (matrix == ST_TARGETS)
		return z.cols * 4;
	return matrix ? z.rows * row_entries(z, matrix) * entry_bytes(z.type, matrix) : 0;
}

/* Bytes of the header's largest matrix. */
static inline uint64_t largest_matrix(const st_header *h)
{
	const struct sizes z = sizes_of(h);
	uint64_t most = h->matrices & (ST_ARCS | ST_SOURCES | ST_TARGETS) ? 0
	                : h->npad * h->npad * ST_TYPE_SIZE(h->type);
	for (uint32_t bits = h->matrices, bit; (bit = bits & -bits); bits &= ~bit)
		if (raw_bytes_of(z, bit) > most)
			most = raw_bytes_of(z, bit);
	return most;
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24;
}

static inline void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static inline uint32_t get32(const unsigned char *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t get64(const unsigned char *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static inline const char *matrix_name(uint32_t bit)
{
	switch (bit) {
	case ST_WEIGHTS: return "weight matrix";
	case ST_DIST: return "distance matrix";
	case ST_PRED: return "predecessor matrix";
	case ST_ARCS: return "list of arcs";
	case ST_ORDER: return "vertex order";
	case ST_SOURCES: return "list of sources";
	case ST_TARGETS: return "list of targets";
	}
	return "matrix";
}

/* Of the matrices bits announces, the one stored first: the list of
 * sources, then of targets, else the lowest bit. */
static inline uint32_t next_bit(uint32_t bits)
{
	return bits & ST_SOURCES ? ST_SOURCES : bits & ST_TARGETS ? ST_TARGETS : bits & -bits;
}

/* The CRC field of block i of a matrix holds the CRC of its raw bytes XOR
 * this tag, so a block that turns up in another place (blocks swapped or
 * repeated, a block of another matrix) fails its check. */
static inline uint32_t block_tag(uint32_t matrix_bit, uint64_t index)
{
	uint64_t x = ((uint64_t)matrix_bit << 48) ^ index;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return (uint32_t)(x ^ (x >> 31));
}

/* The raw bytes of the block that begins at byte start of a matrix of
 * mbytes, in blocks of block. */
static inline uint32_t block_raw(uint64_t mbytes, uint64_t start, uint32_t block)
{
	return mbytes - start < block ? (uint32_t)(mbytes - start) : block;
}

/* Whether a block header's fields fit a block of expect raw bytes: a known
 * method; stored, its raw bytes; deflated, fewer (and some). */
static inline int block_header_ok(uint32_t raw, uint32_t stored, uint32_t method, uint32_t expect)
{
	return raw == expect && method <= M_SHUFFLE
	       && (method == M_STORED ? stored == raw : stored > 0 && stored <= raw);
}

/* Per-thread codec state and buffers, set up by the thread that first
 * needs them: a reading thread holds one block in flight, a writing thread
 * up to two (queued to be written while it compresses another). */
struct worker {
	bc_coder *c;            /* the block codec (lib/stream/blockcodec.h) */
	unsigned char *buf;     /* writer: block header + stored bytes; reader: a header's
	                           room and stored bytes for each of nbuf blocks */
	uint64_t nbuf;
	unsigned char *raw;     /* reader, rows mode: the raw block; writer: filled raw bytes */
	unsigned char *buf2, *raw2; /* writer: the second block's */
	int busy[2];            /* writer: buffers k hold a block waiting to be written */
};

void workers_free(struct worker *wk, int n);

/* Is h a header this version can write and read?  0, or -1 with why. */
int header_check(const st_header *h, size_t provlen, char *why, size_t len);

#endif
