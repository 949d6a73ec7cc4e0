/* test_stream_windows.c - unit tests of a matrix read a window of rows at a
 * time with work beside (lib/stream/stream_windows.c, st_read_windows_beside):
 * every window in order, each piece run once, the reading stopped by a
 * window's end or by a damaged block (every window begun also ended), and
 * windows in the work's own buffers, kept or not. */
#include "stream_t.h"

/* st_read_windows_beside(): every window handed over in order, each
 * piece run once, while the next window is read. */
struct beside {
	const unsigned char *ref; /* the matrix */
	uint64_t rowbytes, next, count, pieces, stop_at;
	const unsigned char *data;
	int ran[64], bad, windows;
};

static uint64_t beside_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct beside *b = ctx;
	b->bad |= first != b->next || count == 0
	          || memcmp(data, b->ref + first * b->rowbytes, count * b->rowbytes) != 0;
	b->count = count, b->data = data;
	b->pieces = count < 64 ? count : 64;
	memset(b->ran, 0, sizeof b->ran);
	return b->pieces;
}

static void beside_piece(void *ctx, uint64_t i)
{
	struct beside *b = ctx;
	__atomic_fetch_add(&b->ran[i], 1, __ATOMIC_RELAXED);
}

static int beside_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct beside *b = ctx;
	for (uint64_t i = 0; i < b->pieces; i++)
		b->bad |= b->ran[i] != 1;
	/* the window still in place after its pieces */
	b->bad |= data != b->data || memcmp(data, b->ref + first * b->rowbytes, count * b->rowbytes);
	b->next = first + count;
	b->windows++;
	return b->stop_at && b->next >= b->stop_at;
}

/* The windows' tests' stream: n = 300 in blocks of 4096 bytes (rows of 1200
 * bytes span blocks), of the given matrices; its bytes, len set. */
static unsigned char *windows_stream(uint32_t matrices, struct mats *x, size_t *len)
{
	st_header h;
	st_error err;
	st_header_init(&h, 300, 1, ST_INT32);
	h.matrices = matrices;
	h.block = 4096;
	make_all(&h, x);
	return write_stream(&h, x, 1, 2, 0, len, &err);
}

/* A reader of a windows' test done with: freed, its input closed. */
static void reader_done(st_reader *r, st_header *hr, int in)
{
	if (r) {
		st_reader_free(r);
		st_header_free(hr);
	}
	close(in);
}

static const uint64_t window_rows[] = {1, 7, 64, 1000};

static void test_windows_beside(void)
{
	struct mats x;
	size_t len = 0;
	st_error err;
	unsigned char *ref = windows_stream(ST_DIST | ST_PRED, &x, &len);
	for (int threads = 1; threads <= 3; threads++) {
		for (size_t k = 0; k < sizeof window_rows / sizeof *window_rows; k++) {
			int in = mem_fd(ref, len);
			st_header hr;
			st_reader *r = st_reader_open(in, "ref", &hr, threads, &err);
			struct beside b = {x.m[1], 300 * 4, 0, 0, 0, 0, NULL, {0}, 0, 0};
			const st_window_work w = {.begin = beside_begin, .piece = beside_piece,
			                          .end = beside_end, .ctx = &b};
			int ok = r && st_next_matrix(r) == ST_DIST
			         && st_read_windows_beside(r, window_rows[k], &w, &err) == 0;
			/* the next matrix read on as usual */
			unsigned char *pred = malloc(300 * 300 * 4);
			int next = ok && st_next_matrix(r) == ST_PRED && st_read_matrix(r, pred, &err) == 0
			           && !memcmp(pred, x.m[2], 300 * 300 * 4);
			T_CHECKF(ok && !b.bad && b.next == 300 && next,
			         "windows beside reading, %d threads, windows of %llu rows: %d windows %s",
			         threads, (unsigned long long)window_rows[k], b.windows, ok ? "" : err.msg);
			free(pred);
			if (r) {
				st_reader_close(r, &err);
				st_header_free(&hr);
			}
			close(in);
		}
	}
	/* a window's end that says stop */
	int in = mem_fd(ref, len);
	st_header hr;
	st_reader *r = st_reader_open(in, "ref", &hr, 2, &err);
	struct beside b = {x.m[1], 300 * 4, 0, 0, 0, 100, NULL, {0}, 0, 0};
	const st_window_work w = {.begin = beside_begin, .piece = beside_piece, .end = beside_end,
	                          .ctx = &b};
	T_CHECKF(r && st_next_matrix(r) == ST_DIST && st_read_windows_beside(r, 7, &w, &err) < 0
	         && strstr(err.msg, "reading stopped at row") && b.next >= 100 && b.next < 300,
	         "windows beside reading: stopped by a window's end: %s", err.msg);
	reader_done(r, &hr, in);
	free(ref);
	free_all(&x);
}

/* Windows kept (st_window_work.keep) in the work's own buffers: the window
 * before is still in place at each end, every buffer given back. */
struct kept {
	const unsigned char *ref;
	size_t rowbytes;
	uint64_t prev_first, prev_count, next, stop_at;
	const void *prev;
	int allocs, releases, windows, bad, begins;
	void *bufs[4];
	uint64_t pieces; /* each window's (none to run) */
};

static uint64_t kept_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct kept *k = ctx;
	(void)first, (void)count, (void)data;
	k->begins++;
	return k->pieces;
}

static void kept_piece(void *ctx, uint64_t i) { (void)ctx, (void)i; }

static int kept_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct kept *k = ctx;
	const size_t rb = k->rowbytes;
	k->bad |= first != k->next || memcmp(data, k->ref + first * rb, count * rb) != 0;
	if (k->prev) /* (the window before: not yet filled again) */
		k->bad |= data == k->prev
		          || memcmp(k->prev, k->ref + k->prev_first * rb, k->prev_count * rb) != 0;
	int ours = 0;
	for (int i = 0; i < k->allocs && i < 4; i++)
		ours |= data == k->bufs[i];
	k->bad |= !ours;
	k->prev = data, k->prev_first = first, k->prev_count = count;
	k->next = first + count;
	k->windows++;
	return k->stop_at && k->next >= k->stop_at;
}

static void *kept_alloc(void *ctx, size_t bytes)
{
	struct kept *k = ctx;
	void *p = malloc(bytes);
	if (k->allocs < 4)
		k->bufs[k->allocs] = p;
	k->allocs++;
	return p;
}

static void kept_release(void *ctx, void *p, size_t bytes)
{
	struct kept *k = ctx;
	(void)bytes;
	k->releases++;
	free(p);
}

static void test_windows_kept(void)
{
	struct mats x;
	size_t len = 0;
	st_error err;
	unsigned char *ref = windows_stream(ST_DIST, &x, &len);
	for (size_t j = 0; j < 2 * sizeof window_rows / sizeof *window_rows; j++) {
		const uint64_t want = window_rows[j % 4], stop = j >= 4 ? 100 : 0;
		int in = mem_fd(ref, len);
		st_header hr;
		st_reader *r = st_reader_open(in, "ref", &hr, 2, &err);
		struct kept k = {.ref = x.m[1], .rowbytes = 300 * 4, .stop_at = stop};
		const st_window_work w = {kept_begin, kept_piece, kept_end, &k,
		                          kept_alloc, kept_release, 1};
		const int rc = r && st_next_matrix(r) == ST_DIST ? st_read_windows_beside(r, want, &w, &err)
		                                                : -2;
		const int done = stop ? rc == -1 && k.next >= stop && strstr(err.msg, "reading stopped")
		                      : rc == 0 && k.next == 300;
		T_CHECKF(done && !k.bad && k.allocs == 3 && k.releases == 3,
		         "windows kept in the work's buffers, windows of %llu rows%s: %d windows, %d "
		         "buffers, %d given back %s", (unsigned long long)want, stop ? ", stopped" : "",
		         k.windows, k.allocs, k.releases, rc == 0 ? "" : err.msg);
		reader_done(r, &hr, in);
	}
	free(ref);
	free_all(&x);
}

/* A damaged or cut stream read in windows beside: the block said, and every
 * window begun also ended (what its begin took given back); buffers of the
 * work's own (two, three with keep) all given back. */
static void test_windows_damaged(void)
{
	struct mats x;
	size_t len = 0;
	st_error err;
	unsigned char *ref = windows_stream(ST_DIST, &x, &len);
	unsigned char *bad = malloc(len);
	for (int threads = 1; threads <= 3; threads++) {
		for (int kind = 0; kind < 8; kind++) {
			const int keep = kind >= 4;
			/* cut at a third or two thirds, or a byte changed there */
			const size_t at = len * (size_t)(1 + kind % 2) / 3;
			memcpy(bad, ref, len);
			const int changed = kind % 4 >= 2;
			if (changed)
				bad[at] ^= 0x5a;
			int in = mem_fd(bad, changed ? len : at);
			st_header hr;
			st_reader *r = st_reader_open(in, "bad", &hr, threads, &err);
			struct kept c = {.ref = x.m[1], .rowbytes = 300 * 4, .pieces = 3};
			const st_window_work w = {kept_begin, kept_piece, kept_end, &c,
			                          kept_alloc, kept_release, keep};
			const int rc = r && st_next_matrix(r) == ST_DIST ? st_read_windows_beside(r, 7, &w, &err)
			                                                : -2;
			T_CHECKF(rc == -1 && strstr(err.msg, "block") && c.begins == c.windows
			         && c.allocs == 2 + keep && c.releases == 2 + keep && (!keep || !c.bad),
			         "windows beside%s, %d threads, %s at byte %zu of %zu: %s (%d begun, %d "
			         "ended, %d buffers, %d given back)", keep ? ", kept" : "", threads,
			         changed ? "a byte changed" : "cut", at, len,
			         rc == -1 ? err.msg : "not refused", c.begins, c.windows, c.allocs,
			         c.releases);
			reader_done(r, &hr, in);
		}
	}
	free(bad);
	free(ref);
	free_all(&x);
}

int main(void)
{
	t_rng = 88172645463325252ull;
	test_windows_beside();
	test_windows_kept();
	test_windows_damaged();
	return T_DONE();
}
