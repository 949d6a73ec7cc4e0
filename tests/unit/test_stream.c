/* test_stream.c - unit tests of the binary matrix stream's format
 * (lib/stream/stream_format.c, stream_write.c, stream_read.c): round trips, the
 * header, provenance and block methods, and rejection of truncated,
 * corrupted and hand-made bad streams and of a writer's misuse.  How
 * streams are read and written (threads, rows, pipes, spools, parts,
 * windows) is test_stream_io.c's. */
#include "stream_t.h"

/* ---- round trips ---- */

static void test_round_trips(void)
{
	static const struct { uint64_t n, pad; } sizes[] = {{0, 1}, {1, 1}, {1, 64}, {131, 1}, {131, 64}, {64, 64}, {128, 64}};
	static const uint32_t blocks[] = {16, 1000, ST_BLOCK_DEFAULT};
	static const int levels[] = {0, 1, 6};
	st_error err;

	for (uint32_t type = ST_INT32; type <= ST_FLOAT64; type++)
		for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
			for (size_t bl = 0; bl < 3; bl++)
				for (size_t lv = 0; lv < 3; lv++) {
					st_header h;
					struct mats x;
					size_t len;
					st_header_init(&h, sizes[s].n, sizes[s].pad, type);
					h.matrices = ST_WEIGHTS | ST_DIST | ST_PRED;
					h.block = blocks[bl];
					h.flags = ST_DIRECTED;
					make_all(&h, &x);
					err.msg[0] = 0;
					unsigned char *b = write_stream(&h, &x, levels[lv], 2, 0, &len, &err);
					int ok = b && read_equal(b, len, &h, &x, 2, &err);
					T_CHECKF(ok, "round trip %s n=%llu npad=%llu block=%u level=%d %s", tname(type),
					       (unsigned long long)h.n, (unsigned long long)h.npad, h.block,
					       levels[lv], ok ? "" : err.msg);
					free(b);
					free_all(&x);
				}

	/* Every combination of matrices, every type. */
	for (uint32_t type = ST_INT32; type <= ST_FLOAT64; type++)
		for (uint32_t mset = 0; mset < 8; mset++) {
			st_header h;
			struct mats x;
			size_t len;
			st_header_init(&h, 37, 8, type);
			h.matrices = mset;
			h.block = 256;
			make_all(&h, &x);
			unsigned char *b = write_stream(&h, &x, 1, 3, 0, &len, &err);
			int ok = b && read_equal(b, len, &h, &x, 3, &err);
			T_CHECKF(ok, "round trip %s matrices=%u %s", tname(type), mset, ok ? "" : err.msg);
			free(b);
			free_all(&x);
		}
}

/* Writing in pieces of any size gives the same bytes as whole matrices. */
static void test_chunked_writes(void)
{
	static const size_t chunks[] = {1, 4, 12, 100, 999, 4096, 65536};
	st_header h;
	struct mats x;
	st_error err;
	size_t len0, len;

	make_int32(&h, &x, 131, ST_WEIGHTS | ST_DIST, 1000);
	unsigned char *ref = write_stream(&h, &x, 1, 2, 0, &len0, &err);
	for (size_t c = 0; c < sizeof chunks / sizeof *chunks; c++) {
		unsigned char *b = write_stream(&h, &x, 1, 2, chunks[c], &len, &err);
		T_CHECKF(b && ref && len == len0 && !memcmp(b, ref, len),
		       "writes of %zu bytes at a time give the same stream", chunks[c]);
		free(b);
	}
	free(ref);
	free_all(&x);
}

/* ---- damaged streams ---- */

static int read_status(const unsigned char *b, size_t len, const st_header *h,
                       const struct mats *x, st_error *err)
{
	/* 1 identical, 0 rejected with a message, -1 accepted but different */
	err->msg[0] = 0;
	if (read_equal(b, len, h, x, 2, err))
		return 1;
	return err->msg[0] ? 0 : -1;
}

static void test_damage(void)
{
	st_header h;
	struct mats x;
	st_error err;
	size_t len;
	char *av[] = {"gengraph", "-n", "5"};

	st_header_init(&h, 5, 1, ST_INT32);
	h.matrices = ST_WEIGHTS | ST_DIST;
	h.block = 32;
	st_header_add_pg(&h, "gengraph", "0.1.0", 3, av, &err);
	make_all(&h, &x);
	unsigned char *b = write_stream(&h, &x, 1, 2, 0, &len, &err);
	unsigned char *c = malloc(len);

	/* Truncated at every byte. */
	int bad = 0, first_bad = -1, unnamed = 0;
	for (size_t cut = 0; cut < len; cut++) {
		int s = read_status(b, cut, &h, &x, &err);
		if (s != 0 || (!strstr(err.msg, "truncated") && !strstr(err.msg, "empty input"))) {
			bad++;
			if (first_bad < 0)
				first_bad = (int)cut;
		}
		if (strncmp(err.msg, "mem: ", 5))
			unnamed++;
	}
	T_CHECKF(bad == 0, "truncation at each of %zu offsets is reported as truncation (first bad: %d: %s)",
	       len, first_bad, first_bad >= 0 ? (read_status(b, (size_t)first_bad, &h, &x, &err), err.msg) : "");
	T_CHECKF(unnamed == 0, "truncation messages name the input");
	{
		read_status(b, len - 40, &h, &x, &err);
		T_CHECKF(strstr(err.msg, "of the distance matrix") != NULL,
		       "truncation message says where: %s", err.msg);
	}

	/* Every bit of every byte flipped: rejected, or (a bit that carries no
	 * information, e.g. deflate's final padding) the same matrices. */
	int wrong = 0, same = 0, rejected = 0;
	size_t first_wrong = 0;
	for (size_t i = 0; i < len; i++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(c, b, len);
			c[i] ^= (unsigned char)(1u << bit);
			int s = read_status(c, len, &h, &x, &err);
			if (s < 0 && !wrong++)
				first_wrong = i;
			same += s == 1;
			rejected += s == 0;
		}
	T_CHECKF(wrong == 0, "each of %zu single-bit flips is rejected or harmless (%d rejected, %d harmless, %d wrong, first at byte %zu)",
	       len * 8, rejected, same, wrong, first_wrong);

	/* Trailing matrices missing: cut right after the weight matrix. */

	/* Wrong magic, version, header CRC. */
	memcpy(c, b, len);
	c[1] = 'X';
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "mem: not an apsp matrix stream (bad magic"),
	       "wrong magic: %s", err.msg);
	memcpy(c, b, len);
	c[4] = '\n'; /* \r\n -> \n\n as a text-mode transfer would */
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "text-mode"),
	       "mangled magic: %s", err.msg);
	memcpy(c, b, len);
	c[8] = 4; /* (2 is a list of arcs' header, test_arcs.c; 3 a table's) */
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "unsupported stream version 4"),
	       "wrong version: %s", err.msg);
	memcpy(c, b, len);
	c[20] ^= 1;
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "CRC mismatch in the stream header"),
	       "header CRC: %s", err.msg);
	{
		const char *mm = "%%MatrixMarket matrix coordinate real general\n3 3 0\n" "......................";
		T_CHECKF(read_status((const unsigned char *)mm, strlen(mm), &h, &x, &err) == 0
		       && strstr(err.msg, "mtx2bin"), "Matrix Market text: %s", err.msg);
		T_CHECKF(read_status(b, 0, &h, &x, &err) == 0 && strstr(err.msg, "empty input"),
		       "empty input: %s", err.msg);
	}

	/* A block CRC: flip a raw byte in a stored (level 0) stream. */
	{
		size_t l0;
		unsigned char *s0 = write_stream(&h, &x, 0, 1, 0, &l0, &err);
		size_t hl = s0[12] | s0[13] << 8 | s0[14] << 16 | (size_t)s0[15] << 24;
		s0[hl + 16 + 32 + 16 + 3] ^= 0x10; /* block 1 of the weight matrix */
		T_CHECKF(read_status(s0, l0, &h, &x, &err) == 0
		       && strstr(err.msg, "mem: CRC mismatch in block 1 of the weight matrix"),
		       "block CRC: %s", err.msg);
		free(s0);
	}

	/* Data after the last matrix's marker but before the end marker. */
	{
		st_header h1 = h;
		h1.matrices = ST_WEIGHTS;
		h1.provenance = NULL;
		size_t l1, l2;
		unsigned char *s1 = write_stream(&h1, &x, 1, 1, 0, &l1, &err);
		unsigned char *s2 = malloc(l1 + 16);
		/* a stream announcing one matrix with two matrices' markers */
		memcpy(s2, s1, l1 - 16);
		memcpy(s2 + l1 - 16, s1 + l1 - 32, 16);
		memcpy(s2 + l1, s1 + l1 - 16, 16);
		l2 = l1 + 16;
		int fd = mem_fd(s2, l2);
		st_matrices m;
		T_CHECKF(st_read_all(fd, "-", 1, &m, &err) < 0 && strstr(err.msg, "standard input: bad end-of-stream marker"),
		       "extra marker before the end: %s", err.msg);
		close(fd);
		free(s1);
		free(s2);
	}
	free(c);
	free(b);
	free_all(&x);
	st_header_free(&h);
}

/* A valid header followed by random bytes: refused with a message, never a
 * crash (run under make SANITIZE=1 check to see it). */
static void test_garbage(void)
{
	st_header h;
	struct mats x;
	st_error err;
	size_t len;

	make_int32(&h, &x, 20, ST_DIST | ST_PRED, 64);
	unsigned char *b = write_stream(&h, &x, 1, 1, 0, &len, &err);
	size_t hl = b[12] | b[13] << 8;
	unsigned char *c = malloc(hl + 8192);
	int bad = 0;
	for (int k = 0; k < 300; k++) {
		size_t n = t_rnd() % 8192;
		memcpy(c, b, hl);
		for (size_t i = 0; i < n; i++)
			c[hl + i] = (unsigned char)t_rnd();
		if (k % 3 == 0 && n >= 16) { /* a plausible block header */
			c[hl] = 64, c[hl + 1] = c[hl + 2] = c[hl + 3] = 0;
			c[hl + 4] = (unsigned char)(t_rnd() % 64), c[hl + 5] = c[hl + 6] = c[hl + 7] = 0;
			c[hl + 12] = (unsigned char)(t_rnd() % 3), c[hl + 13] = c[hl + 14] = c[hl + 15] = 0;
		}
		if (read_status(c, hl + n, &h, &x, &err) != 0 || strncmp(err.msg, "mem: ", 5))
			bad++;
	}
	T_CHECKF(bad == 0, "300 streams of random bytes after a valid header are refused with a message (%d not)", bad);
	free(c);
	free(b);
	free_all(&x);
}

/* Headers with a valid CRC but impossible fields are refused by name. */
static void put32(unsigned char *p, uint32_t v) { p[0] = v; p[1] = v >> 8; p[2] = v >> 16; p[3] = v >> 24; }
static void put64(unsigned char *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }

static void test_bad_headers(void)
{
	st_header h;
	struct mats x;
	st_error err;
	size_t len;

	make_int32(&h, &x, 4, ST_DIST, 16);
	unsigned char *b = write_stream(&h, &x, 0, 1, 0, &len, &err);
	static const struct { int off, width; uint64_t v; const char *why; } cases[] = {
		{24, 8, 3, "smaller than n"},
		{24, 8, (uint64_t)1 << 31, "limit"},
		{16, 8, 0, "n is 0"},
		{32, 4, 7, "element type"},
		{36, 4, 128, "matrix bits"},
		{36, 4, 64, "a list of targets without sources or distances"},
		{36, 4, 64 | 32 | 2, "version 1 with a list of targets"},
		{36, 4, 64 | 32 | 2 | 1, "a table (a list of targets) with weights"},
		{36, 4, 32, "a list of sources without distances"},
		{36, 4, 34, "version 1 with a list of arcs or sources"},
		{36, 4, 16, "a vertex order without a list of arcs"},
		{36, 4, 9, "a list of arcs with matrices"},
		{40, 4, 64, "flag bits"},
		{44, 4, 6, "block size"},
		{44, 4, 0, "block size"},
		{44, 4, (128u << 20), "block size"},
		{48, 4, 12345, "INF convention"},
		{52, 8, 4, "negative-cycle vertex"},
		{52, 8, (uint64_t)-2, "negative-cycle vertex"},
	};
	unsigned char *c = malloc(len);
	for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
		memcpy(c, b, len);
		if (cases[k].width == 8)
			put64(c + cases[k].off, cases[k].v);
		else
			put32(c + cases[k].off, (uint32_t)cases[k].v);
		put32(c + 64, (uint32_t)crc32(0, c, 64)); /* no provenance: CRC at 64 */
		int s = read_status(c, len, &h, &x, &err);
		T_CHECKF(s == 0 && strstr(err.msg, "bad stream header") && strstr(err.msg, cases[k].why),
		       "header field at %d = %llu refused: %s", cases[k].off,
		       (unsigned long long)cases[k].v, err.msg);
	}
	/* provenance length and header length */
	memcpy(c, b, len);
	put32(c + 60, 2u << 20);
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "provenance"), "huge provenance refused: %s", err.msg);
	memcpy(c, b, len);
	put32(c + 12, 1000);
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "header length"), "header length refused: %s", err.msg);

	/* st_read_all refuses a matrix larger than memory before allocating. */
	memcpy(c, b, len);
	put64(c + 16, 0x7fffffff);
	put64(c + 24, 0x7fffffff);
	put32(c + 64, (uint32_t)crc32(0, c, 64));
	T_CHECKF(read_status(c, len, &h, &x, &err) == 0 && strstr(err.msg, "GiB of memory, this machine has")
	         && strstr(err.msg, "at most n = "),
	       "absurd size refused before allocating: %s", err.msg);
	/* ... and a reader that skips or picks rows of such a matrix stops at
	 * the early end at once, not after 10^18 empty turns. */
	for (int mode = 0; mode < 2; mode++) {
		int fd = mem_fd(c, len);
		st_header g;
		uint64_t row = 5;
		unsigned char *dst = malloc(0x7fffffffull * 4);
		st_reader *r = st_reader_open(fd, "mem", &g, 4, &err);
		int rc = !r ? -1 : mode ? st_read_rows(r, &row, 1, dst, &err) : st_skip_matrix(r, &err);
		T_CHECKF(rc < 0 && strstr(err.msg, "ends after 4 of its"), "huge %s of a short stream stops: %s",
		       mode ? "row read" : "skip", err.msg);
		st_reader_free(r);
		st_header_free(&g);
		free(dst);
		close(fd);
	}
	free(c);
	free(b);
	free_all(&x);
}

/* ---- writer misuse and write errors ---- */

static void test_writer_errors(void)
{
	st_header h;
	st_error err;
	int32_t m[16] = {0};

	st_header_init(&h, 4, 1, ST_INT32);
	h.matrices = ST_DIST | ST_PRED;
	h.block = 16;
	int fd = memfd_create("w", 0);

	st_header bad = h;
	bad.block = 10;
	T_CHECKF(!st_writer_open(fd, &bad, 1, 1, &err) && strstr(err.msg, "block size"), "writer refuses a bad header: %s", err.msg);
	T_CHECKF(!st_writer_open(fd, &h, 10, 1, &err) && strstr(err.msg, "level"), "writer refuses level 10: %s", err.msg);

	st_writer *w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(w && st_write(w, m, 65, &err) < 0 && strstr(err.msg, "holds only 64"), "too many bytes refused: %s", err.msg);
	st_writer_abort(w);
	w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(w && st_write(w, m, 60, &err) == 0 && st_write_end_matrix(w, &err) < 0
	       && strstr(err.msg, "ended after 60 of its 64 bytes"), "short matrix refused: %s", err.msg);
	st_writer_abort(w);
	w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(w && st_write_matrix(w, m, &err) == 0 && st_writer_close(w, &err) < 0
	       && strstr(err.msg, "1 of its 2 matrices"), "missing matrix refused at close: %s", err.msg);
	w = st_writer_open(fd, &h, 1, 1, &err);
	T_CHECKF(w && st_write_matrix(w, m, &err) == 0 && st_write_matrix(w, m, &err) == 0
	       && st_write(w, m, 4, &err) < 0 && strstr(err.msg, "more data than"), "extra matrix refused: %s", err.msg);
	st_writer_abort(w);
	close(fd);

	/* A full disk. */
	int full = open("/dev/full", 1);
	if (full >= 0) {
		int32_t *big = calloc(300 * 300, 4);
		st_header hb;
		st_header_init(&hb, 300, 1, ST_INT32);
		hb.matrices = ST_DIST;
		int rc = st_write_all(full, &hb, NULL, big, NULL, 1, 2, &err);
		T_CHECKF(rc < 0 && strstr(err.msg, "write error: No space left on device"), "full disk: %s", err.msg);
		free(big);
		close(full);
	} else {
		printf("SKIP full disk: no /dev/full\n");
	}

	/* A closed pipe: EPIPE comes back as an error (SIGPIPE ignored here). */
	int p[2];
	if (pipe(p) == 0) {
		signal(SIGPIPE, SIG_IGN);
		close(p[0]);
		st_header hb;
		st_header_init(&hb, 64, 1, ST_INT32);
		hb.matrices = ST_DIST;
		int32_t *big = calloc(64 * 64, 4);
		int rc = st_write_all(p[1], &hb, NULL, big, NULL, 1, 1, &err);
		T_CHECKF(rc < 0 && strstr(err.msg, "Broken pipe"), "closed pipe: %s", err.msg);
		close(p[1]);
		free(big);
	}
}

/* ---- provenance ---- */

static void test_provenance(void)
{
	st_header h;
	st_error err;
	struct mats x;
	size_t len;
	char *a1[] = {"gengraph", "-n", "10", "-d", "15"};
	char *a2[] = {"apsp-cpu", "with\ttab", "new\nline", "bell\a"};

	st_header_init(&h, 10, 1, ST_INT32);
	h.matrices = ST_DIST;
	T_CHECKF(st_header_add_pg(&h, "gengraph", "0.1.0", 5, a1, &err) == 0
	       && st_header_add_pg(&h, "apsp-cpu", "0.1.0", 4, a2, &err) == 0, "add_pg");
	const char *want = "@PG\tID:gengraph\tVN:0.1.0\tCL:gengraph -n 10 -d 15\n"
	                   "@PG\tID:apsp-cpu\tVN:0.1.0\tCL:apsp-cpu with\\ttab new\\nline bell\\x07\n";
	T_CHECKF(h.provenance && !strcmp(h.provenance, want), "provenance lines, tabs and control characters escaped");
	make_all(&h, &x);
	unsigned char *b = write_stream(&h, &x, 1, 1, 0, &len, &err);
	T_CHECKF(b && read_equal(b, len, &h, &x, 1, &err), "provenance survives a round trip");
	free(b);
	free_all(&x);

	char *big = malloc(600000);
	memset(big, 'a', 599999);
	big[599999] = 0;
	char *a3[] = {big};
	int rc1 = st_header_add_pg(&h, "x", "1", 1, a3, &err);
	int rc2 = st_header_add_pg(&h, "x", "1", 1, a3, &err);
	T_CHECKF(rc1 == 0 && rc2 < 0 && strstr(err.msg, "provenance would exceed"), "provenance is bounded: %s", err.msg);
	free(big);
	st_header_free(&h);
	T_CHECKF(h.provenance == NULL, "header_free clears provenance");
}

/* The writer picks the byte layout per block: plain for a weight matrix
 * that is mostly INF, shuffled for distances (small numbers). */
static void test_methods(void)
{
	st_header h;
	st_error err;
	size_t len;

	st_header_init(&h, 512, 1, ST_INT32);
	h.matrices = ST_WEIGHTS | ST_DIST;
	h.block = 65536;
	uint64_t nn = h.npad * h.npad;
	int32_t *wt = malloc(nn * 4), *d = malloc(nn * 4);
	for (uint64_t k = 0; k < nn; k++) {
		uint32_t r = t_rnd();
		wt[k] = k % (h.npad + 1) == 0 ? 0 : r % 100 < 15 ? (int32_t)(1 + r / 100 % 100) : ST_INF_I32;
		d[k] = k % (h.npad + 1) == 0 ? 0 : (int32_t)(3 + r % 5);
	}
	struct mats x = {{wt, d, NULL}};
	unsigned char *b = write_stream(&h, &x, 1, 2, 0, &len, &err);
	size_t hl = b[12] | b[13] << 8, p = hl, nblk = nn * 4 / h.block;
	int plain = 0, shuffled = 0;
	for (size_t k = 0; k < 2 * nblk; k++) {
		uint32_t stored = b[p + 4] | b[p + 5] << 8 | b[p + 6] << 16 | (uint32_t)b[p + 7] << 24;
		uint32_t method = b[p + 12];
		if (k < nblk)
			plain += method == 1;
		else
			shuffled += method == 2;
		p += 16 + stored + (k == nblk - 1 ? 16 : 0); /* end-of-matrix marker */
	}
	T_CHECKF(plain == (int)nblk && shuffled == (int)nblk,
	       "layout per block: %d of %zu weight blocks plain, %d of %zu distance blocks shuffled",
	       plain, nblk, shuffled, nblk);
	T_CHECKF(read_equal(b, len, &h, &x, 2, &err), "plain and shuffled blocks read back");
	free(b);
	free(wt);
	free(d);
}

static void test_header_basics(void)
{
	st_header h;

	st_header_init(&h, 131, 64, ST_INT32);
	T_CHECKF(h.npad == 192 && h.block == ST_BLOCK_DEFAULT && h.inf_i32 == ST_INF_I32
	       && h.cycle_vertex == -1 && !h.provenance, "header_init pads 131 to 192");
	h.matrices = ST_DIST | ST_PRED;
	T_CHECKF(st_matrix_count(&h) == 2 && st_matrix_bytes(&h) == 192ull * 192 * 4, "matrix count and bytes");
	st_header_init(&h, 0, 64, ST_FLOAT32);
	T_CHECKF(h.npad == 0, "header_init of n = 0");
	st_header_init(&h, 128, 64, ST_FLOAT32);
	T_CHECKF(h.npad == 128, "header_init of a multiple of the padding");
}

/* st_crc32 is zlib's crc32, whichever engine computes it. */
static void test_crc32(void)
{
	const size_t len = 3u << 20;
	unsigned char *b = malloc(len);
	for (size_t i = 0; b && i < len; i++)
		b[i] = (unsigned char)t_rnd();
	int ok = b && st_crc32(b, 0) == 0;
	for (size_t k = 1; ok && k <= len; k = k * 7 + 3)
		ok = st_crc32(b + 1, k - 1) == crc32(crc32(0L, Z_NULL, 0), b + 1, (uInt)(k - 1));
	T_CHECKF(ok, "st_crc32 (%s): zlib's crc32 of the same bytes", st_engine());
	free(b);
}

int main(void)
{
	t_rng = 88172645463325252ull;
	test_header_basics();
	test_round_trips();
	test_chunked_writes();
	test_methods();
	test_provenance();
	test_damage();
	test_garbage();
	test_bad_headers();
	test_writer_errors();
	test_crc32();
	return T_DONE();
}
