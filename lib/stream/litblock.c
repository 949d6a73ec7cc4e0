/* litblock.c - raw deflate of literals alone (see litblock.h).
 *
 * The block: BFINAL, BTYPE 10 (dynamic codes), HLIT = 257 codes (the 256
 * literals and end-of-block), HDIST = one distance code of length 0 (no
 * match is ever sent), the code lengths run-length coded with symbols 16, 17
 * and 18 under their own code of at most 7 bits, the bytes, end-of-block.
 * Codes are canonical (RFC 1951, 3.2.2) and at most 15 bits long.
 */
#include "litblock.h"

#include <string.h>

#define NLIT 257 /* literals 0..255 and end-of-block (256) */
#define EOB 256
#define MAXBITS 15
#define CL_SYMS 19
#define CL_MAXBITS 7

static const unsigned char cl_order[CL_SYMS] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5,
                                                11, 4, 12, 3, 13, 2, 14, 1, 15};

void lit_count(const unsigned char *in, size_t len, uint32_t count[256])
{
	uint32_t c[4][256];
	size_t i = 0;

	memset(c, 0, sizeof c);
	for (; i + 4 <= len; i += 4) {
		c[0][in[i]]++;
		c[1][in[i + 1]]++;
		c[2][in[i + 2]]++;
		c[3][in[i + 3]]++;
	}
	for (; i < len; i++)
		c[0][in[i]]++;
	for (int b = 0; b < 256; b++)
		count[b] = c[0][b] + c[1][b] + c[2][b] + c[3][b];
}

/* Optimal code lengths for the n weights w (0: no code), by the two-queue
 * method over the weights sorted.  Returns the longest. */
static int huffman(const uint64_t *w, int n, unsigned char *len)
{
	int sym[NLIT], m = 0;
	uint64_t nw[2 * NLIT];
	int parent[2 * NLIT], depth[2 * NLIT];

	for (int i = 0; i < n; i++) {
		len[i] = 0;
		if (w[i]) {
			/* insertion by weight, then symbol: deterministic */
			int k = m++;
			while (k > 0 && w[sym[k - 1]] > w[i])
				sym[k] = sym[k - 1], k--;
			sym[k] = i;
		}
	}
	if (m == 1) {
		len[sym[0]] = 1;
		return 1;
	}
	for (int k = 0; k < m; k++)
		nw[k] = w[sym[k]];
	int leaf = 0, inner = m;
	for (int next = m; next < 2 * m - 1; next++) {
		int pick[2];
		for (int t = 0; t < 2; t++)
			pick[t] = leaf < m && (inner >= next || nw[leaf] <= nw[inner]) ? leaf++ : inner++;
		nw[next] = nw[pick[0]] + nw[pick[1]];
		parent[pick[0]] = parent[pick[1]] = next;
	}
	int longest = 0;
	depth[2 * m - 2] = 0;
	for (int k = 2 * m - 3; k >= 0; k--)
		depth[k] = depth[parent[k]] + 1;
	for (int k = 0; k < m; k++) {
		len[sym[k]] = (unsigned char)depth[k];
		if (depth[k] > longest)
			longest = depth[k];
	}
	return longest;
}

/* Code lengths of at most maxbits for the counts c (0: no code), with at
 * least two codes (a code of one symbol is incomplete, which inflaters
 * refuse for the code-length code).  Where the optimal code is longer, the
 * weights are halved, rounding up, and it is built again. */
static void code_lengths(const uint32_t *c, int n, int maxbits, unsigned char *len)
{
	uint64_t w[NLIT];
	int used = 0;

	for (int i = 0; i < n; i++)
		used += (w[i] = c[i]) != 0;
	for (int i = 0; used < 2 && i < n; i++)
		if (!w[i])
			w[i] = 1, used++;
	while (huffman(w, n, len) > maxbits)
		for (int i = 0; i < n; i++)
			if (w[i])
				w[i] = (w[i] + 1) / 2;
}

/* Canonical codes for the lengths, bit-reversed for LSB-first output. */
static void canonical(const unsigned char *len, int n, uint16_t *code)
{
	int count[MAXBITS + 1] = {0}, next[MAXBITS + 2];

	for (int i = 0; i < n; i++)
		count[len[i]]++;
	count[0] = 0;
	next[1] = 0;
	for (int bits = 2; bits <= MAXBITS + 1; bits++)
		next[bits] = (next[bits - 1] + count[bits - 1]) << 1;
	for (int i = 0; i < n; i++) {
		if (!len[i])
			continue;
		unsigned v = (unsigned)next[len[i]]++, r = 0;
		for (int b = 0; b < len[i]; b++, v >>= 1)
			r = (r << 1) | (v & 1);
		code[i] = (uint16_t)r;
	}
}

/* The code lengths (257 literal, then 1 distance) run-length coded: symbol
 * and extra-bit value per entry.  Returns the entries. */
static int rle_lengths(const unsigned char *l, int n, unsigned char *sym, unsigned char *extra)
{
	int k = 0;

	for (int i = 0; i < n;) {
		int v = l[i], run = 1;
		while (i + run < n && l[i + run] == v)
			run++;
		int r = run;
		if (v == 0) {
			for (; r >= 11; k++) {
				int t = r > 138 ? 138 : r;
				sym[k] = 18, extra[k] = (unsigned char)(t - 11), r -= t;
			}
			if (r >= 3)
				sym[k] = 17, extra[k++] = (unsigned char)(r - 3), r = 0;
		} else {
			sym[k] = (unsigned char)v, extra[k++] = 0, r--;
			for (; r >= 3; k++) {
				int t = r > 6 ? 6 : r;
				sym[k] = 16, extra[k] = (unsigned char)(t - 3), r -= t;
			}
		}
		for (; r > 0; r--)
			sym[k] = (unsigned char)v, extra[k++] = 0;
		i += run;
	}
	return k;
}

static const unsigned char extra_bits[CL_SYMS] = {[16] = 2, [17] = 3, [18] = 7};

/* Everything lit_deflate() decides from the counts. */
struct plan {
	unsigned char len[NLIT + 1]; /* literal and end-of-block lengths, then the distance's 0 */
	uint16_t code[NLIT];
	unsigned char cl_len[CL_SYMS];
	uint16_t cl_code[CL_SYMS];
	unsigned char rsym[NLIT + 1], rextra[NLIT + 1];
	int nrle, nclen;
	uint64_t bits; /* of the dynamic block, header to end-of-block */
};

static void make_plan(const uint32_t count[256], struct plan *p)
{
	uint32_t c[NLIT], cl_count[CL_SYMS] = {0};

	memcpy(c, count, 256 * sizeof *c);
	c[EOB] = 1;
	code_lengths(c, NLIT, MAXBITS, p->len);
	p->len[NLIT] = 0; /* the one distance code: none sent */
	canonical(p->len, NLIT, p->code);
	p->nrle = rle_lengths(p->len, NLIT + 1, p->rsym, p->rextra);
	for (int k = 0; k < p->nrle; k++)
		cl_count[p->rsym[k]]++;
	code_lengths(cl_count, CL_SYMS, CL_MAXBITS, p->cl_len);
	canonical(p->cl_len, CL_SYMS, p->cl_code);
	p->nclen = CL_SYMS;
	while (p->nclen > 4 && p->cl_len[cl_order[p->nclen - 1]] == 0)
		p->nclen--;

	uint64_t bits = 3 + 5 + 5 + 4 + 3 * (uint64_t)p->nclen;
	for (int k = 0; k < p->nrle; k++)
		bits += p->cl_len[p->rsym[k]] + extra_bits[p->rsym[k]];
	for (int b = 0; b < 256; b++)
		bits += (uint64_t)count[b] * p->len[b];
	p->bits = bits + p->len[EOB];
}

/* Bytes for a dynamic block of bits, byte-aligned: after a last block
 * padding, else an empty stored block (3 bits, padding, 4 bytes). */
static size_t total_bytes(uint64_t bits, int last)
{
	return last ? (size_t)((bits + 7) / 8) : (size_t)((bits + 3 + 7) / 8) + 4;
}

size_t lit_deflate_size(const uint32_t count[256], int last)
{
	struct plan p;
	make_plan(count, &p);
	return total_bytes(p.bits, last);
}

/* An LSB-first bit writer that stores 8 bytes at a time (the caller leaves
 * 8 bytes of room past the end). */
struct bits {
	unsigned char *o;
	uint64_t acc;
	unsigned nb;
};

static inline void put(struct bits *w, uint32_t v, unsigned n)
{
	w->acc |= (uint64_t)v << w->nb;
	w->nb += n;
}

static inline void flush(struct bits *w)
{
	memcpy(w->o, &w->acc, 8);
	w->o += w->nb >> 3;
	w->acc = (w->nb & ~7u) ? w->acc >> (w->nb & ~7u) : w->acc;
	w->nb &= 7;
}

size_t lit_deflate(const unsigned char *in, size_t len, const uint32_t count[256], int last,
                   unsigned char *out, size_t cap)
{
	struct plan p;
	make_plan(count, &p);
	size_t total = total_bytes(p.bits, last);
	if (total + 8 > cap)
		return 0;

	struct bits w = {out, 0, 0};
	put(&w, (last ? 1u : 0u) | (2u << 1), 3);
	put(&w, NLIT - 257, 5);
	put(&w, 0, 5); /* one distance code */
	put(&w, (uint32_t)p.nclen - 4, 4);
	flush(&w);
	for (int k = 0; k < p.nclen; k++) {
		put(&w, p.cl_len[cl_order[k]], 3);
		flush(&w);
	}
	for (int k = 0; k < p.nrle; k++) {
		int s = p.rsym[k];
		put(&w, p.cl_code[s], p.cl_len[s]);
		put(&w, p.rextra[k], extra_bits[s]);
		flush(&w);
	}

	uint32_t tab[256];
	for (int b = 0; b < 256; b++)
		tab[b] = p.code[b] | (uint32_t)p.len[b] << 16;
	size_t i = 0;
	/* three codes of at most 15 bits on at most 7 pending: 52 bits */
	for (; i + 3 <= len; i += 3) {
		uint32_t a = tab[in[i]], b = tab[in[i + 1]], c = tab[in[i + 2]];
		put(&w, a & 0xffff, a >> 16);
		put(&w, b & 0xffff, b >> 16);
		put(&w, c & 0xffff, c >> 16);
		flush(&w);
	}
	for (; i < len; i++) {
		put(&w, tab[in[i]] & 0xffff, tab[in[i]] >> 16);
		flush(&w);
	}
	put(&w, p.code[EOB], p.len[EOB]);
	if (!last)
		put(&w, 0, 3); /* BFINAL 0, BTYPE 00: an empty stored block */
	w.nb = (w.nb + 7) & ~7u;
	flush(&w);
	if (!last) {
		static const unsigned char empty[4] = {0x00, 0x00, 0xff, 0xff};
		memcpy(w.o, empty, 4);
		w.o += 4;
	}
	return (size_t)(w.o - out);
}
