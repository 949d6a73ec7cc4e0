/* stream_format.c - the binary matrix stream's header: defaults, checks,
 * provenance lines; and what the writer and the reader share.
 *
 * A stream is a checked header, then each matrix as independently deflated
 * blocks with sizes and a CRC32, then markers; the byte layout is in
 * man/apspmat.5.  The writer is stream_write.c, the reader stream_read.c
 * (windows of rows: stream_windows.c),
 * one block's coding (deflate engine, CRC32, byte shuffle) blockcodec.c.
 * Nothing here prints or exits.
 */
#include "stream_internal.h"
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const unsigned char st_magic[8] = {0x89, 'A', 'P', 'M', '\r', '\n', 0x1a, '\n'};

void workers_free(struct worker *wk, int n)
{
	if (!wk)
		return;
	for (int i = 0; i < n; i++) {
		bc_coder_free(wk[i].c);
		free(wk[i].buf);
		free(wk[i].raw);
		free(wk[i].buf2);
		free(wk[i].raw2);
	}
	free(wk);
}


/* ---- header ---- */

void st_header_init(st_header *h, uint64_t n, uint64_t pad, enum st_type type)
{
	memset(h, 0, sizeof *h);
	h->n = n;
	h->npad = pad > 1 ? (n + pad - 1) / pad * pad : n;
	h->type = type;
	h->block = ST_BLOCK_DEFAULT;
	h->inf_i32 = ST_INF_I32;
	h->cycle_vertex = -1;
}

void st_header_free(st_header *h)
{
	if (!h)
		return;
	free(h->provenance);
	h->provenance = NULL;
}

int st_header_is_checkpoint(const st_header *h)
{
	static const char line[] = "@PG\tID:" ST_CHECKPOINT_ID "\t";
	for (const char *p = h->provenance; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, line, sizeof line - 1))
			return 1;
	return 0;
}

const char *st_type_name(uint32_t type)
{
	return type == ST_INT32 ? "int32" : type == ST_FLOAT32 ? "float32"
	       : type == ST_FLOAT64 ? "float64" : "unknown";
}

uint64_t st_matrix_bytes(const st_header *h)
{
	return h->npad * h->npad * ST_TYPE_SIZE(h->type);
}

uint64_t st_matrix_bytes_of(const st_header *h, uint32_t matrix)
{
	return raw_bytes_of(sizes_of(h), matrix);
}

int st_matrix_count(const st_header *h)
{
	return __builtin_popcount(h->matrices & ST_KNOWN);
}

/* ---- lists of arcs ---- */

int st_arcs_check(const char *name, const st_header *h, const void *arcs, st_error *err)
{
	const unsigned char *p = arcs;
	const size_t rec = ST_ARC_BYTES(h->type);
	uint32_t last_u = 0, last_v = 0;
	for (uint64_t k = 0; k < h->arcs; k++, p += rec) {
		uint32_t u, v;
		memcpy(&u, p, 4);
		memcpy(&v, p + 4, 4);
		double w;
		if (h->type == ST_INT32) {
			int32_t x;
			memcpy(&x, p + 8, 4);
			w = x <= -ST_INF_I32 || x >= ST_INF_I32 ? NAN : x;
		} else if (h->type == ST_FLOAT32) {
			float x;
			memcpy(&x, p + 8, 4);
			w = x;
		} else {
			memcpy(&w, p + 8, 8);
		}
		const char *why = u >= h->n || v >= h->n ? "a vertex out of range"
		                : k && (u < last_u || (u == last_u && v <= last_v))
		                        ? "out of order (or a pair repeated)"
		                : !isfinite(w) ? "a weight that is not finite (int32: not within INF)"
		                : u == v && !(w < 0) ? "a loop whose weight is not negative"
		                                     : NULL;
		if (why)
			return lib_fail(err, "%s: arc %llu (%u -> %u): %s", name, (unsigned long long)k,
			                u, v, why);
		last_u = u, last_v = v;
	}
	return 0;
}

/* A list of count vertices (the list of what, each at a unit: row or
 * column) of a stream's header h: each below n, none twice. */
static int list_check(const char *name, const char *what, const char *unit, const st_header *h,
                      const uint32_t *v, uint64_t count, st_error *err)
{
	uint8_t *seen = calloc(h->n ? h->n : 1, 1);
	if (!seen)
		return lib_fail(err, "%s: out of memory to check the list of %s", name, what);
	for (uint64_t k = 0; k < count; k++) {
		if (v[k] >= h->n || seen[v[k]]) {
			free(seen);
			return lib_fail(err, "%s: list of %s, %s %llu: vertex %u %s", name, what,
			                unit, (unsigned long long)k,
			                v[k], v[k] >= h->n ? "out of range" : "a second time");
		}
		seen[v[k]] = 1;
	}
	free(seen);
	return 0;
}

int st_sources_check(const char *name, const st_header *h, const uint32_t *src, st_error *err)
{
	return list_check(name, "sources", "row", h, src, h->rows, err);
}

int st_targets_check(const char *name, const st_header *h, const uint32_t *dst, st_error *err)
{
	return list_check(name, "targets", "column", h, dst, h->cols, err);
}

int st_order_check(const char *name, const st_header *h, const int32_t *order, st_error *err)
{
	uint8_t *seen = calloc(h->n ? h->n : 1, 1);
	if (!seen)
		return lib_fail(err, "%s: out of memory to check the vertex order", name);
	for (uint64_t k = 0; k < h->n; k++) {
		const int32_t v = order[k];
		if (v < 0 || (uint64_t)v >= h->n || seen[v]) {
			free(seen);
			return lib_fail(err, "%s: vertex order, position %llu: vertex %d %s", name,
			                (unsigned long long)k, v,
			                v < 0 || (uint64_t)v >= h->n ? "out of range" : "a second time");
		}
		seen[v] = 1;
	}
	free(seen);
	return 0;
}

/* Append s to b, escaping what would break a tab-separated line. */
static size_t escape_into(char *b, const char *s)
{
	size_t k = 0;

	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '\t') { b[k++] = '\\'; b[k++] = 't'; }
		else if (c == '\n') { b[k++] = '\\'; b[k++] = 'n'; }
		else if (c == '\r') { b[k++] = '\\'; b[k++] = 'r'; }
		else if (c < 0x20 || c == 0x7f) k += (size_t)sprintf(b + k, "\\x%02x", c);
		else b[k++] = (char)c;
	}
	return k;
}

int st_header_add_pg(st_header *h, const char *name, const char *version,
                     int argc, char **argv, st_error *err)
{
	size_t need = 32, old = h->provenance ? strlen(h->provenance) : 0;

	name = name ? name : "";
	version = version ? version : "";
	need += 4 * (strlen(name) + strlen(version));
	for (int i = 0; i < argc && argv && argv[i]; i++)
		need += 4 * strlen(argv[i]) + 1;
	char *line = malloc(need);
	if (!line) {
		lib_fail(err, "out of memory for a provenance line (%zu bytes)", need);
		return -1;
	}
	size_t k = 0;
	k += (size_t)sprintf(line + k, "@PG\tID:");
	k += escape_into(line + k, name);
	k += (size_t)sprintf(line + k, "\tVN:");
	k += escape_into(line + k, version);
	k += (size_t)sprintf(line + k, "\tCL:");
	for (int i = 0; i < argc && argv && argv[i]; i++) {
		if (i)
			line[k++] = ' ';
		k += escape_into(line + k, argv[i]);
	}
	line[k++] = '\n';
	if (old + k > PROV_MAX) {
		free(line);
		lib_fail(err, "provenance would exceed %u bytes", PROV_MAX);
		return -1;
	}
	char *p = realloc(h->provenance, old + k + 1);
	if (!p) {
		free(line);
		lib_fail(err, "out of memory for provenance (%zu bytes)", old + k + 1);
		return -1;
	}
	memcpy(p + old, line, k);
	p[old + k] = '\0';
	h->provenance = p;
	free(line);
	return 0;
}

/* Is h a header this version can write and read?  0, or -1 with why. */
int header_check(const st_header *h, size_t provlen, char *why, size_t len)
{
	if (h->type != ST_INT32 && h->type != ST_FLOAT32 && h->type != ST_FLOAT64)
		snprintf(why, len, "unknown element type %u", h->type);
	else if (h->matrices & ~(uint32_t)ST_KNOWN)
		snprintf(why, len, "unknown matrix bits 0x%x", h->matrices);
	else if ((h->matrices & ST_ARCS) && (h->matrices & ~(uint32_t)(ST_ARCS | ST_ORDER)))
		snprintf(why, len, "a list of arcs with matrices (bits 0x%x): it stands alone",
		         h->matrices);
	else if ((h->matrices & ST_ORDER) && !(h->matrices & ST_ARCS))
		snprintf(why, len, "a vertex order without a list of arcs (bits 0x%x)", h->matrices);
	else if (h->arcs && !(h->matrices & ST_ARCS))
		snprintf(why, len, "an arc count of %llu without a list of arcs",
		         (unsigned long long)h->arcs);
	else if ((h->matrices & ST_TARGETS)
	         && (h->matrices & ~(uint32_t)(ST_SOURCES | ST_TARGETS | ST_DIST | ST_PRED)))
		snprintf(why, len, "a table (a list of targets) with weights or arcs (bits 0x%x)",
		         h->matrices);
	else if ((h->matrices & ST_TARGETS) && (!(h->matrices & ST_SOURCES) || !(h->matrices & ST_DIST)))
		snprintf(why, len, "a list of targets without sources or distances (bits 0x%x)",
		         h->matrices);
	else if (h->cols && !(h->matrices & ST_TARGETS))
		snprintf(why, len, "a column count of %llu without a list of targets",
		         (unsigned long long)h->cols);
	else if (h->cols > h->n)
		snprintf(why, len, "%llu columns: more than the %llu vertices",
		         (unsigned long long)h->cols, (unsigned long long)h->n);
	else if ((h->matrices & ST_SOURCES) && (h->matrices & ~(uint32_t)(ST_SOURCES | ST_TARGETS | ST_DIST | ST_PRED)))
		snprintf(why, len, "a list of sources with weights or arcs (bits 0x%x)", h->matrices);
	else if ((h->matrices & ST_SOURCES) && !(h->matrices & ST_DIST))
		snprintf(why, len, "a list of sources without distances (bits 0x%x)", h->matrices);
	else if (h->rows && !(h->matrices & ST_SOURCES))
		snprintf(why, len, "a row count of %llu without a list of sources",
		         (unsigned long long)h->rows);
	else if (h->rows > h->n)
		snprintf(why, len, "%llu rows: more than the %llu vertices", (unsigned long long)h->rows,
		         (unsigned long long)h->n);
	else if (h->npad < ST_MAX_N && h->arcs > h->npad * h->npad)
		snprintf(why, len, "%llu arcs: more than the %llu pairs of %llu vertices",
		         (unsigned long long)h->arcs, (unsigned long long)(h->npad * h->npad),
		         (unsigned long long)h->npad);
	else if (h->flags & ~(uint32_t)(ST_DIRECTED | ST_NEGATIVE | ST_NEGCYCLE))
		snprintf(why, len, "unknown flag bits 0x%x", h->flags);
	else if (h->npad < h->n)
		snprintf(why, len, "padded size %llu is smaller than n = %llu",
		         (unsigned long long)h->npad, (unsigned long long)h->n);
	else if (h->npad >= ST_MAX_N)
		snprintf(why, len, "padded size %llu is not below the limit %llu",
		         (unsigned long long)h->npad, (unsigned long long)ST_MAX_N);
	else if (h->n == 0 && h->npad != 0)
		snprintf(why, len, "n is 0 but the padded size is %llu",
		         (unsigned long long)h->npad);
	else if (h->block == 0 || h->block % 4 || h->block > BLOCK_MAX)
		snprintf(why, len, "block size %u is not a positive multiple of 4 up to %u",
		         h->block, BLOCK_MAX);
	else if (h->inf_i32 != ST_INF_I32)
		snprintf(why, len, "INF convention %d, expected %d", h->inf_i32, ST_INF_I32);
	else if (h->cycle_vertex < -1 || (h->cycle_vertex >= 0 && (uint64_t)h->cycle_vertex >= h->n))
		snprintf(why, len, "negative-cycle vertex %lld out of range",
		         (long long)h->cycle_vertex);
	else if (provlen > PROV_MAX)
		snprintf(why, len, "provenance of %zu bytes exceeds %u", provlen, PROV_MAX);
	else
		return 0;
	return -1;
}

const char *st_engine(void)
{
	return bc_engine();
}

uint32_t st_crc32(const void *p, size_t len)
{
	return bc_crc32(p, len);
}
