/* test_blockcodec.c - unit tests of one block's codec (lib/stream/blockcodec.c):
 * every kind of block round-trips through the codec and, as raw deflate,
 * through zlib's own inflate (so the format is the standard one whatever
 * the engine: fitted tables, planes as separate deflate blocks, stored
 * planes, tails); the same block always gives the same bytes; and what
 * should shrink does. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blockcodec.h"
#include "t.h"

enum { K_PRED, K_DIST, K_WEIGHTS, K_ZERO, K_NOISE, K_KINDS };
static const char *kind_name[K_KINDS] = {"predecessors", "distances", "weights", "zeros",
                                         "noise"};

/* len bytes of the kind: predecessors of a graph of n vertices (low byte
 * uniform), small distances, weights (15% edges, INF elsewhere), zeros,
 * uniform noise; a length that is not a multiple of 4 ends in noise. */
static void fill(unsigned char *b, size_t len, int kind, uint32_t n)
{
	size_t n4 = len / 4;
	for (size_t i = 0; i < n4; i++) {
		uint32_t v, r = t_rnd();
		switch (kind) {
		case K_PRED: v = r % n; break;
		case K_DIST: v = 3 + r % 5 + (r >> 8) % 3; break;
		case K_WEIGHTS: v = r % 100 < 15 ? 1 + (r >> 8) % 100 : 0x3fffffffu; break;
		case K_ZERO: v = 0; break;
		default: v = r ^ (t_rnd() << 16);
		}
		memcpy(b + 4 * i, &v, 4);
	}
	for (size_t i = n4 * 4; i < len; i++)
		b[i] = (unsigned char)t_rnd();
}

/* Raw deflate inflated by zlib: 1 when it gives exactly raw from exactly
 * stored bytes. */
static int zlib_inflates(const unsigned char *payload, uint32_t stored, const unsigned char *raw,
                         uint32_t len, unsigned char *tmp)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, -15) != Z_OK)
		return 0;
	z.next_in = (unsigned char *)payload;
	z.avail_in = stored;
	z.next_out = tmp;
	z.avail_out = len;
	int rc = inflate(&z, Z_FINISH);
	int ok = rc == Z_STREAM_END && z.avail_in == 0 && z.avail_out == 0;
	inflateEnd(&z);
	return ok && memcmp(tmp, raw, len) == 0;
}

/* Undo the shuffle as the reader does, for zlib's output of a shuffled block. */
static void unshuffle_tail(unsigned char *dst, const unsigned char *src, uint32_t len)
{
	bc_unshuffle4(dst, src, len / 4);
	memcpy(dst + len / 4 * 4, src + len / 4 * 4, len % 4);
}

/* most: what a block of 64 KiB or more must shrink to at least (a share of
 * raw), 0 for the kind's default. */
static void round_trip(int level, int kind, uint32_t len, uint32_t n, double most)
{
	unsigned char *raw = malloc(len + 1), *out = malloc(len + 1), *out2 = malloc(len + 1);
	unsigned char *back = malloc(len + 1), *tmp = malloc(len + 1), *shuf = malloc(len + 1);
	bc_coder *c = bc_coder_new(level, len), *d = bc_coder_new(0, len);
	uint32_t method = 99, method2 = 98;

	fill(raw, len, kind, n);
	int64_t got = bc_encode(c, raw, len, out, &method);
	int64_t got2 = bc_encode(c, raw, len, out2, &method2);
	/* A stored block is the raw bytes, which the writer writes itself. */
	int same = method == BC_STORED || memcmp(out, out2, (size_t)got) == 0;
	T_CHECKF(got > 0 && got <= len && got == got2 && method == method2 && same,
	       "level %d, %s, %u bytes: the same bytes twice (%lld, method %u)", level,
	       kind_name[kind], len, (long long)got, method);
	int ok = 0, zok = 0;
	if (got > 0 && method == BC_STORED) {
		ok = zok = got == len;
	} else if (got > 0) {
		ok = bc_decode(d, method, out, (uint32_t)got, back, len) == BC_OK
		     && memcmp(back, raw, len) == 0;
		if (method == BC_SHUFFLE) {
			bc_shuffle4(shuf, raw, len / 4);
			memcpy(shuf + len / 4 * 4, raw + len / 4 * 4, len % 4);
			zok = zlib_inflates(out, (uint32_t)got, shuf, len, tmp);
			if (zok) {
				unshuffle_tail(back, tmp, len);
				zok = memcmp(back, raw, len) == 0;
			}
		} else {
			zok = zlib_inflates(out, (uint32_t)got, raw, len, tmp);
		}
	}
	T_CHECKF(ok && zok, "level %d, %s, %u bytes: back through the codec and through zlib", level,
	       kind_name[kind], len);
	if (level > 0 && len >= 65536) {
		/* By default, with room: predecessors of n = 1000 carry 10 bits
		 * in 32, distances under 4, weights about 5, zeros nothing; noise
		 * is stored. */
		double share = (double)got / len;
		if (most == 0)
			most = kind == K_PRED ? 0.38 : kind == K_DIST ? 0.16 : kind == K_WEIGHTS ? 0.20
			     : kind == K_ZERO ? 0.01 : 1.0;
		T_CHECKF(share <= most && (kind != K_NOISE || method == BC_STORED),
		       "level %d, %s, %u bytes: %.2f%% of raw (at most %.0f%%)", level,
		       kind_name[kind], len, 100 * share, 100 * most);
	}
	bc_coder_free(c);
	bc_coder_free(d);
	free(raw), free(out), free(out2), free(back), free(tmp), free(shuf);
}

/* A coder keeps the bytes of the constant planes it coded last: a sequence
 * of blocks whose constant planes differ in value, length and place (the
 * last plane or not) must give each block the bytes a fresh coder gives it,
 * and those must decode. */
static void constant_planes(void)
{
	static const struct { uint32_t len; int low, high; } seq[] = {
		{1u << 20, 1, 0}, {1u << 20, 1, 0}, {1u << 20, 0, 0}, {65536, 1, 0},
		{65536 + 3, 1, 0}, {1u << 20, 1, 7}, {1u << 20, 1, 0}, {301, 0, 9}, {1u << 20, 0, 0}};
	const uint32_t cap = 1u << 20;
	unsigned char *raw = malloc(cap), *out = malloc(cap), *ref = malloc(cap), *back = malloc(cap);
	bc_coder *c = bc_coder_new(1, cap), *d = bc_coder_new(0, cap);
	int ok = 1;
	size_t k;

	for (k = 0; ok && k < sizeof seq / sizeof *seq; k++) {
		uint32_t len = seq[k].len, m1, m2;
		/* low: small distances in the low two bytes (else 0 there too);
		 * the high two bytes all seq[k].high */
		for (uint32_t i = 0; i < len / 4; i++) {
			uint32_t v = seq[k].low ? 3 + t_rnd() % 300 : 0;
			v |= (uint32_t)seq[k].high * 0x01010000u;
			memcpy(raw + 4 * i, &v, 4);
		}
		memset(raw + len / 4 * 4, seq[k].high, len % 4);
		bc_coder *f = bc_coder_new(1, cap);
		int64_t got = bc_encode(c, raw, len, out, &m1), want = bc_encode(f, raw, len, ref, &m2);
		bc_coder_free(f);
		ok = got > 0 && got == want && m1 == m2
		     && (m1 == BC_STORED || (!memcmp(out, ref, (size_t)got)
		         && bc_decode(d, m1, out, (uint32_t)got, back, len) == BC_OK
		         && !memcmp(back, raw, len)));
	}
	T_CHECKF(ok, "constant planes kept by a coder: each block's bytes those of a fresh coder "
	         "(%zu of %zu blocks)", ok ? k : k - 1, sizeof seq / sizeof *seq);
	bc_coder_free(c);
	bc_coder_free(d);
	free(raw), free(out), free(ref), free(back);
}

int main(void)
{
	static const uint32_t lens[] = {8, 11, 301, 4096, 65536 + 3, 1u << 20};
	for (int level = 1; level <= 3; level += 2)
		for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
			for (int kind = 0; kind < K_KINDS; kind++)
				round_trip(level, kind, lens[l], 1000, 0);
	/* Predecessors whose two low bytes are both (nearly) uniform: 16 bits
	 * in 32, and of a graph small enough for one byte (8 in 32). */
	round_trip(1, K_PRED, 1u << 20, 60000, 0.51);
	round_trip(1, K_PRED, 1u << 20, 200, 0.26);
	constant_planes();
	T_CHECKF(bc_crc32("123456789", 9) == 0xcbf43926u, "CRC32 of the check string (%s)",
	       bc_engine());
	return T_DONE();
}
