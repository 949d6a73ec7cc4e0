/* checkpoint.c - see checkpoint.h. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <glob.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "common.h"
#include "checkpoint.h"
#include "stream.h"
#include "tool.h"

#define CKPT_ID ST_CHECKPOINT_ID

const char ckpt_help[] =
        "      --checkpoint FILE   keep the state between rounds in FILE, now and then\n"
        "                          (removed once the result is written)\n"
        "      --checkpoint-every SECONDS\n"
        "                          at most that often (default: as often as costs\n"
        "                          about a twentieth of the run's time)\n"
        "      --resume FILE       go on from the checkpoint FILE (from the start if\n"
        "                          there is none yet); another run's is refused\n"
        "      --keep-checkpoint   do not remove the checkpoint at the end\n";

/* A new temporary file beside path (its name in tmp, of size len), open
 * for writing; -1 with errno where there is none. */
static int temp_beside(const char *path, char *tmp, size_t len)
{
	if (snprintf(tmp, len, "%s.tmp.XXXXXX", path) >= (int)len) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return mkstemp(tmp);
}

/* The temporary checkpoints that a kill left beside path (a glob, the caller
 * frees it); 0 where there is none. */
static int leftovers(const char *path, glob_t *g)
{
	char pattern[4096];
	if (snprintf(pattern, sizeof pattern, "%s.tmp.??????", path) >= (int)sizeof pattern)
		return 0;
	return glob(pattern, GLOB_NOESCAPE, NULL, g) == 0 ? (int)g->gl_pathc : 0;
}

int ckpt_option(struct ckpt *k, int c, const char *arg)
{
	static const char *const omit[] = {"--checkpoint=", "--checkpoint-every=", "--resume=",
	                                   "--keep-checkpoint", NULL};
	switch (c) {
	case CKPT_OPT_FILE: k->path = arg; break;
	case CKPT_OPT_RESUME: k->resume = arg; break;
	case CKPT_OPT_KEEP: k->keep = 1; break;
	case CKPT_OPT_EVERY:
		k->every = tool_parse_double("--checkpoint-every", arg);
		if (!(k->every >= 0))
			tool_usage_error("--checkpoint-every: %s is not a number of seconds >= 0", arg);
		break;
	default: return 0;
	}
	if ((k->path && !*k->path) || (k->resume && !*k->resume))
		tool_usage_error("--checkpoint and --resume need a file name");
	if (c == CKPT_OPT_FILE) { /* it must take one: said now, not an hour in */
		struct stat st;
		if (stat(arg, &st) == 0 && !S_ISREG(st.st_mode))
			tool_usage_error("--checkpoint %s: %s, not a file", arg,
			                 S_ISDIR(st.st_mode) ? "a directory" : "a device or special file");
		char tmp[4096];
		int fd = temp_beside(arg, tmp, sizeof tmp);
		if (fd < 0)
			tool_die("%s: cannot write a checkpoint there:", arg);
		close(fd);
		unlink(tmp);
	}
	tool_provenance_omit(omit);
	return 1;
}

/* The CRC32 of bytes at p, in pieces on every thread, joined as one. */
static unsigned long crc_of(const void *p, uint64_t bytes)
{
	const uint64_t piece = (uint64_t)16 << 20, pieces = (bytes + piece - 1) / piece;
	uLong *crc = malloc((pieces ? pieces : 1) * sizeof *crc);
	if (!crc) /* (one piece after another) */
		return st_crc32(p, bytes);
	#pragma omp parallel for schedule(dynamic, 1) num_threads(tool_threads())
	for (uint64_t i = 0; i < pieces; i++) {
		uint64_t at = i * piece, len = bytes - at < piece ? bytes - at : piece;
		crc[i] = st_crc32((const unsigned char *)p + at, len);
	}
	uLong all = crc32(0L, Z_NULL, 0);
	for (uint64_t i = 0; i < pieces; i++) {
		uint64_t at = i * piece, len = bytes - at < piece ? bytes - at : piece;
		all = crc32_combine(all, crc[i], (z_off_t)len);
	}
	free(crc);
	return (unsigned long)all;
}

/* The run's identity (k->id), from the digest of its weights and order. */
static void *make_id(void *arg)
{
	struct ckpt *k = arg;
	char ord[16] = "natural";
	if (k->order)
		snprintf(ord, sizeof ord, "%08lx", crc_of(k->order, k->n * 4));
	const uint64_t bytes = (k->ranks ? k->ranks->weight_rows : k->n) * k->n * ST_TYPE_SIZE(k->type);
	unsigned long crc = crc_of(k->weights, bytes);
	if (k->ranks) /* (every process's share, joined) */
		crc = k->ranks->crc(crc, bytes);
	snprintf(k->id, sizeof k->id, "n:%" PRIu64 ",type:%u,weights:%08lx,order:%s,%s", k->n,
	         k->type, crc, ord, k->layout);
	return NULL;
}

void ckpt_gpu_report(int written, int resumed_from, int direct)
{
	tool_info("checkpoints: %d written%s, the rounds from step %d", written,
	          direct ? " from the devices while they waited (no host memory for a copy of "
	                   "the state)"
	                 : "",
	          resumed_from);
}

void ckpt_gpu_layout(char *buf, size_t len, int block, int paths, int lanes16, int derive,
                     int skip)
{
	snprintf(buf, len, "B:%d,paths:%d,16bit:%d,derive:%d,skip:%d,engine:gpu", block, paths,
	         lanes16, derive, skip);
}

void ckpt_ready(struct ckpt *k)
{
	if (k->digesting)
		pthread_join(k->digest, NULL);
	k->digesting = 0;
}


void ckpt_begin(struct ckpt *k, uint32_t type, uint64_t n, const void *weights,
                const int32_t *order, const char *layout, uint64_t rounds)
{
	k->type = type;
	k->n = n;
	k->weights = weights;
	k->order = order;
	snprintf(k->layout, sizeof k->layout, "%s", layout);
	k->rounds = rounds;
	k->cost = -1;
	k->last = -1; /* (from the first round's end on: due()) */
	k->digesting = !k->resume && !k->ranks && pthread_create(&k->digest, NULL, make_id, k) == 0;
	if (!k->digesting)
		make_id(k);
}

/* How long after the last checkpoint (the first: after the first round's
 * end) the next is due (cost: what writing
 * the last one took, < 0 where none is written yet): at most every
 * k->every seconds, by default once the rounds since the last have taken
 * twenty times that cost (the first one's guessed at 4 GB/s, the page
 * cache's speed): about a twentieth of the run's time.  The disk's sync
 * runs beside the rounds and slows them a little more (bench/checkpoint.md). */
static double wait_for(const struct ckpt *k, uint64_t bytes, double cost)
{
	return k->every >= 0 ? k->every : 20 * (cost >= 0 ? cost : (double)bytes / 4e9);
}

static pthread_mutex_t timing = PTHREAD_MUTEX_INITIALIZER; /* k->last, k->cost */

/* Whether one is due now (under timing): the rounds since the last one,
 * or since the end of the first round, have taken long enough. */
static int due(struct ckpt *k, uint64_t bytes, double now)
{
	if (k->last < 0)
		k->last = now;
	return now - k->last >= wait_for(k, bytes, k->cost);
}

int ckpt_wanted(const struct ckpt *k, uint64_t bytes, double seconds)
{
	glob_t g;
	int left = k->resume && !k->ranks ? leftovers(k->resume, &g) : 0;
	if (left > 0)
		globfree(&g);
	if (k->resume && (access(k->resume, F_OK) == 0 || left > 0))
		return 1;
	return seconds >= wait_for(k, bytes, -1); /* (the first one's cost guessed) */
}

/* Tests: APSP_CHECKPOINT_KILL="during:N" kills the process once the Nth
 * checkpoint is written but not yet renamed into place, "after:N" once it
 * is (as a kill -9 at those moments would). */
static int test_kill(const char *when, int nth)
{
	const char *e = getenv("APSP_CHECKPOINT_KILL");
	size_t len = strlen(when);
	return e && strncmp(e, when, len) == 0 && e[len] == ':' && atoi(e + len + 1) == nth;
}

/* A checkpoint written and being made durable: synced, closed and renamed
 * over its name on a thread of its own, while the rounds go on (the data is
 * in the file already; only the sync waits for the disk). */
struct pending_sync {
	pthread_t tid;
	int fd, nth;
	char tmp[4096];
	const char *path;
	int rc;
	char why[200];
	int dropped;        /* the run no longer wants it (under sync_mu) */
	int renamed;        /* it is in place (under sync_mu) */
};
static struct pending_sync pending;
static int sync_busy;
static pthread_mutex_t sync_mu = PTHREAD_MUTEX_INITIALIZER; /* the rename, dropped */

static void *sync_and_rename(void *arg)
{
	struct pending_sync *l = arg;
	l->rc = 0;
	if (fsync(l->fd) != 0) {
		l->rc = -1;
		snprintf(l->why, sizeof l->why, "sync: %s", strerror(errno));
	}
	if (close(l->fd) != 0 && l->rc == 0) {
		l->rc = -1;
		snprintf(l->why, sizeof l->why, "close: %s", strerror(errno));
	}
	if (l->rc == 0 && test_kill("during", l->nth))
		raise(SIGKILL);
	pthread_mutex_lock(&sync_mu);
	if (l->dropped) {
		l->rc = -1;
		snprintf(l->why, sizeof l->why, "no longer wanted");
	} else if (l->rc == 0 && rename(l->tmp, l->path) != 0) {
		l->rc = -1;
		snprintf(l->why, sizeof l->why, "rename: %s", strerror(errno));
	} else if (l->rc == 0) {
		l->renamed = 1;
	}
	pthread_mutex_unlock(&sync_mu);
	if (l->rc < 0)
		unlink(l->tmp);
	else if (test_kill("after", l->nth))
		raise(SIGKILL);
	return NULL;
}

/* A sync and rename done: counted, or its failure said (once a run). */
static void count_synced(struct ckpt *k, const struct pending_sync *l)
{
	if (l->rc == 0) {
		k->written++;
		tool_mark("checkpoint written");
	} else if (!k->warned++) {
		tool_warn("%s: checkpoint not written (the run goes on): %s", k->path, l->why);
	}
}

/* Wait for the checkpoint being made durable, if any. */
static void wait_synced(struct ckpt *k)
{
	if (!sync_busy)
		return;
	pthread_join(pending.tid, NULL);
	sync_busy = 0;
	count_synced(k, &pending);
}

/* The run's result committed and its checkpoints to be removed: the one
 * being made durable, if any, is not waited for (the sync of gigabytes
 * from a device's run would hold up its end for seconds).  It is cut to
 * nothing, so that its sync ends soon, and removed; its thread renames
 * nothing and ends by itself.  Counted as written only where it was
 * renamed into place before it was dropped. */
static void drop_sync(struct ckpt *k)
{
	if (!sync_busy)
		return;
	pthread_mutex_lock(&sync_mu);
	pending.dropped = 1;
	if (pending.renamed)
		k->written++;
	pthread_mutex_unlock(&sync_mu);
	if (truncate(pending.tmp, 0) == 0)
		unlink(pending.tmp);
	pthread_detach(pending.tid);
	sync_busy = 0;
}

/* A matrix of the state, a block at a time, through the engine's copy. */
struct state_fill {
	fw_state_fn *get;
	void *ctx;
	int pred;
};

static int fill_state(void *ctx, uint64_t offset, void *dst, size_t n)
{
	const struct state_fill *f = ctx;
	return f->get(f->ctx, f->pred, offset, dst, n);
}

/* The header of a checkpoint of the state after round (bytes of
 * distances, paths): its side into *side.  0 or -1. */
static int state_header(const struct ckpt *k, uint64_t round, uint64_t bytes, int paths,
                        st_header *h, uint64_t *side, st_error *err)
{
	const uint64_t es = ST_TYPE_SIZE(k->type);
	uint64_t s = (uint64_t)sqrt((double)(bytes / es)); /* the state is square */
	while (s * s * es < bytes)
		s++;
	*side = s;
	st_header_init(h, s, 1, (enum st_type)k->type);
	h->matrices = ST_DIST | (paths ? ST_PRED : 0);
	if (k->ranks) { /* blocks of whole rows, so that every process's share is whole blocks */
		uint64_t rows = k->ranks->align;
		while (rows > 1 && s * 4 * rows > ((uint64_t)4 << 20))
			rows /= 2;
		h->block = (uint32_t)(s * 4 * rows);
	}
	char round_arg[64], of_arg[64], stage_arg[128], id_arg[300];
	snprintf(round_arg, sizeof round_arg, "round=%" PRIu64, round);
	snprintf(of_arg, sizeof of_arg, "of=%" PRIu64, k->rounds);
	snprintf(stage_arg, sizeof stage_arg, "stage=%s", k->stage);
	snprintf(id_arg, sizeof id_arg, "id=%s", k->id);
	char *argv[] = {round_arg, of_arg, stage_arg, id_arg};
	char **args = k->stage[0] ? argv : (char *[]){round_arg, of_arg, id_arg};
	return st_header_add_pg(h, CKPT_ID, APSP_VERSION, k->stage[0] ? 4 : 3, args, err);
}

/* Stored on a few cores, where deflating costs more than the disk saves;
 * deflated at level 1 from eight threads on (bench/checkpoint.md: 6.4 GB
 * on 16 cores, 3.0 s against 5.5 s).  Benchmarks: APSP_CHECKPOINT_LEVEL. */
static int state_level(void)
{
	const char *lv = getenv("APSP_CHECKPOINT_LEVEL");
	return lv ? atoi(lv) : tool_threads() >= 8 ? 1 : 0;
}

/* A process other than 0 of an MPI run: its rows of the state compressed
 * here and passed to process 0. */
static void send_share(const struct ckpt *k, const st_header *h, uint64_t side, int paths,
                       fw_state_fn *get, void *gctx)
{
	const struct ckpt_ranks *R = k->ranks;
	const uint64_t at = R->first_row * side * 4, len = (R->end_row - R->first_row) * side * 4;
	const size_t piece = (size_t)64 << 20;
	unsigned char *buf = malloc(piece);
	st_error err;
	for (int m = 0; m <= paths; m++) {
		const uint32_t matrix = m ? ST_PRED : ST_DIST;
		st_spool *s = st_spool_open_part(h, matrix, at, len, state_level(), tool_threads(), &err);
		if (!s || !buf)
			tool_die("process %d: checkpoint: %s", R->rank, s ? "out of memory" : err.msg);
		for (uint64_t off = 0; off < len; off += piece) {
			const size_t k2 = len - off < piece ? (size_t)(len - off) : piece;
			if (get(gctx, m, at + off, buf, k2) != 0 || st_spool_write(s, buf, k2, &err) < 0)
				tool_die("process %d: checkpoint: %s", R->rank, err.msg);
		}
		R->send(s, (int)matrix);
		st_spool_free(s);
	}
	free(buf);
}

/* Write the state (bytes of distances and, where paths, the predecessors
 * of as many entries at 4 bytes each, copied out by get) to a temporary
 * file beside k->path, then have it synced and renamed over k->path on a
 * thread of its own.  0, or -1 after a warning (the run goes on without
 * it). */
static int write_state(struct ckpt *k, uint64_t round, uint64_t bytes, int paths,
                       fw_state_fn *get, void *gctx)
{
	struct pending_sync *l = &pending;
	const struct ckpt_ranks *R = k->ranks;
	st_header h;
	uint64_t side;
	st_error err;
	int rc = state_header(k, round, bytes, paths, &h, &side, &err);
	if (R && R->rank > 0) {
		if (rc < 0)
			tool_die("process %d: checkpoint: %s", R->rank, err.msg);
		send_share(k, &h, side, paths, get, gctx);
		st_header_free(&h);
		return 0;
	}
	int fd = temp_beside(k->path, l->tmp, sizeof l->tmp);
	if (fd < 0) {
		if (!k->warned++)
			tool_warn("%s: cannot write a checkpoint (the run goes on):", k->path);
		for (int m = 0; R && m <= paths; m++) /* (the others' shares taken and dropped) */
			R->recv(NULL, m ? ST_PRED : ST_DIST, &err);
		st_header_free(&h);
		return -1;
	}
	st_writer *w = rc == 0 ? st_writer_open(fd, &h, state_level(), tool_threads(), &err) : NULL;
	if (!w)
		rc = -1;
	for (int m = 0; (w || R) && m <= paths; m++) { /* (predecessors: 4 bytes each) */
		struct state_fill f = {get, gctx, m};
		const uint64_t own = R ? R->end_row * side * 4 : m ? side * side * 4 : bytes;
		if (rc == 0 && st_write_fill(w, own, fill_state, &f, &err) < 0)
			rc = -1;
		if (R && R->recv(rc == 0 ? w : NULL, m ? ST_PRED : ST_DIST, &err) < 0)
			rc = -1; /* (every process's share taken, in order, even after a failure) */
		if (rc == 0 && st_write_end_matrix(w, &err) < 0)
			rc = -1;
	}
	if (w && rc < 0) {
		st_writer_abort(w);
	} else if (w) {
		rc = st_writer_close(w, &err); /* (frees w, also on error) */
	}
	st_header_free(&h);
	if (rc < 0) {
		close(fd);
		unlink(l->tmp);
		if (!k->warned++)
			tool_warn("%s: checkpoint not written (the run goes on): %s", k->path, err.msg);
		return -1;
	}
	l->fd = fd, l->nth = k->written + 1, l->path = k->path, l->dropped = 0, l->renamed = 0;
	if (pthread_create(&l->tid, NULL, sync_and_rename, l) == 0) {
		sync_busy = 1;
		return 0;
	}
	sync_and_rename(l); /* (no thread: here, waiting for the disk) */
	count_synced(k, l);
	return l->rc;
}

/* The state after round rounds written now. */
static void save_now(struct ckpt *k, uint64_t round, uint64_t bytes, int paths,
                     fw_state_fn *get, void *gctx)
{
	double t0 = lib_now();
	pthread_mutex_lock(&timing); /* (the GPU engine asks on its own thread meanwhile) */
	k->last = t0;
	pthread_mutex_unlock(&timing);
	ckpt_ready(k);
	wait_synced(k); /* the one before, made durable first */
	tool_progress_stage("writing a checkpoint");
	write_state(k, round, bytes, paths, get, gctx);
	double t1 = lib_now();
	pthread_mutex_lock(&timing);
	k->cost = t1 - t0;
	k->last = t1;
	pthread_mutex_unlock(&timing);
}

int ckpt_due(void *ctx, uint64_t bytes)
{
	struct ckpt *k = ctx;
	pthread_mutex_lock(&timing);
	int yes = k->path && due(k, bytes, lib_now());
	pthread_mutex_unlock(&timing);
	return k->ranks ? k->ranks->agree(yes) : yes;
}

/* The stage of the state and its steps, as the engine names them. */
static void set_stage(struct ckpt *k, const char *stage, uint64_t steps)
{
	snprintf(k->stage, sizeof k->stage, "%s", stage);
	k->rounds = steps;
}

void ckpt_save(void *ctx, const char *stage, uint64_t step, uint64_t steps, uint64_t side,
               int paths, fw_state_fn *get, void *gctx)
{
	struct ckpt *k = ctx;
	set_stage(k, stage, steps);
	save_now(k, step, side * side * ST_TYPE_SIZE(k->type), paths, get, gctx);
}

/* The value of field name ("round=") in the checkpoint's line, or NULL. */
static const char *field(const char *line, const char *name)
{
	const char *f = strstr(line, name);
	return f ? f + strlen(name) : NULL;
}

/* A matrix of the state, a window of rows at a time, through the engine's
 * copy. */
struct state_put {
	fw_state_fn *put;
	void *ctx;
	int pred;
	uint64_t row_bytes;
};

static int put_rows(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	const struct state_put *f = ctx;
	return f->put(f->ctx, f->pred, first * f->row_bytes, (void *)data, count * f->row_bytes);
}

/* A window of the state's rows put in pieces of about a MiB on the
 * reader's threads while the next is read (put may be called from several
 * threads at once): a GPU engine's host copy filled on every core. */
struct state_window {
	const struct state_put *f;
	uint64_t first, count, per; /* the window's rows, and a piece's */
	const unsigned char *data;
	int failed;
};

static uint64_t window_begin(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	struct state_window *w = ctx;
	w->first = first, w->count = count, w->data = data;
	w->per = ((uint64_t)1 << 20) / w->f->row_bytes + 1;
	return (count + w->per - 1) / w->per;
}

static void window_piece(void *ctx, uint64_t i)
{
	struct state_window *w = ctx;
	const uint64_t r0 = i * w->per, k = w->count - r0 < w->per ? w->count - r0 : w->per;
	if (put_rows((void *)w->f, w->first + r0, k, w->data + r0 * w->f->row_bytes) != 0)
		__atomic_store_n(&w->failed, 1, __ATOMIC_RELAXED);
}

static int window_end(void *ctx, uint64_t first, uint64_t count, const void *data)
{
	(void)first, (void)count, (void)data;
	return __atomic_load_n(&((struct state_window *)ctx)->failed, __ATOMIC_RELAXED);
}

/* A process of an MPI run: its own rows of the next matrix, the others'
 * passed over. */
static int read_share(const struct ckpt *k, st_reader *r, const struct state_put *f,
                      st_error *err)
{
	const struct ckpt_ranks *R = k->ranks;
	const uint64_t count = R->end_row - R->first_row;
	void *buf = malloc(count * f->row_bytes + 4);
	if (!buf) {
		snprintf(err->msg, sizeof err->msg, "out of memory for the checkpoint's rows");
		return -1;
	}
	int rc = st_read_row_range(r, R->first_row, count, buf, err);
	if (rc == 0 && put_rows((void *)f, R->first_row, count, buf) != 0)
		rc = -1;
	free(buf);
	return rc;
}

/* Whether the checkpoint whose header is h fits the run: 0 (the round to go
 * on from in *round), 1 where it is of another stage of this run (the
 * GPU's 16-bit lanes, or the 32-bit run that follows where they came too
 * close to their limit), -1 where it is refused (why says so). */
static int header_fits(const struct ckpt *k, const char *name, const st_header *h,
                       uint64_t bytes, int paths, int64_t *round, char *why, size_t len)
{
	const char *line = h->provenance ? strstr(h->provenance, "@PG\tID:" CKPT_ID "\t") : NULL;
	const char *id = line ? field(line, "id=") : NULL;
	const char *rs = line ? field(line, "round=") : NULL, *of = line ? field(line, "of=") : NULL;
	if (!id || !rs || !of) {
		snprintf(why, len, "%s: not a checkpoint", name);
		return -1;
	}
	size_t idlen = strcspn(id, "\n");
	if (idlen != strlen(k->id) || strncmp(id, k->id, idlen) != 0) {
		snprintf(why, len, "%s: the checkpoint of another run (%.*s), not of this one (%s)",
		         name, (int)idlen, id, k->id);
		return -1;
	}
	const char *st = field(line, "stage=");
	size_t stlen = st && st < id ? strcspn(st, " \t\n") : 0;
	if (stlen != strlen(k->stage) || (stlen && strncmp(st, k->stage, stlen) != 0)) {
		snprintf(why, len, "%s: a checkpoint of another stage of this run (%.*s)", name,
		         (int)stlen, stlen ? st : "none");
		return 1;
	}
	*round = strtoll(rs, NULL, 10);
	if (*round < 1 || (uint64_t)*round > k->rounds || strtoull(of, NULL, 10) != k->rounds
	    || h->type != k->type || st_matrix_bytes(h) != bytes
	    || h->matrices != (ST_DIST | (paths ? ST_PRED : 0))) {
		snprintf(why, len, "%s: a checkpoint that does not fit this run (round %lld of %.*s)",
		         name, (long long)*round, (int)strcspn(of, " \n"), of);
		return -1;
	}
	return 0;
}

/* A matrix of the state, a window of rows at a time through the engine's
 * copy. */
static int read_state(const struct ckpt *k, st_reader *r, const struct state_put *f,
                      st_error *err)
{
	if (k->ranks)
		return read_share(k, r, f, err);
	struct state_window w = {.f = f};
	const st_window_work work = {.begin = window_begin, .piece = window_piece,
	                             .end = window_end, .ctx = &w};
	return st_read_windows_beside(r, 64, &work, err);
}

/* Load the state from the checkpoint name (bytes of distances and, where
 * paths, the predecessors of as many entries, copied in by put): 0 with the
 * round to go on from in *round, 1 where it is of another stage, -1 with
 * why, -2 where there is no such file. */
static int load_file(struct ckpt *k, const char *name, uint64_t bytes, int paths,
                     fw_state_fn *put, void *pctx, int64_t *round, char *why, size_t len)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", name, strerror(errno));
		return errno == ENOENT ? -2 : -1;
	}
	st_header h;
	st_error err;
	st_reader *r = st_reader_open(fd, name, &h, tool_threads(), &err);
	if (!r) {
		close(fd);
		snprintf(why, len, "%s", err.msg);
		return -1;
	}
	const int fit = header_fits(k, name, &h, bytes, paths, round, why, len);
	int rc = fit;
	for (int m = 0; fit == 0 && rc == 0 && m <= paths; m++) {
		struct state_put f = {put, pctx, m, h.npad * (m ? 4 : ST_TYPE_SIZE(h.type))};
		if (st_next_matrix(r) != (m ? ST_PRED : ST_DIST))
			snprintf(why, len, "%s: a checkpoint without its matrices", name), rc = -1;
		else if (read_state(k, r, &f, &err) < 0)
			snprintf(why, len, "%s", err.msg), rc = -1;
	}
	if (st_reader_close(r, &err) < 0 && rc == 0)
		snprintf(why, len, "%s", err.msg), rc = -1;
	st_header_free(&h);
	close(fd);
	return rc;
}

/* The round of checkpoint name's header where it fits this run (this
 * stage), -2 where there is no such file, else -1. */
static int64_t round_of(const struct ckpt *k, const char *name, uint64_t bytes, int paths)
{
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -2 : -1;
	st_header h;
	st_error err;
	st_reader *r = st_reader_open(fd, name, &h, 1, &err);
	int64_t round = -1;
	char why[1024];
	if (r && header_fits(k, name, &h, bytes, paths, &round, why, sizeof why) != 0)
		round = -1;
	if (r) {
		st_reader_close(r, &err);
		st_header_free(&h);
	}
	close(fd);
	return r ? round : -1;
}

/* A checkpoint newer than k->resume's round (named; 0 where there is no
 * such file) that a killed run wrote whole beside it but had not yet synced
 * and put in its place: a kill leaves the page cache, and with it the file,
 * whole; its blocks' CRCs and end say whether it is.  The state loaded from
 * the newest of them that reads whole: its round, else -1 (one process; an
 * MPI run's share the named checkpoint's alone). */
static int64_t load_newer(struct ckpt *k, int64_t named, uint64_t bytes, int paths,
                          fw_state_fn *put, void *pctx)
{
	glob_t g;
	int count = k->ranks ? 0 : leftovers(k->resume, &g);
	int64_t got = -1;
	while (count > 0 && got < 0) {
		int best = -1;
		int64_t best_round = named;
		for (int i = 0; i < count; i++) {
			int64_t r = g.gl_pathv[i][0] ? round_of(k, g.gl_pathv[i], bytes, paths) : -1;
			if (r > best_round)
				best = i, best_round = r;
		}
		if (best < 0)
			break;
		char why[1024];
		int64_t round;
		if (load_file(k, g.gl_pathv[best], bytes, paths, put, pctx, &round, why, sizeof why)
		    == 0) {
			tool_info("%s: going on from round %lld of %llu, written whole by the run that "
			          "stopped but not yet synced", g.gl_pathv[best], (long long)round,
			          (unsigned long long)k->rounds);
			got = round;
		} else {
			tool_info("%s: passed over", why);
			g.gl_pathv[best][0] = 0;
		}
	}
	if (count > 0)
		globfree(&g);
	return got;
}

/* Load the state (bytes of distances and, where paths, the predecessors of
 * as many entries, copied in by put): the round to go on from, 0 where
 * there is no checkpoint yet, FW_CHECKPOINT_OTHER; dies on a checkpoint of
 * another run or a damaged one. */
static int64_t load_state(struct ckpt *k, uint64_t bytes, int paths, fw_state_fn *put,
                          void *pctx)
{
	ckpt_ready(k);
	if (!k->resume)
		return 0;
	/* (only where k->resume is missing or of this stage: one of another
	 * stage, or refused, is dealt with as it is) */
	int64_t named = round_of(k, k->resume, bytes, paths);
	int64_t round = named == -1 ? -1 : load_newer(k, named < 0 ? 0 : named, bytes, paths, put,
	                                             pctx);
	if (round >= 0)
		return round;
	char why[1024];
	int rc = load_file(k, k->resume, bytes, paths, put, pctx, &round, why, sizeof why);
	if (rc == -2) {
		tool_info("%s: no checkpoint yet: from the start", k->resume);
		return 0;
	}
	if (rc < 0)
		tool_die("%s", why);
	if (rc == 1) {
		tool_info("%s", why);
		return FW_CHECKPOINT_OTHER;
	}
	if (!k->ranks || k->ranks->rank == 0)
		tool_info("%s: going on from round %lld of %llu%s", k->resume, (long long)round,
		          (unsigned long long)k->rounds,
		          (uint64_t)round == k->rounds ? " (every round done)" : "");
	return round;
}

int64_t ckpt_load(void *ctx, const char *stage, uint64_t steps, uint64_t side, int paths,
                  fw_state_fn *put, void *pctx)
{
	struct ckpt *k = ctx;
	set_stage(k, stage, steps);
	return load_state(k, side * side * ST_TYPE_SIZE(k->type), paths, put, pctx);
}

/* Temporary checkpoints that a kill left behind beside path, removed. */
static void remove_leftovers(const char *path)
{
	glob_t g;
	int count = leftovers(path, &g);
	for (int i = 0; i < count; i++)
		unlink(g.gl_pathv[i]);
	if (count > 0)
		globfree(&g);
}

void ckpt_end(struct ckpt *k)
{
	ckpt_ready(k);
	/* (a test's kill while it is synced or after: waited for, so that it comes) */
	if (k->keep || test_kill("during", pending.nth) || test_kill("after", pending.nth))
		wait_synced(k);
	else
		drop_sync(k);
	if (k->ranks && k->ranks->rank > 0) /* (process 0 speaks for the run) */
		return;
	if (k->path && k->written)
		tool_info("%s: %d checkpoint%s written (the last took %.3f s)", k->path, k->written,
		          k->written == 1 ? "" : "s", k->cost);
	else if (k->path)
		tool_info("%s: no checkpoint written", k->path);
	if (k->path)
		remove_leftovers(k->path);
	if (k->resume)
		remove_leftovers(k->resume);
	if (k->keep)
		return;
	if (k->path && unlink(k->path) != 0 && errno != ENOENT)
		tool_warn("%s: checkpoint not removed:", k->path);
	if (k->resume && (!k->path || strcmp(k->resume, k->path)) && unlink(k->resume) != 0
	    && errno != ENOENT)
		tool_warn("%s: checkpoint not removed:", k->resume);
}
