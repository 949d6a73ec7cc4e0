/* blockcodec.c - one stream block's codec: deflate engine, CRC32, shuffle.
 * See blockcodec.h.  Built with ISA-L (HAVE_ISAL) or with zlib alone. */
#include "blockcodec.h"
#include "litblock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#ifdef HAVE_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define HAVE_X86 1
#endif

#define SAMPLE_BYTES (8u << 10)  /* tried shuffled and plain per block */

struct bc_coder {
	int level;
	uint32_t block;
	unsigned char *scratch; /* one block, for (un)shuffling */
	unsigned char *sample;  /* a shuffled sample */
#ifdef HAVE_ISAL
	struct isal_zstream *zs;
	unsigned char *level_buf;
	uint32_t level_buf_size;
	struct isal_hufftables *tables;     /* fitted to the block at hand */
	struct isal_huff_histogram *hist;
	struct inflate_state *is;
	/* The last constant byte plane coded, and its bytes (see plane_const):
	 * one for the block's last plane, one for the others */
	struct const_plane {
		unsigned char *out;
		size_t len, plen;
		int byte;
	} konst[2];
#else
	z_stream z;             /* deflate of shuffled blocks, or inflate */
	z_stream zp;            /* deflate of plain blocks */
	int zdef, zinf;
#endif
};

/* ---- shuffle ---- */

static void shuffle4_scalar(unsigned char *restrict dst, const unsigned char *restrict src,
                            size_t n4, size_t from)
{
	unsigned char *d0 = dst, *d1 = dst + n4, *d2 = dst + 2 * n4, *d3 = dst + 3 * n4;

	for (size_t i = from; i < n4; i++) {
		d0[i] = src[4 * i];
		d1[i] = src[4 * i + 1];
		d2[i] = src[4 * i + 2];
		d3[i] = src[4 * i + 3];
	}
}

static void unshuffle4_scalar(unsigned char *restrict dst, const unsigned char *restrict src,
                              size_t n4, size_t from)
{
	const unsigned char *s0 = src, *s1 = src + n4, *s2 = src + 2 * n4, *s3 = src + 3 * n4;

	for (size_t i = from; i < n4; i++) {
		dst[4 * i] = s0[i];
		dst[4 * i + 1] = s1[i];
		dst[4 * i + 2] = s2[i];
		dst[4 * i + 3] = s3[i];
	}
}

#ifdef HAVE_X86
/* 16 elements at a time: within each 16-byte vector gather the bytes of
 * each plane (pshufb), then a 4 x 4 transpose of 32-bit words puts each
 * plane's 16 bytes in one vector.  Both steps are their own inverse, so
 * unshuffling runs the same two steps the other way round. */
#define TRANSPOSE4(a, b, c, d)                                               \
	do {                                                                 \
		__m128i t0 = _mm_unpacklo_epi32(a, b), t1 = _mm_unpackhi_epi32(a, b); \
		__m128i t2 = _mm_unpacklo_epi32(c, d), t3 = _mm_unpackhi_epi32(c, d); \
		a = _mm_unpacklo_epi64(t0, t2);                              \
		b = _mm_unpackhi_epi64(t0, t2);                              \
		c = _mm_unpacklo_epi64(t1, t3);                              \
		d = _mm_unpackhi_epi64(t1, t3);                              \
	} while (0)

__attribute__((target("ssse3"))) static size_t shuffle4_ssse3(unsigned char *restrict dst,
                                                              const unsigned char *restrict src,
                                                              size_t n4)
{
	const __m128i m = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	size_t i = 0;

	for (; i + 16 <= n4; i += 16) {
		const __m128i *s = (const __m128i *)(src + 4 * i);
		__m128i a = _mm_shuffle_epi8(_mm_loadu_si128(s), m);
		__m128i b = _mm_shuffle_epi8(_mm_loadu_si128(s + 1), m);
		__m128i c = _mm_shuffle_epi8(_mm_loadu_si128(s + 2), m);
		__m128i d = _mm_shuffle_epi8(_mm_loadu_si128(s + 3), m);
		TRANSPOSE4(a, b, c, d);
		_mm_storeu_si128((__m128i *)(dst + i), a);
		_mm_storeu_si128((__m128i *)(dst + n4 + i), b);
		_mm_storeu_si128((__m128i *)(dst + 2 * n4 + i), c);
		_mm_storeu_si128((__m128i *)(dst + 3 * n4 + i), d);
	}
	return i;
}

__attribute__((target("ssse3"))) static size_t unshuffle4_ssse3(unsigned char *restrict dst,
                                                                const unsigned char *restrict src,
                                                                size_t n4)
{
	const __m128i m = _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
	size_t i = 0;

	for (; i + 16 <= n4; i += 16) {
		__m128i a = _mm_loadu_si128((const __m128i *)(src + i));
		__m128i b = _mm_loadu_si128((const __m128i *)(src + n4 + i));
		__m128i c = _mm_loadu_si128((const __m128i *)(src + 2 * n4 + i));
		__m128i d = _mm_loadu_si128((const __m128i *)(src + 3 * n4 + i));
		TRANSPOSE4(a, b, c, d);
		__m128i *o = (__m128i *)(dst + 4 * i);
		_mm_storeu_si128(o, _mm_shuffle_epi8(a, m));
		_mm_storeu_si128(o + 1, _mm_shuffle_epi8(b, m));
		_mm_storeu_si128(o + 2, _mm_shuffle_epi8(c, m));
		_mm_storeu_si128(o + 3, _mm_shuffle_epi8(d, m));
	}
	return i;
}

static int have_ssse3(void)
{
	static int known = -1;
	if (known < 0)
		known = __builtin_cpu_supports("ssse3") ? 1 : 0;
	return known;
}
#endif

void bc_shuffle4(unsigned char *restrict dst, const unsigned char *restrict src, size_t n4)
{
	size_t done = 0;
#ifdef HAVE_X86
	if (have_ssse3())
		done = shuffle4_ssse3(dst, src, n4);
#endif
	shuffle4_scalar(dst, src, n4, done);
}

void bc_unshuffle4(unsigned char *restrict dst, const unsigned char *restrict src, size_t n4)
{
	size_t done = 0;
#ifdef HAVE_X86
	if (have_ssse3())
		done = unshuffle4_ssse3(dst, src, n4);
#endif
	unshuffle4_scalar(dst, src, n4, done);
}

/* ---- CRC ---- */

uint32_t bc_crc32(const void *p, size_t len)
{
#ifdef HAVE_ISAL
	return crc32_gzip_refl(0, p, len);
#else
	/* crc32() takes a uInt length: feed it in pieces. */
	const unsigned char *b = p;
	uLong c = crc32(0L, Z_NULL, 0);
	while (len) {
		uInt k = len > (1u << 30) ? (1u << 30) : (uInt)len;
		c = crc32(c, b, k);
		b += k;
		len -= k;
	}
	return (uint32_t)c;
#endif
}

/* ---- the deflate engine ---- */

#ifdef HAVE_ISAL
const char *bc_engine(void)
{
	return "ISA-L";
}

/* ISA-L's levels 1 and 2 are never used: on the development and the H100
 * machines alike their output for the same block varied with thread
 * scheduling (valid deflate, different bytes; bench/stream.md), and the
 * bytes a writer produces must be a function of the data.  Its levels 0 and
 * 3 gave the same bytes every time.
 *
 * At our level 1 (the default) every block is deflated by ISA-L's level 0,
 * the fastest, with Huffman tables fitted to a sample of the data rather
 * than its built-in ones: a plain block (weights) is one deflate block; a
 * shuffled block (distances, predecessors) is one deflate block per byte
 * plane, each with its own tables, and a plane that would not shrink (the
 * low bytes of predecessors) is stored as it is.  Our levels 2 and above
 * take ISA-L's level 3 over the whole block. */
#define FIT_SLICES 8 /* a sample is this many slices spread over the data */
#define LITERAL_SHARE 0.9 /* at least this share of literals: literals alone, */
#define LITERAL_MARGIN 1.05 /* if no larger than 1.05 times the sample's estimate */

static int engine_init_deflate(bc_coder *c)
{
	if (c->zs)
		return 0;
	c->zs = calloc(1, sizeof *c->zs);
	c->tables = calloc(1, sizeof *c->tables);
	c->hist = calloc(1, sizeof *c->hist);
	if (c->level >= 2) {
		c->level_buf_size = ISAL_DEF_LVL3_DEFAULT;
		c->level_buf = calloc(1, c->level_buf_size);
	}
	return c->zs && c->tables && c->hist && (c->level < 2 || c->level_buf) ? 0 : -1;
}

/* One stateless ISA-L call over in: level l, the coder's fitted tables when
 * fitted (else ISA-L's own), the end of the deflate stream when last, else a
 * full flush (byte-aligned, so more blocks may follow).  Bytes written, or 0
 * when they do not fit in cap. */
static size_t isal_run(bc_coder *c, int l, int fitted, int last, const unsigned char *in,
                       size_t len, unsigned char *out, size_t cap)
{
	struct isal_zstream *z = c->zs;
	/* Nothing carried over from the last call: the whole state and the
	 * match finder's tables (level_buf) start afresh. */
	memset(z, 0, sizeof *z);
	isal_deflate_stateless_init(z);
	z->level = (uint32_t)l;
	if (l > 0) {
		memset(c->level_buf, 0, c->level_buf_size);
		z->level_buf = c->level_buf;
		z->level_buf_size = c->level_buf_size;
	}
	if (fitted)
		z->hufftables = c->tables;
	z->gzip_flag = IGZIP_DEFLATE;
	z->end_of_stream = last;
	z->flush = last ? NO_FLUSH : FULL_FLUSH;
	z->next_in = (uint8_t *)in;
	z->avail_in = (uint32_t)len;
	z->next_out = out;
	z->avail_out = (uint32_t)(cap < UINT32_MAX ? cap : UINT32_MAX);
	return isal_deflate_stateless(z) == COMP_OK && z->avail_in == 0 ? z->total_out : 0;
}

/* What a sample of the data says: its literal entropy in bits per byte
 * sampled (near 8: the data would not shrink), and the share of its bytes
 * that ISA-L's match search sent as literals (near 1: it found no
 * matches worth having). */
struct sample {
	double entropy, literal_share;
};

/* The match-search histogram of one part in frac of in (FIT_SLICES slices
 * spread over it) into c->hist. */
static struct sample sample_histogram(bc_coder *c, const unsigned char *in, size_t len,
                                      size_t frac)
{
	struct isal_huff_histogram *h = c->hist;
	size_t stride = len / FIT_SLICES, slice = len / frac / FIT_SLICES, sampled = 0;

	memset(h, 0, sizeof *h);
	if (slice < 256 || stride == 0) {
		isal_update_histogram((uint8_t *)in, (int)len, h);
		sampled = len;
	} else {
		for (size_t k = 0; k < FIT_SLICES; k++)
			isal_update_histogram((uint8_t *)in + k * stride, (int)slice, h);
		sampled = FIT_SLICES * slice;
	}
	double total = 0, bits = 0, literals = 0;
	for (int i = 0; i < ISAL_DEF_LIT_LEN_SYMBOLS; i++)
		total += (double)h->lit_len_histogram[i];
	for (int i = 0; i < 256; i++)
		literals += (double)h->lit_len_histogram[i];
	for (int i = 0; i < ISAL_DEF_LIT_LEN_SYMBOLS; i++)
		if (h->lit_len_histogram[i])
			bits += (double)h->lit_len_histogram[i]
			        * log2(total / (double)h->lit_len_histogram[i]);
	struct sample r = {sampled ? bits / (double)sampled : 0,
	                   sampled ? literals / (double)sampled : 0};
	return r;
}

/* Fit the coder's Huffman tables to one part in frac of in.  Every
 * literal, length and distance gets a code, so data the sample missed
 * still encodes.  Returns what the sample says. */
static struct sample fit_tables(bc_coder *c, const unsigned char *in, size_t len, size_t frac)
{
	struct sample r = sample_histogram(c, in, len, frac);
	isal_create_hufftables(c->tables, c->hist);
	return r;
}

/* in as stored deflate blocks (at most 65535 bytes each), the last one
 * final when last.  Bytes written, or 0 when they do not fit in cap. */
static size_t put_stored(const unsigned char *in, size_t len, int last, unsigned char *out,
                         size_t cap)
{
	size_t o = 0;
	do {
		size_t k = len > 65535 ? 65535 : len;
		if (o + 5 + k > cap)
			return 0;
		len -= k;
		out[o] = last && len == 0; /* BFINAL, BTYPE 00 */
		out[o + 1] = (unsigned char)k, out[o + 2] = (unsigned char)(k >> 8);
		out[o + 3] = (unsigned char)~k, out[o + 4] = (unsigned char)(~k >> 8);
		memcpy(out + o + 5, in, k);
		o += 5 + k, in += k;
	} while (len);
	return o;
}

/* One byte plane (the last of its block when last) into out: bytes written,
 * or 0 when they do not fit in cap.  A quarter of the plane is sampled: an
 * eighth made predecessors' planes 4% larger, the whole plane cost a third
 * more time (bench/stream.md).  Where the match search sent nearly every
 * sampled byte as a literal (predecessors' second plane), the plane is coded
 * as literals alone under a code fitted to its byte counts (lib/stream/litblock.c):
 * several times faster than the match search, and as small. */
static size_t deflate_plane(bc_coder *c, const unsigned char *pin, size_t plen, int last,
                            unsigned char *out, size_t cap)
{
	size_t got = 0;
	struct sample smp = sample_histogram(c, pin, plen, 4);
	if (smp.entropy < 0.97 * 8 && smp.literal_share >= LITERAL_SHARE) {
		/* ...unless the sample's symbols show the matches saving more
		 * than LITERAL_MARGIN: on predecessors of a graph of 1500
		 * vertices the low plane is 92% literals, yet its matches save 7%
		 * (the sample estimated 6%), while at 10000 the second plane
		 * comes out 7% smaller as literals (the sample under-estimated
		 * the match search's cost by 9%). */
		uint32_t count[256];
		lit_count(pin, plen, count);
		if (8.0 * (double)lit_deflate_size(count, last)
		    <= LITERAL_MARGIN * smp.entropy * (double)plen)
			got = lit_deflate(pin, plen, count, last, out, cap);
	}
	if (!got && smp.entropy < 0.97 * 8) {
		isal_create_hufftables(c->tables, c->hist);
		got = isal_run(c, 0, 1, last, pin, plen, out, cap);
	}
	/* What would not shrink is stored: a 5-byte header per 64 KiB. */
	if (got == 0 || got > plen + 5 * (plen / 65535 + 1))
		got = put_stored(pin, plen, last, out, cap);
	return got;
}

/* Whether all plen bytes of p are one value (then *v): the upper planes of
 * distances under 65536 and of predecessors of fewer vertices are all 0. */
static int plane_const(const unsigned char *p, size_t plen, int *v)
{
	if (plen < 16 || memcmp(p, p + 1, 7) != 0)
		return 0;
	*v = p[0];
	return memcmp(p, p + 8, plen - 8) == 0;
}

/* A shuffled block, plane by plane (the last plane takes the tail of a
 * length that is not a multiple of 4).  A constant plane comes out as the
 * same bytes every time (deflate_plane is a function of the plane and
 * last): the coder keeps the last one's and copies them instead of coding
 * it again, a tenth of a distance block's time at n = 10000. */
static size_t deflate_planes(bc_coder *c, const unsigned char *in, size_t len,
                             unsigned char *out, size_t cap)
{
	size_t plane = len / 4, o = 0;

	for (int p = 0; p < 4; p++) {
		const unsigned char *pin = in + p * plane;
		size_t plen = p < 3 ? plane : len - 3 * plane, got = 0;
		int last = p == 3, v;
		if (plane_const(pin, plen, &v)) {
			struct const_plane *k = &c->konst[last];
			if (k->out && k->plen == plen && k->byte == v) {
				if (k->len > cap - o)
					return 0;
				memcpy(out + o, k->out, k->len);
				got = k->len;
			} else if ((got = deflate_plane(c, pin, plen, last, out + o, cap - o)) != 0) {
				unsigned char *keep = realloc(k->out, got);
				if (keep) {
					memcpy(keep, out + o, got);
					*k = (struct const_plane){keep, got, plen, v};
				}
			}
		} else {
			got = deflate_plane(c, pin, plen, last, out + o, cap - o);
		}
		if (got == 0)
			return 0;
		o += got;
	}
	return o;
}

/* Deflate len bytes into out (cap bytes): the stored size, or 0 when it
 * does not fit. */
static size_t engine_deflate(bc_coder *c, int shuffled, const unsigned char *in, size_t len,
                             unsigned char *out, size_t cap)
{
	if (c->level >= 2)
		return isal_run(c, 3, 0, 1, in, len, out, cap);
	if (shuffled)
		return deflate_planes(c, in, len, out, cap);
	/* An eighth of a plain block is sampled: 0.2% larger than the whole
	 * block's tables at less than half the cost. */
	fit_tables(c, in, len, 8);
	return isal_run(c, 0, 1, 1, in, len, out, cap);
}

/* The size the layout choice compares: ISA-L's level 0 with its own tables,
 * the cheapest measure that still ranks the two layouts. */
static size_t engine_sample(bc_coder *c, int shuffled, const unsigned char *in, size_t len,
                            unsigned char *out, size_t cap)
{
	(void)shuffled;
	return isal_run(c, 0, 0, 1, in, len, out, cap);
}

static int engine_inflate(bc_coder *c, const unsigned char *in, uint32_t len,
                          unsigned char *out, uint32_t raw)
{
	if (!c->is && !(c->is = malloc(sizeof *c->is)))
		return BC_NOMEM;
	struct inflate_state *s = c->is;
	isal_inflate_init(s);
	s->next_in = (uint8_t *)in;
	s->avail_in = len;
	s->next_out = out;
	s->avail_out = raw;
	s->crc_flag = ISAL_DEFLATE;
	int rc = isal_inflate_stateless(s);
	/* Exactly raw bytes from exactly len bytes: ISA-L reads ahead in whole
	 * words, so what it left unread is avail_in plus the whole bytes still
	 * in its bit buffer. */
	uint32_t left = s->avail_in + s->read_in_length / 8;
	return rc == ISAL_DECOMP_OK && s->avail_out == 0 && left == 0 ? BC_OK : BC_CORRUPT;
}

static void engine_free(bc_coder *c)
{
	free(c->zs);
	free(c->level_buf);
	free(c->tables);
	free(c->hist);
	free(c->is);
	free(c->konst[0].out);
	free(c->konst[1].out);
}
#else
const char *bc_engine(void)
{
	return "zlib";
}

/* Shuffled planes are deflated with Z_RLE at every level: on these
 * matrices it was both faster and smaller than zlib's match search
 * (bench/stream.md), so the level matters for plain blocks. */
static int engine_init_deflate(bc_coder *c)
{
	if (c->zdef)
		return 0;
	if (deflateInit2(&c->z, c->level, Z_DEFLATED, -15, 8, Z_RLE) != Z_OK)
		return -1;
	if (deflateInit2(&c->zp, c->level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
		deflateEnd(&c->z);
		return -1;
	}
	c->zdef = 1;
	return 0;
}

static size_t engine_deflate(bc_coder *c, int shuffled, const unsigned char *in, size_t len,
                             unsigned char *out, size_t cap)
{
	z_stream *z = shuffled ? &c->z : &c->zp;
	size_t got = 0;

	z->next_in = (unsigned char *)in;
	z->avail_in = (uInt)len;
	z->next_out = out;
	z->avail_out = (uInt)cap;
	if (deflate(z, Z_FINISH) == Z_STREAM_END)
		got = z->total_out;
	deflateReset(z);
	return got;
}

/* The layout choice compares the sizes zlib will write. */
static size_t engine_sample(bc_coder *c, int shuffled, const unsigned char *in, size_t len,
                            unsigned char *out, size_t cap)
{
	return engine_deflate(c, shuffled, in, len, out, cap);
}

static int engine_inflate(bc_coder *c, const unsigned char *in, uint32_t len,
                          unsigned char *out, uint32_t raw)
{
	if (!c->zinf) {
		if (inflateInit2(&c->z, -15) != Z_OK)
			return BC_NOMEM;
		c->zinf = 1;
	}
	c->z.next_in = (unsigned char *)in;
	c->z.avail_in = len;
	c->z.next_out = out;
	c->z.avail_out = raw;
	int zr = inflate(&c->z, Z_FINISH);
	int ok = zr == Z_STREAM_END && c->z.avail_in == 0 && c->z.avail_out == 0;
	inflateReset(&c->z);
	return ok ? BC_OK : BC_CORRUPT;
}

static void engine_free(bc_coder *c)
{
	if (c->zdef) {
		deflateEnd(&c->z);
		deflateEnd(&c->zp);
	}
	if (c->zinf)
		inflateEnd(&c->z);
}
#endif

/* ---- coder ---- */

bc_coder *bc_coder_new(int level, uint32_t block)
{
	bc_coder *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->level = level;
	c->block = block;
	return c;
}

void bc_coder_free(bc_coder *c)
{
	if (!c)
		return;
	engine_free(c);
	free(c->scratch);
	free(c->sample);
	free(c);
}

/* Shuffled or plain?  Distances and predecessors (small numbers) shrink far
 * better with their bytes shuffled; weight matrices, mostly INF, shrink
 * better plain, because there a run of INF is one long repeat, while the
 * shuffle repeats the edge pattern in each of four byte planes.  So both are
 * tried on a sample at the head of the block and the smaller wins: a few
 * percent more work, and still a function of the data alone. */
int64_t bc_encode(bc_coder *c, const unsigned char *raw, uint32_t len, unsigned char *out,
                  uint32_t *method)
{
	*method = BC_STORED;
	if (c->level == 0 || len < 8)
		return len;
	if (engine_init_deflate(c) < 0)
		return -1;
	if (!c->scratch && !(c->scratch = malloc(c->block)))
		return -1;
	if (!c->sample && !(c->sample = malloc(SAMPLE_BYTES)))
		return -1;

	uint32_t sample = len < SAMPLE_BYTES ? len : SAMPLE_BYTES;
	bc_shuffle4(c->sample, raw, sample / 4);
	size_t cs = engine_sample(c, 1, c->sample, sample, out, len - 1);
	size_t cp = engine_sample(c, 0, raw, sample, out, len - 1);
	if (!cs && !cp)
		return len; /* the sample does not shrink: store */
	int shuffled = cs && (!cp || cs <= cp);

	const unsigned char *in = raw;
	if (shuffled) {
		bc_shuffle4(c->scratch, raw, len / 4);
		/* a length that is not a multiple of 4 keeps its tail in place */
		memcpy(c->scratch + len / 4 * 4, raw + len / 4 * 4, len % 4);
		in = c->scratch;
	}
	size_t got = engine_deflate(c, shuffled, in, len, out, len - 1);
	if (!got)
		return len; /* no gain: stored */
	*method = shuffled ? BC_SHUFFLE : BC_DEFLATE;
	return (int64_t)got;
}

int bc_decode(bc_coder *c, uint32_t method, const unsigned char *payload, uint32_t stored,
              unsigned char *dst, uint32_t raw)
{
	unsigned char *to = dst;

	if (method == BC_SHUFFLE) {
		if (!c->scratch && !(c->scratch = malloc(c->block ? c->block : 1)))
			return BC_NOMEM;
		to = c->scratch;
	}
	int rc = engine_inflate(c, payload, stored, to, raw);
	if (rc != BC_OK)
		return rc;
	if (method == BC_SHUFFLE) {
		bc_unshuffle4(dst, to, raw / 4);
		memcpy(dst + raw / 4 * 4, to + raw / 4 * 4, raw % 4);
	}
	return BC_OK;
}
