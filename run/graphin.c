/* graphin.c - a graph read from text, as mtx2bin and the engines read it
 * (see graphin.h): plain, gzip through zlib, or a member of an archive (and
 * every compression) through libarchive where built with it
 * (HAVE_LIBARCHIVE).  An archive is read into memory (it is compressed, and
 * smaller than the matrix it becomes) so that its members can be listed
 * before the chosen one is parsed, whatever their order; the chosen member
 * is then inflated and parsed as a stream.  --progress shows both steps. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_LIBARCHIVE
#include <archive.h>
#include <archive_entry.h>
#endif

#include "graphin.h"
#include "stream.h"
#include "tool.h"

#define HEAD_BYTES 65536

/* ---- input: a first chunk already read, then the rest of fd ---- */

typedef struct input {
	int fd;
	const char *path;    /* for messages */
	unsigned char *head; /* bytes read to recognize the container */
	size_t nhead, pos;
	int eof;
	uint64_t done, total; /* bytes read, file size (0: unknown), for progress */
} input;

static ssize_t read_fd(int fd, void *buf, size_t len)
{
	for (;;) {
		ssize_t r = read(fd, buf, len);
		if (r >= 0 || errno != EINTR)
			return r;
	}
}

static ssize_t input_read(input *in, void *buf, size_t len, st_error *err)
{
	if (in->pos < in->nhead) {
		size_t n = in->nhead - in->pos < len ? in->nhead - in->pos : len;
		memcpy(buf, in->head + in->pos, n);
		in->pos += n;
		return (ssize_t)n;
	}
	if (in->eof)
		return 0;
	ssize_t r = read_fd(in->fd, buf, len);
	if (r < 0)
		snprintf(err->msg, sizeof err->msg, "%s: read error: %s", in->path, strerror(errno));
	if (r == 0)
		in->eof = 1;
	if (r > 0) {
		in->done += (uint64_t)r;
		tool_progress("MB read", (in->nhead + in->done) >> 20, in->total >> 20);
	}
	return r;
}

static ssize_t read_plain(void *ctx, void *buf, size_t len, st_error *err)
{
	return input_read(ctx, buf, len, err);
}

static void input_peek(input *in)
{
	in->head = malloc(HEAD_BYTES);
	if (!in->head)
		tool_die("out of memory");
	while (in->nhead < HEAD_BYTES) {
		ssize_t r = read_fd(in->fd, in->head + in->nhead, HEAD_BYTES - in->nhead);
		if (r < 0)
			tool_die("%s: read error:", in->path);
		if (r == 0) {
			in->eof = 1;
			break;
		}
		in->nhead += (size_t)r;
	}
}

enum container { C_PLAIN, C_GZIP, C_TAR, C_OTHER };

static enum container sniff(const unsigned char *h, size_t n)
{
	if (n >= 2 && h[0] == 0x1f && h[1] == 0x8b)
		return C_GZIP;
	if (n >= 262 && memcmp(h + 257, "ustar", 5) == 0)
		return C_TAR;
	if ((n >= 4 && !memcmp(h, "PK\3\4", 4)) || (n >= 4 && !memcmp(h, "PK\5\6", 4)) ||
	    (n >= 3 && !memcmp(h, "BZh", 3)) || (n >= 6 && !memcmp(h, "\xfd" "7zXZ\0", 6)) ||
	    (n >= 4 && !memcmp(h, "\x28\xb5\x2f\xfd", 4)) || (n >= 6 && !memcmp(h, "7z\xbc\xaf\x27\x1c", 6)))
		return C_OTHER;
	return C_PLAIN;
}

/* ---- gzip through zlib (concatenated members too) ---- */

typedef struct gz {
	input *in;
	z_stream z;
	unsigned char ibuf[1 << 16];
	int done, checked;
} gz;

static ssize_t read_gzip(void *ctx, void *buf, size_t len, st_error *err)
{
	gz *g = ctx;
	g->z.next_out = buf;
	g->z.avail_out = (uInt)(len > (1u << 30) ? 1u << 30 : len);
	while (g->z.avail_out > 0 && !g->done) {
		if (g->z.avail_in == 0) {
			ssize_t r = input_read(g->in, g->ibuf, sizeof g->ibuf, err);
			if (r < 0)
				return -1;
			if (r == 0) {
				if (g->z.total_in == 0 && g->z.total_out == 0) {
					g->done = 1; /* only whole members before: the end */
					break;
				}
				snprintf(err->msg, sizeof err->msg, "%s: truncated gzip data", g->in->path);
				return -1;
			}
			g->z.next_in = g->ibuf;
			g->z.avail_in = (uInt)r;
		}
		int rc = inflate(&g->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			inflateReset(&g->z); /* total_in/out back to 0: a next member may follow */
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			snprintf(err->msg, sizeof err->msg, "%s: bad gzip data: %s", g->in->path,
			         g->z.msg ? g->z.msg : "inflate failed");
			return -1;
		}
	}
	size_t n = len - g->z.avail_out;
	if (!g->checked && n >= 262) {
		g->checked = 1;
		if (memcmp((char *)buf + 257, "ustar", 5) == 0) {
			snprintf(err->msg, sizeof err->msg, "%s: a tar archive: archives are "
			         "unsupported in this build of %s (built without libarchive)",
			         g->in->path, tool_name());
			return -1;
		}
	}
	return (ssize_t)n;
}

/* Does the gzip data starting in head unpack to a tar archive? */
static int gzip_holds_tar(const unsigned char *head, size_t n)
{
	unsigned char out[512];
	z_stream z = {0};
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		return 0;
	z.next_in = (unsigned char *)head;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = sizeof out;
	while (z.avail_out > 0 && inflate(&z, Z_NO_FLUSH) == Z_OK)
		;
	size_t got = sizeof out - z.avail_out;
	inflateEnd(&z);
	return got >= 262 && memcmp(out + 257, "ustar", 5) == 0;
}

static int read_graph_gzip(input *in, const char *name, const gio_opts *o, gio_graph *g,
                           st_error *err)
{
	gz *z = calloc(1, sizeof *z);
	if (!z)
		tool_die("out of memory");
	z->in = in;
	if (inflateInit2(&z->z, 15 + 16) != Z_OK)
		tool_die("zlib: inflateInit2 failed");
	int rc = gio_read(name, read_gzip, z, o, g, err);
	inflateEnd(&z->z);
	free(z);
	return rc;
}

/* ---- archives through libarchive ---- */

/* "dir/nos4.tar.gz" -> "nos4" */
static char *base_name(const char *path)
{
	static const char *const ext[] = {".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz",
	                                  ".txz", ".tar.zst", ".tar", ".zip", ".7z",
	                                  ".mtx.gz", ".mtx", ".gr.gz", ".gr", ".gz"};
	const char *b = strrchr(path, '/');
	char *s = strdup(b ? b + 1 : path);
	if (!s)
		tool_die("out of memory");
	size_t n = strlen(s);
	for (size_t k = 0; k < sizeof ext / sizeof *ext; k++) {
		size_t e = strlen(ext[k]);
		if (n > e && strcasecmp(s + n - e, ext[k]) == 0) {
			s[n - e] = '\0';
			break;
		}
	}
	return s;
}

#ifdef HAVE_LIBARCHIVE
typedef struct arc {
	struct archive *a;
	const char *path;
	uint64_t done, size; /* the member's bytes inflated, and its size (0: unknown) */
} arc;

static ssize_t read_member(void *ctx, void *buf, size_t len, st_error *err)
{
	arc *r = ctx;
	la_ssize_t n = archive_read_data(r->a, buf, len);
	if (n < 0)
		snprintf(err->msg, sizeof err->msg, "%s: %s", r->path, archive_error_string(r->a));
	if (n > 0) {
		r->done += (uint64_t)n;
		tool_progress("MB of the member parsed", r->done >> 20, r->size >> 20);
	}
	return n;
}

static struct archive *arc_open(const void *data, size_t len, const char *path)
{
	struct archive *a = archive_read_new();
	if (!a)
		tool_die("out of memory");
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	archive_read_support_format_raw(a);
	if (archive_read_open_memory(a, data, len) != ARCHIVE_OK)
		tool_die("%s: %s", path, archive_error_string(a));
	return a;
}

static const char *strip_dot(const char *s)
{
	while (s[0] == '.' && s[1] == '/')
		s += 2;
	return s;
}

static int ends_with(const char *s, const char *e)
{
	size_t n = strlen(s), k = strlen(e);
	return n >= k && strcmp(s + n - k, e) == 0;
}

/* Is path "D/D.mtx", the primary file of a SuiteSparse folder? */
static int primary(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash || !ends_with(path, ".mtx"))
		return 0;
	const char *dir = slash;
	while (dir > path && dir[-1] != '/')
		dir--;
	size_t d = (size_t)(slash - dir);
	return strlen(slash + 1) == d + 4 && strncmp(dir, slash + 1, d) == 0;
}

/* Is path "D/D_something.mtx", an extra matrix (b, x, aux) of a folder? */
static int auxiliary(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return 0;
	const char *dir = slash;
	while (dir > path && dir[-1] != '/')
		dir--;
	size_t d = (size_t)(slash - dir);
	return strncmp(dir, slash + 1, d) == 0 && slash[1 + d] == '_';
}

/* libarchive does not check a gzip trailer: a damaged .tar.gz whose deflate
 * data still inflates would import as a different graph without a word.  So
 * check every gzip member's CRC and length here first. */
static void check_gzip(const unsigned char *data, size_t len, const char *path)
{
	if (len < 2 || data[0] != 0x1f || data[1] != 0x8b)
		return;
	static unsigned char sink[1 << 16];
	z_stream z;
	memset(&z, 0, sizeof z);
	if (inflateInit2(&z, 15 + 16) != Z_OK)
		tool_die("out of memory");
	z.next_in = (unsigned char *)data;
	z.avail_in = (uInt)(len < UINT_MAX ? len : UINT_MAX);
	size_t left = len - z.avail_in;
	for (;;) {
		z.next_out = sink;
		z.avail_out = sizeof sink;
		int zr = inflate(&z, Z_NO_FLUSH);
		if (z.avail_in == 0 && left) {
			uInt k = (uInt)(left < UINT_MAX ? left : UINT_MAX);
			z.avail_in = k;
			left -= k;
		}
		if (zr == Z_STREAM_END) {
			if (z.avail_in == 0)
				break;
			inflateReset(&z); /* another member */
		} else if (zr == Z_BUF_ERROR || (zr == Z_OK && z.avail_in == 0 && z.avail_out)) {
			tool_die("%s: truncated gzip data", path);
		} else if (zr != Z_OK) {
			tool_die("%s: bad gzip data: %s", path, z.msg ? z.msg : "corrupt");
		}
	}
	inflateEnd(&z);
}

/* Read the whole input and pick the member; parse it into g. */
static int read_graph_archive(input *in, const char *member, const gio_opts *o, gio_graph *g,
                              char **label, st_error *err)
{
	size_t len = in->nhead, cap = in->nhead * 2 + HEAD_BYTES;
	unsigned char *data = malloc(cap);
	if (!data)
		tool_die("out of memory");
	memcpy(data, in->head, in->nhead);
	while (!in->eof) {
		if (len == cap) {
			cap *= 2;
			unsigned char *d = realloc(data, cap);
			if (!d)
				tool_die("%s: out of memory reading the archive", in->path);
			data = d;
		}
		ssize_t r = read_fd(in->fd, data + len, cap - len);
		if (r < 0)
			tool_die("%s: read error:", in->path);
		if (r == 0)
			in->eof = 1;
		len += (size_t)r;
		tool_progress("MB of the archive read", len >> 20, in->total >> 20);
	}

	check_gzip(data, len, in->path);

	/* Pass 1: list the regular members and choose one. */
	struct archive *a = arc_open(data, len, in->path);
	struct archive_entry *e;
	char *stem = base_name(in->path), *want = NULL, *list = NULL;
	size_t nlist = 0;
	int raw = 0, nprimary = 0, nplain = 0, r;
	char *first_primary = NULL, *first_plain = NULL, *exact = NULL;
	char named[4096];
	snprintf(named, sizeof named, "%s/%s.mtx", stem, stem);
	const char *not_regular = NULL; /* what the member asked for is, if not a file */
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		if (archive_format(a) == ARCHIVE_FORMAT_RAW) {
			raw = 1;
			break;
		}
		if (archive_entry_filetype(e) != AE_IFREG) {
			if (member && !not_regular
			    && strcmp(strip_dot(archive_entry_pathname(e)), strip_dot(member)) == 0)
				not_regular = archive_entry_filetype(e) == AE_IFLNK ? "a symbolic link"
				            : archive_entry_filetype(e) == AE_IFDIR ? "a directory"
				            : "not a regular file";
			continue;
		}
		const char *p = strip_dot(archive_entry_pathname(e));
		size_t pl = strlen(p);
		char *nl = realloc(list, nlist + pl + 3);
		if (!nl)
			tool_die("out of memory");
		list = nl;
		nlist += (size_t)sprintf(list + nlist, "%s%s", nlist ? ", " : "", p);
		if (member ? strcmp(p, strip_dot(member)) == 0 : strcmp(p, named) == 0)
			exact = exact ? exact : strdup(p);
		if (primary(p) && !nprimary++)
			first_primary = strdup(p);
		if ((ends_with(p, ".mtx") || ends_with(p, ".mtx.gz")) && !auxiliary(p) && !nplain++)
			first_plain = strdup(p);
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_EOF)
		tool_die("%s: %s", in->path, archive_error_string(a));
	archive_read_free(a);

	if (raw) {
		want = NULL; /* the single stream of a compressed file */
	} else if (exact) {
		want = exact;
	} else if (member && not_regular) {
		tool_die("%s: member '%s' is %s: only regular files are read", in->path, member,
		         not_regular);
	} else if (member) {
		tool_die("%s: no member '%s' (members: %s)", in->path, member, list ? list : "none");
	} else if (nprimary == 1) {
		want = first_primary;
	} else if (nprimary == 0 && nplain == 1) {
		want = first_plain;
	} else {
		tool_die("%s: cannot choose among the members (%s): name one with --member",
		         in->path, list ? list : "none");
	}

	/* Pass 2: parse the chosen member. */
	a = arc_open(data, len, in->path);
	int rc = -1;
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *p = strip_dot(archive_entry_pathname(e));
		if (!raw && (archive_entry_filetype(e) != AE_IFREG || strcmp(p, want) != 0))
			continue;
		arc ctx = {a, in->path, 0,
		           archive_entry_size_is_set(e) ? (uint64_t)archive_entry_size(e) : 0};
		char *name = NULL;
		if (raw) {
			/* x.mtx.gz: detect from "x.mtx" */
			name = strdup(in->path);
			if (name && ends_with(name, ".gz"))
				name[strlen(name) - 3] = '\0';
		} else if (asprintf(&name, "%s:%s", in->path, p) < 0) {
			name = NULL;
		}
		if (!name)
			tool_die("out of memory");
		rc = gio_read(name, read_member, &ctx, o, g, err);
		if (!raw) {
			free(*label);
			*label = base_name(p);
		}
		free(name);
		break;
	}
	if (r != ARCHIVE_OK && r != ARCHIVE_EOF)
		tool_die("%s: %s", in->path, archive_error_string(a));
	archive_read_free(a);
	free(data);
	free(stem);
	free(list);
	free(first_primary);
	free(first_plain);
	free(exact);
	return rc;
}
#endif

/* ---- the whole read ---- */

void graphin_read(int fd, const char *path, const char *member, const gio_opts *o,
                  gio_graph *g, char **label)
{
	input in = {.fd = fd, .path = tool_input_name(path)};
	st_error err = {{0}};
	struct stat st;
	int rc;
	(void)member; /* used with libarchive only */
	*label = base_name(in.path);
	if (fstat(in.fd, &st) == 0 && S_ISREG(st.st_mode))
		in.total = (uint64_t)st.st_size;
	input_peek(&in);
	enum container kind = sniff(in.head, in.nhead);
	if (kind == C_GZIP && gzip_holds_tar(in.head, in.nhead))
		kind = C_TAR;
	switch (kind) {
	case C_PLAIN:
		rc = gio_read(in.path, read_plain, &in, o, g, &err);
		break;
	case C_GZIP: /* zlib, streaming: faster than libarchive, and no copy in memory */
		/* messages name the file as it is ("x.mtx.gz:3"); gio_detect takes
		 * "x.mtx.gz" for Matrix Market as it takes "x.mtx" */
		rc = read_graph_gzip(&in, in.path, o, g, &err);
		break;
#ifdef HAVE_LIBARCHIVE
	default:
		rc = read_graph_archive(&in, member, o, g, label, &err);
		break;
#else
	default:
		tool_die("%s: %s: archives are unsupported in this build of %s (built "
		         "without libarchive; gzip is read)", in.path,
		         kind == C_TAR ? "a tar archive" : "an archive or a compression other than gzip",
		         tool_name());
#endif
	}
	tool_progress_end();
	free(in.head);
	if (rc != 0)
		tool_die("%s", err.msg);
}

/* The first byte of fd's input, left to be read again: from a file by its
 * offset, from a pipe through tee(2), which copies without consuming.
 * -1 where neither can (a terminal, a socket) or the input is empty. */
static int first_byte(int fd)
{
	struct stat st;
	unsigned char b;
	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISREG(st.st_mode)) {
		off_t at = lseek(fd, 0, SEEK_CUR);
		return at >= 0 && pread(fd, &b, 1, at) == 1 ? b : -1;
	}
	if (!S_ISFIFO(st.st_mode))
		return -1;
	int p[2];
	if (pipe(p) < 0)
		return -1;
	ssize_t k;
	while ((k = tee(fd, p[1], 1, 0)) < 0 && errno == EINTR)
		;
	int rc = k == 1 && read(p[0], &b, 1) == 1 ? b : -1;
	close(p[0]);
	close(p[1]);
	return rc;
}

int graphin_is_text(int fd)
{
	/* A matrix stream's magic starts with 0x89; text never does, nor
	 * gzip (0x1f) or the archives' magics. */
	int b = first_byte(fd);
	return b >= 0 && b != 0x89;
}

int graphin_archives(void)
{
#ifdef HAVE_LIBARCHIVE
	return 1;
#else
	return 0;
#endif
}
