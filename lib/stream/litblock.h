/* litblock.h - internal to lib/: raw deflate of literals alone.
 *
 * One dynamic-Huffman deflate block (RFC 1951, 3.2.7) whose code is fitted
 * to the counts of the bytes themselves, with no match search.  Where a
 * match search finds next to nothing (the second byte plane of a
 * predecessor matrix: vertex numbers' high bytes, a few bits of entropy and
 * no repeats), this is as small as deflate and several times faster.  Any
 * inflater reads it.  Nothing here allocates, prints or exits.
 */
#ifndef APSP_LITBLOCK_H
#define APSP_LITBLOCK_H

#include <stddef.h>
#include <stdint.h>

/* Deflate len bytes of in as literals into out (cap bytes).  last: the
 * block ends the deflate stream (BFINAL set); otherwise an empty stored
 * block follows, so the output ends on a byte boundary and more blocks may
 * follow (what zlib calls a full flush).  The counts of in must be given
 * (count[b]: how many bytes of in equal b).  Returns the bytes written, or 0
 * when they would not fit in cap. */
size_t lit_deflate(const unsigned char *in, size_t len, const uint32_t count[256], int last,
                   unsigned char *out, size_t cap);

/* The bytes lit_deflate() would write for these counts: its header and
 * code are chosen from the counts alone. */
size_t lit_deflate_size(const uint32_t count[256], int last);

/* count[b] = how many of the len bytes at in equal b. */
void lit_count(const unsigned char *in, size_t len, uint32_t count[256]);

#endif
