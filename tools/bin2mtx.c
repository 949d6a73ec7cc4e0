/* bin2mtx - export one matrix of a binary matrix stream as text (Matrix
 * Market coordinate, or dense) or as a NumPy .npy file.
 *
 * The whole stream is read and checked (end marker included) before the
 * first byte goes out, so a damaged stream yields an error and no output.
 * Rows are formatted in parallel into per-row buffers and written in order;
 * numbers are formatted by hand, floats as printf's %.9g would, so they read
 * back to the same float32. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <omp.h>

#include "common.h"
#include "graphio.h"
#include "tool.h"

enum format { FMT_MTX, FMT_DENSE, FMT_NPY, FMT_JSON };

static void usage(FILE *f)
{
	fputs("Usage: bin2mtx [options] [FILE]\n"
	      "Export one matrix of a binary matrix stream (FILE, or stdin when none or -)\n"
	      "as text.  Default: Matrix Market coordinate, finite entries only, 1-based.\n"
	      "\n"
	      "      --dense     n lines of n values, 'inf' for unreachable, -1 for no predecessor\n"
	      "      --npy       NumPy .npy ('<i4' or '<f4', shape (n, n))\n"
	      "      --json      one JSON object: the rows as arrays, null for unreachable,\n"
	      "                  and the sources (and a table's targets) where listed\n"
	      "      --weights   export the edge weights\n"
	      "      --dist      export the distances\n"
	      "      --pred      export the predecessors\n"
	      "                  (default: distances if present, else weights)\n"
	      "\n", f);
	tool_common_help(f, 0);
	fputs("  -f, --force         write --npy data even to a terminal\n"
	      "\nExit status: 0 success, 2 trouble (usage, input, output),\n"
	      "3 the stream records a negative cycle.\n", f);
}

/* ---- number formatting: each returns the bytes written ---- */

static inline size_t put_u64(char *p, uint64_t v)
{
	char tmp[24];
	size_t k = 0;
	do {
		tmp[k++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < k; i++)
		p[i] = tmp[k - 1 - i];
	return k;
}

static inline size_t put_i64(char *p, int64_t v)
{
	if (v < 0) {
		*p = '-';
		return 1 + put_u64(p + 1, (uint64_t)0 - (uint64_t)v);
	}
	return put_u64(p, (uint64_t)v);
}

/* Powers of ten 1e-64..1e64, correctly rounded (by strtod). */
static double pow10_tab[129];
#define POW10(k) pow10_tab[(k) + 64]

static void init_pow10(void)
{
	for (int k = -64; k <= 64; k++) {
		char b[16];
		snprintf(b, sizeof b, "1e%d", k);
		POW10(k) = strtod(b, NULL);
	}
}

/* What printf's "%.9g" writes, about twenty times faster: nine significant
 * digits, enough to read back the same float32.  The float is exact in a
 * double, so scaling it by a power of ten errs by far less than the ninth
 * digit; only near a rounding tie is that not enough, and printf decides. */
static size_t put_g9(char *p, float f)
{
	char *start = p, d[24];
	double a = fabs((double)f);
	if (signbit(f))
		*p++ = '-';
	if (a == 0) {
		*p++ = '0';
		return (size_t)(p - start);
	}
	int e = (int)floor(log10(a));
	uint64_t m;
	for (;;) {
		double s = 8 - e >= 0 ? a * POW10(8 - e) : a / POW10(e - 8);
		if (fabs(s - floor(s) - 0.5) < 1e-5)
			return (size_t)snprintf(start, 32, "%.9g", f);
		m = (uint64_t)nearbyint(s);
		if (m >= 1000000000u)
			e++;
		else if (m < 100000000u)
			e--;
		else
			break;
	}
	put_u64(d, m);
	int nd = 9;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	if (e < -4 || e >= 9) { /* d.ddde+XX */
		*p++ = d[0];
		if (nd > 1) {
			*p++ = '.';
			memcpy(p, d + 1, (size_t)nd - 1);
			p += nd - 1;
		}
		*p++ = 'e';
		*p++ = e < 0 ? '-' : '+';
		if (abs(e) < 10)
			*p++ = '0';
		p += put_u64(p, (uint64_t)abs(e));
	} else if (e >= 0) { /* ddd.ddd */
		for (int i = 0; i <= e; i++)
			*p++ = i < nd ? d[i] : '0';
		if (nd > e + 1) {
			*p++ = '.';
			memcpy(p, d + e + 1, (size_t)(nd - e - 1));
			p += nd - e - 1;
		}
	} else { /* 0.000ddd */
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -e - 1; i++)
			*p++ = '0';
		memcpy(p, d, (size_t)nd);
		p += nd;
	}
	return (size_t)(p - start);
}

/* float64: whole numbers as integers, others in the 17 digits that read
 * back the same double. */
static size_t put_double(char *p, double v)
{
	if (isinf(v) || isnan(v)) {
		const char *t = isnan(v) ? "nan" : v < 0 ? "-inf" : "inf";
		memcpy(p, t, strlen(t));
		return strlen(t);
	}
	if (v == trunc(v) && fabs(v) < 9007199254740992.0 && !(v == 0 && signbit(v)))
		return put_i64(p, (int64_t)v);
	return (size_t)snprintf(p, 32, "%.17g", v);
}

static inline size_t put_float(char *p, float v)
{
	if (isinf(v)) {
		memcpy(p, v < 0 ? "-inf" : "inf", v < 0 ? 4 : 3);
		return v < 0 ? 4 : 3;
	}
	if (isnan(v)) {
		memcpy(p, "nan", 3);
		return 3;
	}
	/* Whole numbers (the common case for generated weights) are exact as integers. */
	if (v == truncf(v) && fabsf(v) < 16777216.0f && !(v == 0 && signbit(v)))
		return put_i64(p, (int64_t)v);
	return put_g9(p, v);
}

/* Longest text of one entry: "row col value\n" with 64-bit row/col and a float. */
#define ENTRY_MAX 64

struct job {
	const st_header *h;
	uint64_t rowbytes;   /* of the matrix m */
	const void *m;       /* npad x npad, stride npad (a result of some rows: rows x npad) */
	const uint32_t *src; /* a result of some rows: row i is vertex src[i]'s; else NULL */
	uint64_t rows;       /* m's rows: n, or the sources' count */
	const uint32_t *dst; /* a table: column j is vertex dst[j]'s; else NULL */
	uint64_t cols;       /* m's columns: n, or the targets' count */
	uint32_t which;      /* ST_WEIGHTS, ST_DIST or ST_PRED */
	enum format fmt;
};

static int entry_present(const struct job *jb, uint64_t i, uint64_t j)
{
	const char *row = (const char *)jb->m + i * jb->rowbytes;
	if (jb->which == ST_PRED)
		return ((const int32_t *)row)[j] >= 0;
	if (jb->h->type == ST_FLOAT32)
		return isfinite(((const float *)row)[j]);
	if (jb->h->type == ST_FLOAT64)
		return isfinite(((const double *)row)[j]);
	int32_t v = ((const int32_t *)row)[j];
	return v < ST_INF_I32 && v > -ST_INF_I32;
}

/* Whether the weights are written as a symmetric Matrix Market file: an
 * undirected graph's whole matrix (its lower triangle, so that a reader
 * takes it as undirected again, as mtx2bin does). */
static int mtx_symmetric(const struct job *jb)
{
	return jb->which == ST_WEIGHTS && !(jb->h->flags & ST_DIRECTED) && !jb->src && !jb->dst;
}

/* Entry (i, j) as a Matrix Market entry: present, and for the weights no
 * diagonal 0 (no edge: a reader such as networkx would take a loop) nor
 * the upper triangle of a symmetric file. */
static int mtx_entry(const struct job *jb, uint64_t i, uint64_t j)
{
	if (!entry_present(jb, i, j))
		return 0;
	if (jb->which != ST_WEIGHTS)
		return 1;
	if (j > i && mtx_symmetric(jb))
		return 0;
	if (i != j)
		return 1;
	const char *row = (const char *)jb->m + i * jb->rowbytes;
	return jb->h->type == ST_INT32 ? ((const int32_t *)row)[j] != 0
	     : jb->h->type == ST_FLOAT32 ? ((const float *)row)[j] != 0
	                                : ((const double *)row)[j] != 0;
}

/* Text of row i into out; returns its length (at most n * ENTRY_MAX). */
static size_t format_row(const struct job *jb, uint64_t i, char *out)
{
	uint64_t n = jb->cols;
	const char *row = (const char *)jb->m + i * jb->rowbytes;
	const int32_t *ri = (const int32_t *)row;
	const float *rf = (const float *)row;
	const double *rd = (const double *)row;
	int is_float = jb->h->type == ST_FLOAT32 && jb->which != ST_PRED;
	int is_double = jb->h->type == ST_FLOAT64 && jb->which != ST_PRED;
	char *p = out;

	if (jb->fmt == FMT_JSON) { /* ",[v,v,...]\n", no comma before the first row */
		if (i)
			*p++ = ',';
		*p++ = '[';
		for (uint64_t j = 0; j < n; j++) {
			if (j)
				*p++ = ',';
			if (jb->which != ST_PRED && !entry_present(jb, i, j))
				memcpy(p, "null", 4), p += 4;
			else if (is_double)
				p += put_double(p, rd[j]);
			else if (is_float)
				p += put_float(p, rf[j]);
			else
				p += put_i64(p, ri[j]);
		}
		*p++ = ']';
		*p++ = '\n';
		return (size_t)(p - out);
	}
	if (jb->fmt == FMT_DENSE) {
		for (uint64_t j = 0; j < n; j++) {
			if (j)
				*p++ = ' ';
			if (is_double)
				p += put_double(p, rd[j]);
			else if (is_float)
				p += put_float(p, rf[j]);
			else if (jb->which != ST_PRED && ri[j] >= ST_INF_I32)
				memcpy(p, "inf", 3), p += 3;
			else if (jb->which != ST_PRED && ri[j] <= -ST_INF_I32)
				memcpy(p, "-inf", 4), p += 4;
			else
				p += put_i64(p, ri[j]);
		}
		*p++ = '\n';
		return (size_t)(p - out);
	}
	/* Matrix Market: "i j value", 1-based; a predecessor is a vertex number,
	 * so it is 1-based too. */
	const uint64_t v = jb->src ? jb->src[i] : i; /* the row's vertex */
	for (uint64_t j = 0; j < n; j++) {
		if (!mtx_entry(jb, i, j))
			continue;
		p += put_u64(p, v + 1);
		*p++ = ' ';
		p += put_u64(p, (jb->dst ? jb->dst[j] : j) + 1);
		*p++ = ' ';
		if (is_double)
			p += put_double(p, rd[j]);
		else if (is_float)
			p += put_float(p, rf[j]);
		else
			p += put_i64(p, (int64_t)ri[j] + (jb->which == ST_PRED));
		*p++ = '\n';
	}
	return (size_t)(p - out);
}

static void write_mtx_header(int fd, const struct job *jb, uint64_t nnz)
{
	const uint64_t n = jb->h->n;
	const char *what = jb->which == ST_WEIGHTS ? "weights"
	                 : jb->which == ST_DIST ? "distances" : "predecessors (1-based)";
	int is_real = jb->h->type != ST_INT32 && jb->which != ST_PRED;
	char line[256];
	char some[96] = "";
	if (jb->dst)
		snprintf(some, sizeof some, ", a table of %llu sources by %llu targets",
		         (unsigned long long)jb->rows, (unsigned long long)jb->cols);
	else if (jb->src)
		snprintf(some, sizeof some, ", the rows of %llu sources alone",
		         (unsigned long long)jb->rows);
	int len = snprintf(line, sizeof line,
	                   "%%%%MatrixMarket matrix coordinate %s %s\n%% apsp %s%s\n",
	                   is_real ? "real" : "integer", mtx_symmetric(jb) ? "symmetric" : "general",
	                   what, some);
	tool_write_all(fd, line, (size_t)len);
	/* Provenance, one comment line per @PG line. */
	for (const char *pg = jb->h->provenance; pg && *pg;) {
		const char *nl = strchr(pg, '\n');
		size_t k = nl ? (size_t)(nl - pg) : strlen(pg);
		tool_write_all(fd, "% ", 2);
		tool_write_all(fd, pg, k);
		tool_write_all(fd, "\n", 1);
		pg += k + (nl != NULL);
	}
	len = snprintf(line, sizeof line, "%llu %llu %llu\n", (unsigned long long)n,
	               (unsigned long long)n, (unsigned long long)nnz);
	tool_write_all(fd, line, (size_t)len);
}

/* A list of vertices as a JSON array, after "key": written to fd. */
static void write_json_list(int fd, const char *key, const uint32_t *v, uint64_t count)
{
	char *buf = malloc(count * 12 + strlen(key) + 8);
	if (!buf)
		tool_die("a list of %llu vertices as JSON:", (unsigned long long)count);
	size_t k = (size_t)sprintf(buf, ",\"%s\":[", key);
	for (uint64_t i = 0; i < count; i++) {
		if (i)
			buf[k++] = ',';
		k += put_u64(buf + k, v[i]);
	}
	buf[k++] = ']';
	tool_write_all(fd, buf, k);
	free(buf);
}

/* The JSON object's start: what it holds, its lists, then its rows. */
static void write_json_header(int fd, const struct job *jb)
{
	char line[256];
	const char *what = jb->which == ST_WEIGHTS ? "weights"
	                 : jb->which == ST_DIST ? "distances" : "predecessors";
	int len = snprintf(line, sizeof line, "{\"n\":%llu,\"type\":\"%s\",\"matrix\":\"%s\"",
	                   (unsigned long long)jb->h->n,
	                   jb->which == ST_PRED ? "int32" : st_type_name(jb->h->type), what);
	tool_write_all(fd, line, (size_t)len);
	if (jb->src)
		write_json_list(fd, "sources", jb->src, jb->rows);
	if (jb->dst)
		write_json_list(fd, "targets", jb->dst, jb->cols);
	tool_write_all(fd, ",\"rows\":[\n", 10);
}

static void write_text(int fd, const struct job *jb, int threads)
{
	const uint64_t n = jb->rows;
	if (jb->fmt == FMT_JSON)
		write_json_header(fd, jb);
	if (jb->fmt == FMT_MTX) {
		uint64_t nnz = 0;
		#pragma omp parallel for reduction(+ : nnz) schedule(static) num_threads(threads)
		for (uint64_t i = 0; i < n; i++)
			for (uint64_t j = 0; j < jb->cols; j++)
				nnz += (uint64_t)mtx_entry(jb, i, j);
		write_mtx_header(fd, jb, nnz);
	}
	size_t cap = (size_t)jb->cols * ENTRY_MAX + 2;
	uint64_t chunk = (64u << 20) / cap; /* rows formatted per round */
	if (chunk < (uint64_t)threads)
		chunk = (uint64_t)threads;
	if (chunk > n)
		chunk = n ? n : 1;
	char *buf = malloc(chunk * cap);
	size_t *len = malloc(chunk * sizeof *len);
	if (!buf || !len)
		tool_die("text buffer:");
	for (uint64_t r0 = 0; r0 < n; r0 += chunk) {
		uint64_t rows = n - r0 < chunk ? n - r0 : chunk;
		#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
		for (uint64_t k = 0; k < rows; k++)
			len[k] = format_row(jb, r0 + k, buf + k * cap);
		/* Gather the rows so the kernel sees few large writes. */
		size_t off = len[0];
		for (uint64_t k = 1; k < rows; k++) {
			memmove(buf + off, buf + k * cap, len[k]);
			off += len[k];
		}
		tool_write_all(fd, buf, off);
		tool_progress("rows", r0 + rows, n);
	}
	if (jb->fmt == FMT_JSON)
		tool_write_all(fd, "]}\n", 3);
	free(buf);
	free(len);
}

static void write_npy(int fd, const struct job *jb)
{
	const uint64_t n = jb->cols;
	const char *descr = jb->which == ST_PRED || jb->h->type == ST_INT32 ? "<i4"
	                    : jb->h->type == ST_FLOAT32 ? "<f4" : "<f8";
	const size_t es = jb->which == ST_PRED ? 4 : ST_TYPE_SIZE(jb->h->type);
	char dict[128];
	int dl = snprintf(dict, sizeof dict,
	                  "{'descr': '%s', 'fortran_order': False, 'shape': (%llu, %llu), }",
	                  descr, (unsigned long long)jb->rows, (unsigned long long)n);
	/* Magic, version 1.0, header length, then the dict padded with spaces
	 * and a newline so the data starts at a multiple of 64 bytes. */
	size_t total = (10 + (size_t)dl + 1 + 63) / 64 * 64;
	char hdr[192];
	size_t hl = total - 10;
	memcpy(hdr, "\x93NUMPY\x01\x00", 8);
	hdr[8] = (char)(hl & 0xff);
	hdr[9] = (char)(hl >> 8);
	memcpy(hdr + 10, dict, (size_t)dl);
	memset(hdr + 10 + dl, ' ', total - 10 - (size_t)dl - 1);
	hdr[total - 1] = '\n';
	tool_write_all(fd, hdr, total);

	const uint32_t one = 1;
	int little = *(const unsigned char *)&one == 1;
	unsigned char *row = little ? NULL : malloc(n * es);
	if (!little && !row)
		tool_die("row buffer:");
	for (uint64_t i = 0; i < jb->rows; i++) {
		const unsigned char *src = (const unsigned char *)jb->m + i * jb->rowbytes;
		if (little) {
			tool_write_all(fd, src, n * es);
		} else {
			for (uint64_t j = 0; j < n * es; j++) /* each element's bytes reversed */
				row[j] = src[j / es * es + es - 1 - j % es];
			tool_write_all(fd, row, n * es);
		}
		if ((i & 1023) == 1023)
			tool_progress("rows", i + 1, jb->rows);
	}
	free(row);
}

/* Weight (i, j) of a list of arcs' record p as Matrix Market text. */
static size_t put_weight(char *p, uint32_t type, uint64_t i, uint64_t j, const unsigned char *w)
{
	char *q = p;
	q += put_u64(q, i + 1);
	*q++ = ' ';
	q += put_u64(q, j + 1);
	*q++ = ' ';
	if (type == ST_INT32) {
		int32_t x;
		memcpy(&x, w, 4);
		q += put_i64(q, x);
	} else if (type == ST_FLOAT32) {
		float x;
		memcpy(&x, w, 4);
		q += put_float(q, x);
	} else {
		double x;
		memcpy(&x, w, 8);
		q += put_double(q, x);
	}
	*q++ = '\n';
	return (size_t)(q - p);
}

/* A list of arcs as Matrix Market text: the same lines as its weight
 * matrix gives (mtx_entry: no diagonal 0, an undirected graph's lower
 * triangle), without the matrix. */
static void write_arcs_mtx(int fd, const struct job *jb)
{
	const st_header *h = jb->h;
	const unsigned char *a = jb->m;
	const size_t rec = ST_ARC_BYTES(h->type);
	const int lower = mtx_symmetric(jb);
	uint64_t count = 0;
	for (uint64_t k = 0; k < h->arcs; k++) {
		uint32_t u, v;
		memcpy(&u, a + k * rec, 4);
		memcpy(&v, a + k * rec + 4, 4);
		count += !lower || v <= u;
	}
	write_mtx_header(fd, jb, count);
	char *buf = malloc(1u << 20);
	size_t len = 0;
	if (!buf)
		tool_die("text buffer:");
	for (uint64_t k = 0; k < h->arcs; k++) {
		uint32_t u, v;
		memcpy(&u, a + k * rec, 4);
		memcpy(&v, a + k * rec + 4, 4);
		if (lower && v > u)
			continue;
		if (len > (1u << 20) - ENTRY_MAX) {
			tool_write_all(fd, buf, len);
			len = 0;
		}
		len += put_weight(buf + len, h->type, u, v, a + k * rec + 8);
		if ((k & 65535) == 65535)
			tool_progress("arcs", k + 1, h->arcs);
	}
	tool_write_all(fd, buf, len);
	free(buf);
}

static const char *matrix_name(uint32_t m)
{
	return m == ST_WEIGHTS ? "weights" : m == ST_DIST ? "distances"
	     : m == ST_ARCS    ? "arcs"    : m == ST_ORDER ? "order"
	     : m == ST_SOURCES ? "sources" : m == ST_TARGETS ? "targets" : "predecessors";
}

/* Refuse what cannot fit in memory before allocating it (a hostile header):
 * dies, r and h freed first (clean under LeakSanitizer). */
static void check_memory(st_reader *r, st_header *h, const char *name, double need)
{
	char why[200];
	if (tool_memory_refusal(why, sizeof why, h->npad, need, 2)) {
		st_reader_free(r);
		st_header_free(h);
		tool_die("%s: %s", name, why);
	}
}

/* The matrix want of r's stream (its other matrices' CRCs checked, the end
 * too; a list of arcs checked as well): malloc'd; r closed.  A result of
 * some rows: its list of sources into *src, a table's targets into *dst
 * (malloc'd, checked). */
static void *read_one(st_reader *r, st_header *h, const char *name, uint32_t want, uint32_t **src,
                      uint32_t **dst)
{
	st_error err;
	const uint64_t bytes = st_matrix_bytes_of(h, want);
	check_memory(r, h, name, (double)bytes);
	void *m = malloc(bytes ? bytes : 1);
	if (!m)
		tool_die("%s: %llu bytes for the %s:", name, (unsigned long long)bytes,
		         matrix_name(want));
	*src = *dst = NULL;
	for (uint32_t next; (next = st_next_matrix(r));) {
		if (next == ST_SOURCES && !(*src = malloc(h->rows * sizeof **src + 1)))
			tool_die("%s: %llu sources:", name, (unsigned long long)h->rows);
		if (next == ST_TARGETS && !(*dst = malloc(h->cols * sizeof **dst + 1)))
			tool_die("%s: %llu targets:", name, (unsigned long long)h->cols);
		int rc = next == want         ? st_read_matrix(r, m, &err)
		         : next == ST_SOURCES ? st_read_matrix(r, *src, &err)
		         : next == ST_TARGETS ? st_read_matrix(r, *dst, &err)
		                              : st_scan_matrix(r, 1, NULL, &err); /* its CRCs too */
		if (rc < 0 || (next == ST_SOURCES && st_sources_check(name, h, *src, &err) < 0)
		    || (next == ST_TARGETS && st_targets_check(name, h, *dst, &err) < 0))
			tool_die_st(NULL, &err);
	}
	if (st_reader_close(r, &err) < 0
	    || (want == ST_ARCS && st_arcs_check(name, h, m, &err) < 0))
		tool_die_st(NULL, &err);
	return m;
}

/* A list of arcs (freed) as its weight matrix, for --dense and --npy. */
static void *arcs_matrix(const st_header *h, const char *name, void *arcs)
{
	st_error err;
	gio_graph g;
	if (gio_from_arcs(h, arcs, &g, &err) < 0)
		tool_die_st(NULL, &err);
	free(arcs);
	check_memory(NULL, (st_header *)h, name, (double)st_matrix_bytes(h));
	void *m = malloc(st_matrix_bytes(h) ? st_matrix_bytes(h) : 1);
	if (!m)
		tool_die("%s: %llu x %llu matrix:", name, (unsigned long long)h->npad,
		         (unsigned long long)h->npad);
	gio_fill_matrix(&g, m, tool_threads());
	gio_graph_free(&g);
	return m;
}

int main(int argc, char **argv)
{
	enum { OPT_DENSE = 0x2000, OPT_NPY, OPT_WEIGHTS, OPT_DIST, OPT_PRED, OPT_JSON };
	static const struct option longopts[] = {
		TOOL_LONGOPTS,
		{"dense", no_argument, 0, OPT_DENSE},
		{"npy", no_argument, 0, OPT_NPY},
		{"json", no_argument, 0, OPT_JSON},
		{"weights", no_argument, 0, OPT_WEIGHTS},
		{"dist", no_argument, 0, OPT_DIST},
		{"pred", no_argument, 0, OPT_PRED},
		{0, 0, 0, 0},
	};
	enum format fmt = FMT_MTX;
	uint32_t want = 0;
	int c;

	tool_init("bin2mtx", argc, argv);
	init_pow10();
	while ((c = getopt_long(argc, argv, TOOL_SHORTOPTS, longopts, NULL)) != -1) {
		if (tool_common_option(c, optarg, usage))
			continue;
		switch (c) {
		case OPT_DENSE:
		case OPT_NPY:
		case OPT_JSON: {
			const enum format f = c == OPT_DENSE ? FMT_DENSE : c == OPT_NPY ? FMT_NPY : FMT_JSON;
			if (fmt != FMT_MTX && fmt != f)
				tool_usage_error("--dense, --npy and --json are three formats: give one");
			fmt = f;
			break;
		}
		case OPT_WEIGHTS:
		case OPT_DIST:
		case OPT_PRED: {
			const uint32_t m = c == OPT_WEIGHTS ? ST_WEIGHTS : c == OPT_DIST ? ST_DIST : ST_PRED;
			if (want && want != m)
				tool_usage_error("--weights, --dist and --pred choose one matrix: give one");
			want = m;
			break;
		}
		default: tool_usage_error("unexpected option");
		}
	}
	if (argc - optind > 1)
		tool_usage_error("one input at most ('%s' is extra)", argv[optind + 1]);
	const char *path = optind < argc ? argv[optind] : "-";
	const char *name = tool_input_name(path);
	int threads = tool_threads();

	tool_refuse_terminal_input(path);
	int fd = tool_open_input(path);
	st_header h;
	st_error err;
	st_reader *r = st_reader_open(fd, name, &h, threads, &err);
	if (!r)
		tool_die_st(NULL, &err);
	tool_refuse_checkpoint(name, r, &h);
	const int arcs = (h.matrices & ST_ARCS) != 0; /* its weights as a list */
	if (!want)
		want = (h.matrices & ST_DIST) ? ST_DIST
		     : (h.matrices & (ST_WEIGHTS | ST_ARCS)) ? ST_WEIGHTS : ST_PRED;
	if ((h.flags & ST_NEGCYCLE) || !(h.matrices & (arcs && want == ST_WEIGHTS ? ST_ARCS : want))) {
		long long cycle = (long long)h.cycle_vertex;
		int negcycle = (h.flags & ST_NEGCYCLE) != 0;
		st_reader_free(r);
		st_header_free(&h);
		if (negcycle)
			tool_die_status(EXIT_NEGCYCLE, "%s: the graph has a negative cycle through vertex %lld",
			                name, cycle);
		tool_die("%s: the stream holds no %s%s", name, matrix_name(want),
		         arcs ? " (a graph as a list of arcs: its weights only)" : "");
	}
	uint32_t *src, *dst;
	void *m = read_one(r, &h, name, arcs ? ST_ARCS : want, &src, &dst);
	if (arcs && fmt != FMT_MTX)
		m = arcs_matrix(&h, name, m);
	int out = tool_output_open(fmt == FMT_NPY);
	if (dst && want == ST_PRED) /* (a table's predecessors: its sources' whole rows) */
		free(dst), dst = NULL;
	const uint64_t cols = dst ? h.cols : h.n;
	struct job jb = {.h = &h, .rowbytes = (dst ? cols : h.npad) * (want == ST_PRED ? 4 : ST_TYPE_SIZE(h.type)),
	                 .m = m, .src = src, .rows = src ? h.rows : h.n, .dst = dst, .cols = cols,
	                 .which = want, .fmt = fmt};
	if (fmt == FMT_NPY)
		write_npy(out, &jb);
	else if (arcs && fmt == FMT_MTX)
		write_arcs_mtx(out, &jb);
	else
		write_text(out, &jb, threads);
	tool_output_commit();

	free(m);
	free(src), free(dst);
	st_header_free(&h);
	if (fd != 0)
		close(fd);
	return EXIT_OK;
}
