/* blockcodec.h - internal to lib/: how one block of a stream is coded.
 *
 * The deflate engine (ISA-L's igzip when the library was built with it,
 * zlib otherwise), the CRC32 of raw bytes, and the byte shuffle of 4-byte
 * elements.  Both engines write and read plain raw deflate (RFC 1951), so a
 * stream written by either is read by the other; the framing around blocks
 * (headers, place tags, markers, order) is lib/stream/'s.  Not a public
 * header: the tools never see it.  Nothing here prints or exits.
 */
#ifndef APSP_BLOCKCODEC_H
#define APSP_BLOCKCODEC_H

#include <stddef.h>
#include <stdint.h>

/* A block's method, as stored in its header (man/apspmat.5). */
enum bc_method { BC_STORED = 0, BC_DEFLATE = 1, BC_SHUFFLE = 2 };

/* Results of bc_decode(). */
enum { BC_OK = 0, BC_CORRUPT = -1, BC_NOMEM = -2 };

/* One thread's codec state and scratch space for blocks of at most block
 * raw bytes.  level: 0 stores, 1..9 deflate (the engine's nearest level). */
typedef struct bc_coder bc_coder;

bc_coder *bc_coder_new(int level, uint32_t block);
void bc_coder_free(bc_coder *c);

/* Encode len raw bytes: into out (room for len - 1 bytes at least) and
 * return the stored size with *method set, or return len with *method
 * BC_STORED when deflate does not shrink the block (out is then unused).
 * -1: out of memory.  The bytes depend on the data and the level alone. */
int64_t bc_encode(bc_coder *c, const unsigned char *raw, uint32_t len, unsigned char *out,
                  uint32_t *method);

/* Decode a block of method (BC_DEFLATE or BC_SHUFFLE) from stored bytes
 * into exactly raw bytes at dst.  BC_OK, BC_CORRUPT (not valid deflate, or
 * not exactly raw bytes, or bytes left over) or BC_NOMEM. */
int bc_decode(bc_coder *c, uint32_t method, const unsigned char *payload, uint32_t stored,
              unsigned char *dst, uint32_t raw);

/* CRC-32 (the gzip and zlib polynomial) of len bytes. */
uint32_t bc_crc32(const void *p, size_t len);

/* Byte shuffle of n4 4-byte elements: all first bytes, then all second
 * bytes, and so on; bc_unshuffle4 undoes it. */
void bc_shuffle4(unsigned char *restrict dst, const unsigned char *restrict src, size_t n4);
void bc_unshuffle4(unsigned char *restrict dst, const unsigned char *restrict src, size_t n4);

/* The engine this library deflates with, for messages and benchmarks:
 * "ISA-L" or "zlib". */
const char *bc_engine(void);

#endif
