/* fuzz_stream.c - the stream reader on arbitrary bytes: header, blocks,
 * markers, through every way of reading (whole stream, whole matrices, rows,
 * skips), with one or two threads.  Whatever the bytes, it must not crash,
 * hang or leak, and every refusal must come with a message.  Where both
 * st_read_all and the matrix-by-matrix reader accept a matrix, they must
 * return the same bytes.
 *
 * Checksums would stop a fuzzer at the first changed byte, so each input is
 * read twice: as it is (the checksums must catch the damage), and with its
 * header CRC and block CRCs recomputed (the reader's checks of sizes,
 * methods, markers and the inflater must catch it). */
#include <zlib.h>

#include "fuzz.h"

static uint32_t get32(const uint8_t *p)
{
	return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

/* Recompute the CRCs of the header and of every block that decodes, in
 * place (layout: man/apspmat.5).  Blocks that do not decode keep theirs. */
static void repair_crcs(uint8_t *d, size_t size)
{
	if (size < 64)
		return;
	uint64_t hlen = get32(d + 12);
	if (hlen < 68 || hlen > size)
		return;
	put32(d + hlen - 4, (uint32_t)crc32(0, d, (uInt)(hlen - 4)));
	static uint8_t raw[1 << 16], tmp[1 << 16];
	for (uint64_t pos = hlen; pos + 16 <= size;) {
		uint32_t nraw = get32(d + pos), stored = get32(d + pos + 4), method = get32(d + pos + 12);
		if (nraw == 0 && stored == 0) { /* a marker */
			pos += 16;
			continue;
		}
		if (stored > size - pos - 16)
			return;
		const uint8_t *payload = d + pos + 16;
		int ok = 0;
		if (method == 0 && stored == nraw) {
			put32(d + pos + 8, (uint32_t)crc32(0, payload, stored));
		} else if ((method == 1 || method == 2) && nraw <= sizeof raw) {
			z_stream z;
			memset(&z, 0, sizeof z);
			if (inflateInit2(&z, -15) == Z_OK) {
				z.next_in = (Bytef *)payload;
				z.avail_in = stored;
				z.next_out = method == 2 ? tmp : raw;
				z.avail_out = nraw;
				ok = inflate(&z, Z_FINISH) == Z_STREAM_END && z.avail_out == 0;
				inflateEnd(&z);
			}
			if (ok && method == 2) {
				size_t n4 = nraw / 4;
				for (size_t i = 0; i < n4; i++)
					for (int b = 0; b < 4; b++)
						raw[4 * i + b] = tmp[b * n4 + i];
				memcpy(raw + 4 * n4, tmp + 4 * n4, nraw - 4 * n4);
			}
			if (ok)
				put32(d + pos + 8, (uint32_t)crc32(0, raw, nraw));
		}
		pos += 16 + (uint64_t)stored;
	}
}

/* st_read_windows' rows, checked to come in order, into a whole matrix. */
struct windows {
	unsigned char *m;
	uint64_t npad, next, row; /* row: bytes a row (its entries' size: the matrix's) */
};

static int take_window(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct windows *w = ctx;
	FUZZ_ASSERT(first == w->next && count > 0 && first + count <= w->npad);
	memcpy(w->m + first * w->row, data, count * w->row);
	w->next = first + count;
	return 0;
}

/* The same through st_read_windows_beside: a piece a row, copied. */
struct beside {
	struct windows w;
	uint64_t first, count, ran;
	const unsigned char *data;
};

static uint64_t beside_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct beside *b = ctx;
	FUZZ_ASSERT(first == b->w.next && count > 0 && first + count <= b->w.npad);
	b->first = first, b->count = count, b->data = data, b->ran = 0;
	return count;
}

static void beside_piece(void *ctx, uint64_t i)
{
	struct beside *b = ctx;
	const uint64_t row = b->w.row;
	memcpy(b->w.m + (b->first + i) * row, b->data + i * row, row);
	__atomic_fetch_add(&b->ran, 1, __ATOMIC_RELAXED);
}

static int beside_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct beside *b = ctx;
	if (b->ran == count) /* (not where the reading failed) */
		b->w.next = first + count;
	(void)data;
	return 0;
}

/* Buffers of the caller's for windows kept (st_window_work.keep): every
 * one given back. */
static int kept_buffers;

static void *kept_alloc(void *ctx, size_t bytes)
{
	(void)ctx;
	void *p = malloc(bytes);
	kept_buffers += p != NULL;
	return p;
}

static void kept_release(void *ctx, void *p, size_t bytes)
{
	(void)ctx, (void)bytes;
	kept_buffers--;
	free(p);
}

static void read_stream(const uint8_t *data, size_t size)
{
	int threads = 1 + (size & 1);
	st_error err = {{0}};
	st_matrices all;

	/* The whole stream at once. */
	int fd = fuzz_fd(data, size);
	int all_ok = st_read_all(fd, "fuzz", threads, &all, &err) == 0;
	if (!all_ok)
		fuzz_check_message("st_read_all", &err);
	close(fd);

	/* Matrix by matrix, each read whole, by rows, a window of rows at a time
	 * or skipped. */
	fd = fuzz_fd(data, size);
	st_header h;
	err.msg[0] = '\0';
	st_reader *r = st_reader_open(fd, "fuzz", &h, threads, &err);
	if (!r) {
		fuzz_check_message("st_reader_open", &err);
		FUZZ_ASSERT(!all_ok);
		close(fd);
		if (all_ok)
			st_matrices_free(&all);
		return;
	}
	/* (lists: a list of arcs, its order, a result's sources: their own
	 * sizes, and no rows; after a list of sources, its count of rows) */
	const uint32_t lists = ST_ARCS | ST_ORDER | ST_SOURCES;
	const uint64_t npad = h.npad, nrow = h.matrices & ST_SOURCES ? h.rows : npad;
	uint64_t bytes = h.matrices & (ST_ARCS | ST_SOURCES) ? 0 : st_matrix_bytes(&h);
	for (uint32_t b = 1; b <= ST_SOURCES; b <<= 1)
		if ((h.matrices & b) && st_matrix_bytes_of(&h, b) > bytes)
			bytes = st_matrix_bytes_of(&h, b);
	int ok = 1, k = 0;
	void *m = bytes <= FUZZ_ALLOC_MAX ? malloc(bytes ? bytes : 1) : NULL;
	for (uint32_t bit; ok && (bit = st_next_matrix(r)); k++) {
		int mode = m ? (int)((size >> (2 * k)) % 4) : 2;
		const void *want = !all_ok ? NULL : bit == ST_WEIGHTS ? all.weights
		                 : bit == ST_DIST ? all.dist : bit == ST_PRED ? all.pred
		                 : bit == ST_ARCS ? all.arcs : bit == ST_ORDER ? all.order
		                 : (const void *)all.sources;
		const uint64_t row = npad * (bit == ST_PRED ? 4 : ST_TYPE_SIZE(h.type));
		err.msg[0] = '\0';
		if ((bit & lists) && (mode == 1 || mode == 3)) { /* rows of a list: refused, then read */
			uint64_t row = 0;
			FUZZ_ASSERT(st_read_rows(r, &row, 1, m, &err) < 0);
			fuzz_check_message("rows of a list", &err);
			mode = 0;
		}
		if (mode == 0) {
			ok = st_read_matrix(r, m, &err) == 0;
			if (ok && want)
				FUZZ_ASSERT(memcmp(m, want, st_matrix_bytes_of(&h, bit)) == 0);
		} else if (mode == 1) {
			uint64_t rows[3] = {0, nrow / 2, nrow ? nrow - 1 : 0};
			size_t nrows = nrow ? 3 : 0;
			if (nrow < 3)
				nrows = nrow;
			ok = st_read_rows(r, rows, nrows, m, &err) == 0;
			if (ok && want)
				for (size_t i = 0; i < nrows; i++)
					FUZZ_ASSERT(memcmp((char *)m + i * row, (const char *)want + rows[i] * row,
					                   row) == 0);
		} else if (mode == 3) { /* a window of 1 + size % 5 rows at least */
			struct beside b = {{m, nrow, 0, row}, 0, 0, 0, NULL};
			st_window_work work = {.begin = beside_begin, .piece = beside_piece,
			                       .end = beside_end, .ctx = &b};
			if ((size >> 8) & 1) /* in the caller's buffers, three kept */
				work.alloc = kept_alloc, work.release = kept_release, work.keep = 1;
			if ((size >> 7) & 1) /* the windows' work beside the reading */
				ok = st_read_windows_beside(r, 1 + size % 5, &work, &err) == 0;
			else
				ok = st_read_windows(r, 1 + size % 5, take_window, &b.w, &err) == 0;
			FUZZ_ASSERT(kept_buffers == 0);
			if (ok)
				FUZZ_ASSERT(b.w.next == nrow);
			if (ok && want)
				FUZZ_ASSERT(memcmp(m, want, st_matrix_bytes_of(&h, bit)) == 0);
		} else {
			ok = st_skip_matrix(r, &err) == 0;
		}
		if (!ok)
			fuzz_check_message("reading a matrix", &err);
	}
	err.msg[0] = '\0';
	int closed = st_reader_close(r, &err) == 0;
	if (!closed)
		fuzz_check_message("st_reader_close", &err);
	/* Accepted whole, the stream is accepted piecewise (a skip checks less,
	 * so the converse need not hold). */
	if (all_ok && m)
		FUZZ_ASSERT(ok && closed);
	free(m);
	st_header_free(&h);
	close(fd);
	if (all_ok)
		st_matrices_free(&all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_stream(data, size);
	uint8_t *copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	repair_crcs(copy, size);
	if (memcmp(copy, data, size) != 0)
		read_stream(copy, size);
	free(copy);
	return 0;
}
