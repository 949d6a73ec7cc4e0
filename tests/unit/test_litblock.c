/* test_litblock.c - unit tests of the literals-only deflate block
 * (lib/stream/litblock.c): on every kind of byte distribution, and on lengths from
 * 0 up, its output has exactly the size lit_deflate_size() announces,
 * inflates through zlib and through the library's engine (ISA-L where built
 * with it) to exactly the input, and ends the stream or leaves it open for
 * a next block as asked; skewed counts that would need codes longer than 15
 * bits still give a valid code; a buffer too small is refused; and 300
 * blocks of random lengths and skews all inflate to their input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "blockcodec.h"
#include "litblock.h"
#include "t.h"

enum { D_ONE, D_TWO, D_SMALL, D_UNIFORM, D_SKEWED, D_FIBONACCI, D_KINDS };
static const char *dname[D_KINDS] = {"one value", "two values", "0..39", "0..255", "skewed",
                                     "Fibonacci counts"};

static void fill(unsigned char *b, size_t len, int kind)
{
	size_t at = 0;
	if (kind == D_FIBONACCI) {
		/* counts 1, 1, 2, 3, 5, 8, ... for 25 values: an unlimited
		 * Huffman code would be 24 bits long */
		uint64_t f0 = 1, f1 = 1;
		for (int v = 0; v < 25 && at < len; v++) {
			for (uint64_t k = 0; k < f0 && at < len; k++)
				b[at++] = (unsigned char)v;
			uint64_t f2 = f0 + f1;
			f0 = f1, f1 = f2;
		}
	}
	for (size_t i = at; i < len; i++) {
		uint32_t r = t_rnd();
		switch (kind) {
		case D_ONE: b[i] = 7; break;
		case D_TWO: b[i] = r & 1 ? 200 : 3; break;
		case D_SMALL: b[i] = (unsigned char)(r % 40); break;
		case D_UNIFORM: b[i] = (unsigned char)r; break;
		case D_SKEWED: b[i] = (unsigned char)(r % 1000 < 990 ? 0 : r >> 20); break;
		default: b[i] = 24; /* the Fibonacci tail: the most common value */
		}
	}
}

/* Exactly raw from exactly len bytes of raw deflate, by zlib. */
static int zlib_inflates(const unsigned char *in, size_t len, const unsigned char *raw,
                         size_t rawlen)
{
	unsigned char *out = malloc(rawlen + 1);
	z_stream z;
	memset(&z, 0, sizeof z);
	if (!out || inflateInit2(&z, -15) != Z_OK) {
		free(out);
		return 0;
	}
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)rawlen + 1;
	int rc = inflate(&z, Z_FINISH);
	int ok = rc == Z_STREAM_END && z.avail_in == 0 && z.total_out == rawlen
	         && memcmp(out, raw, rawlen) == 0;
	inflateEnd(&z);
	free(out);
	return ok;
}

static void one(int kind, size_t len)
{
	unsigned char *in = malloc(2 * len + 1), *out = malloc(4 * len + 4096);
	uint32_t count[256], count2[256];
	bc_coder *c = bc_coder_new(1, (uint32_t)(2 * len + 16));

	fill(in, len, kind);
	fill(in + len, len, D_SMALL);
	lit_count(in, len, count);
	lit_count(in + len, len, count2);

	/* alone, ending the stream */
	size_t want = lit_deflate_size(count, 1);
	size_t got = lit_deflate(in, len, count, 1, out, 4 * len + 4096);
	int zok = got && zlib_inflates(out, got, in, len);
	int eok = got && len && len <= UINT32_MAX
	          && bc_decode(c, BC_DEFLATE, out, (uint32_t)got, out + got, (uint32_t)len) == BC_OK
	          && memcmp(out + got, in, len) == 0;
	T_CHECKF(got == want && zok && (eok || len == 0),
	       "%s, %zu bytes: %zu bytes as announced (%zu), inflated by zlib and by %s", dname[kind],
	       len, got, want, bc_engine());
	if (len >= 4096 && kind != D_UNIFORM)
		T_CHECKF(got < len, "%s, %zu bytes: shrinks (%zu)", dname[kind], len, got);

	/* followed by a second block that ends the stream */
	size_t a = lit_deflate(in, len, count, 0, out, 4 * len + 4096);
	size_t b = a ? lit_deflate(in + len, len, count2, 1, out + a, 4 * len + 4096 - a) : 0;
	T_CHECKF(a == lit_deflate_size(count, 0) && b && zlib_inflates(out, a + b, in, 2 * len),
	       "%s then 0..39, %zu bytes each: two blocks, one stream", dname[kind], len);

	/* a buffer that cannot hold it (and the 8 bytes of slack) */
	T_CHECKF(lit_deflate(in, len, count, 1, out, want + 7) == 0,
	       "%s, %zu bytes: refused with %zu bytes of room", dname[kind], len, want + 7);
	bc_coder_free(c);
	free(in), free(out);
}

/* Random lengths, random numbers of distinct values with random skew: 300
 * blocks, each inflated by zlib to exactly its input. */
static void random_blocks(void)
{
	int bad = 0, total = 0;
	unsigned char *in = malloc(70000), *out = malloc(4 * 70000 + 4096);
	for (int k = 0; k < 300; k++) {
		size_t len = t_rnd() % 70000;
		unsigned values = 1 + t_rnd() % 256, skew = t_rnd() % 12;
		for (size_t i = 0; i < len; i++) {
			uint32_t r = t_rnd();
			/* value v with weight about 2^-(v * skew / values) */
			unsigned v = r % values;
			for (unsigned s = 0; s < skew && v && (t_rnd() & 1); s++)
				v >>= 1;
			in[i] = (unsigned char)(v * 7 + k);
		}
		uint32_t count[256];
		lit_count(in, len, count);
		int last = k % 2;
		size_t got = lit_deflate(in, len, count, last, out, 4 * 70000 + 4096);
		/* a block that does not end the stream is ended by an empty final one */
		size_t tail = 0;
		if (got && !last) {
			uint32_t none[256] = {0};
			tail = lit_deflate(in, 0, none, 1, out + got, 4 * 70000 + 4096 - got);
		}
		total++;
		bad += !(got == lit_deflate_size(count, last) && (last || tail)
		         && zlib_inflates(out, got + tail, in, len));
	}
	T_CHECKF(bad == 0, "%d random blocks of up to 70000 bytes: %d inflated wrong", total, bad);
	free(in), free(out);
}

int main(void)
{
	t_rng = 0x2545f4914f6cdd1dull;
	static const size_t lens[] = {0, 1, 2, 3, 100, 4097, 262144};
	for (int kind = 0; kind < D_KINDS; kind++)
		for (size_t l = 0; l < sizeof lens / sizeof *lens; l++)
			one(kind, lens[l]);
	random_blocks();
	return T_DONE();
}
