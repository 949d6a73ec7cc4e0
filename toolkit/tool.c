/* tool.c - what every apsp tool shares (tool.h): its name and command
 * line, messages and death, the common options, input, provenance; its
 * safe output, progress and process are beside it (output.c, progress.c,
 * process.c), on tool_internal.h.  The tool kit (toolkit/) sits below the
 * programs (tools/) and the machinery they run on (run/). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "tool_internal.h"
#include "common.h"

struct tool_opts tool_opts = {
	.output = NULL, .threads = 0, .level = ST_LEVEL_DEFAULT,
	.verbose = 1, .force = 0, .progress = -1,
};

static const char *prog = "apsp";
static int prog_argc;
static char **prog_argv;
int tool_dying;                  /* a fatal message was printed: skip exit checks */

_Noreturn void tool_quiet_pipe_exit(void)
{
	/* The reader went away: end as a default SIGPIPE would, without a word. */
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

static void mark_at_exit(void)
{
	tool_mark("exit");
}

void tool_init(const char *name, int argc, char **argv)
{
	prog = name;
	prog_argc = argc;
	prog_argv = argv;
	/* getopt's messages and the provenance name the tool, not its path. */
	if (argc > 0)
		argv[0] = (char *)name;
	signal(SIGPIPE, SIG_DFL);
	/* A file-size limit (ulimit -f) is a full disk: write() fails with EFBIG,
	 * the tool says so and removes its temporary file, instead of tool_dying of
	 * SIGXFSZ with half a file left behind. */
	signal(SIGXFSZ, SIG_IGN);
	atexit(mark_at_exit); /* (registered first: runs last) */
	atexit(tool_output_at_exit);
	tool_progress_init();
	tool_mark("start");
}

const char *tool_name(void)
{
	return prog;
}

/* ---- messages ---- */

static void vmessage(const char *fmt, va_list ap)
{
	int e = errno;
	size_t len = strlen(fmt);
	tool_progress_end();
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (len && fmt[len - 1] == ':')
		fprintf(stderr, " %s", strerror(e));
	fputc('\n', stderr);
}

/* Said where -q and -v leave the verbosity at least at level. */
#define MESSAGE_AT(level, fmt)                  \
	do {                                    \
		if (tool_opts.verbose < (level)) \
			return;                 \
		va_list ap;                     \
		va_start(ap, fmt);              \
		vmessage(fmt, ap);              \
		va_end(ap);                     \
	} while (0)

void tool_warn(const char *fmt, ...)
{
	MESSAGE_AT(1, fmt);
}

void tool_info(const char *fmt, ...)
{
	MESSAGE_AT(2, fmt);
}

static int timeline = -1;
static int mark_process = -1; /* under mpirun, the process's number */

void tool_mark_process(int rank)
{
	mark_process = rank;
}

void tool_mark(const char *what)
{
	if (timeline < 0)
		timeline = getenv("APSP_TIMELINE") != NULL;
	if (!timeline)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	if (mark_process >= 0)
		fprintf(stderr, "%s: process %d at %lld.%06ld %s\n", prog, mark_process,
		        (long long)ts.tv_sec, ts.tv_nsec / 1000, what);
	else
		fprintf(stderr, "%s: at %lld.%06ld %s\n", prog, (long long)ts.tv_sec, ts.tv_nsec / 1000,
		        what);
}

static void (*before_death)(void);

void tool_before_death(void (*fn)(void))
{
	before_death = fn;
}

_Noreturn static void die_now(int status)
{
	tool_dying = 1;
	if (before_death) {
		void (*fn)(void) = before_death;
		before_death = NULL;
		fn();
	}
	tool_output_drop();
	exit(status);
}

_Noreturn void tool_die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	die_now(EXIT_TROUBLE);
}

_Noreturn void tool_die_status(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	die_now(status);
}

_Noreturn void tool_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage(fmt, ap);
	va_end(ap);
	fprintf(stderr, "Try '%s --help' for more information.\n", prog);
	die_now(EXIT_TROUBLE);
}

_Noreturn void tool_die_st(const char *what, const st_error *err)
{
	if (strstr(err->msg, strerror(EPIPE)))
		tool_quiet_pipe_exit();
	if (what && *what)
		tool_die("%s: %s", what, err->msg);
	tool_die("%s", err->msg);
}

/* ---- options ---- */

/* tool_text_output(): the tool writes text, so -z and -f mean nothing. */
static int text_only;

void tool_text_output(void)
{
	text_only = 1;
}

int tool_common_option(int c, const char *arg, void (*usage)(FILE *))
{
	switch (c) {
	case 'h':
		usage(stdout);
		exit(EXIT_OK);
	case 'V':
		printf("%s (apsp) %s\n", prog, APSP_VERSION);
		exit(EXIT_OK);
	case 'o':
		if (!*arg) /* refused now, not at the rename after the whole job */
			tool_usage_error("-o: the file name is empty");
		tool_opts.output = arg;
		return 1;
	case 'T':
		tool_opts.threads = (int)tool_parse_ll("-T", arg, 0, 4096);
		return 1;
	case 'z':
		if (text_only)
			tool_usage_error("-z: %s writes text, not a compressed stream", prog);
		tool_opts.level = (int)tool_parse_ll("-z", arg, 0, 9);
		return 1;
	case 'q':
		tool_opts.verbose--;
		return 1;
	case 'v':
		tool_opts.verbose++;
		return 1;
	case 'f':
		if (text_only)
			tool_usage_error("-f: %s writes text, which goes to a terminal as it is", prog);
		tool_opts.force = 1;
		return 1;
	case TOOL_OPT_PROGRESS:
		tool_opts.progress = 1;
		return 1;
	case TOOL_OPT_NO_PROGRESS:
		tool_opts.progress = 0;
		return 1;
	case '?':
		/* getopt_long has already named the bad option. */
		fprintf(stderr, "Try '%s --help' for more information.\n", prog);
		die_now(EXIT_TROUBLE);
	}
	return 0;
}

void tool_common_help(FILE *f, int binary_output)
{
	fputs("Common options:\n"
	      "  -o, --output FILE   write to FILE (replaced only on success), not stdout\n"
	      "  -T, --threads N     use N threads (default 0: all cores)\n", f);
	if (binary_output)
		fprintf(f,
		        "  -z, --level N       deflate level 0 (store) .. 9 (default %d)\n"
		        "  -f, --force         write binary data even to a terminal\n",
		        ST_LEVEL_DEFAULT);
	fputs("  -q, --quiet         print no warnings\n"
	      "  -v, --verbose       say more\n"
	      "      --progress      show progress on stderr even if it is not a terminal\n"
	      "      --no-progress   never show progress\n"
	      "  -h, --help          print this help and exit\n"
	      "  -V, --version       print the version and exit\n", f);
}

long long tool_parse_ll(const char *opt, const char *s, long long lo, long long hi)
{
	char *end;
	errno = 0;
	if (!s || !*s || !(s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9')))
		tool_usage_error("%s: '%s' is not an integer", opt, s ? s : "");
	long long v = strtoll(s, &end, 10);
	if (*end)
		tool_usage_error("%s: '%s' is not an integer", opt, s);
	if (errno == ERANGE || v < lo || v > hi)
		tool_usage_error("%s: %s is out of range (%lld..%lld)", opt, s, lo, hi);
	return v;
}

double tool_parse_double(const char *opt, const char *s)
{
	char *end;
	errno = 0;
	if (!s || !*s || !(s[0] == '-' || s[0] == '+' || s[0] == '.' || (s[0] >= '0' && s[0] <= '9')))
		tool_usage_error("%s: '%s' is not a number", opt, s ? s : "");
	double v = strtod(s, &end);
	if (*end)
		tool_usage_error("%s: '%s' is not a number", opt, s);
	if (errno == ERANGE || !isfinite(v))
		tool_usage_error("%s: %s is out of range", opt, s);
	return v;
}

/* ---- input ---- */

/* Matrices cross pipes by the hundred megabytes: a 1 MiB pipe buffer (the
 * unprivileged maximum by default) takes 16 times fewer context switches
 * than the default 64 KiB.  Either end may set it; failure is harmless. */
void tool_widen_pipe(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

const char *tool_input_name(const char *path)
{
	return !path || strcmp(path, "-") == 0 ? "standard input" : path;
}

void tool_refuse_terminal_input(const char *path)
{
	if ((!path || !strcmp(path, "-")) && isatty(STDIN_FILENO))
		tool_usage_error("refusing to read binary data from a terminal; give a FILE or a pipe");
}

int tool_open_input(const char *path)
{
	if (!path || strcmp(path, "-") == 0) {
		tool_widen_pipe(STDIN_FILENO);
		return STDIN_FILENO;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		tool_die("%s:", path);
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		tool_die("%s:", path);
	}
	return fd;
}

/* ---- the rest ---- */

/* Options the provenance leaves out (NULL-terminated; "--name=" takes a value). */
static const char *const *prov_omit;

void tool_provenance_omit(const char *const *opts)
{
	prov_omit = opts;
}

/* How many words of argv at i an omitted option takes ("--opt value",
 * "--opt=value", "--flag"), or 0 for a word to keep. */
static int omitted(int i)
{
	const char *a = prog_argv[i];
	for (const char *const *o = prov_omit; o && *o; o++) {
		size_t len = strlen(*o);
		const int valued = len && (*o)[len - 1] == '=';
		len -= (size_t)valued;
		if (strncmp(a, *o, len) != 0 || (a[len] && a[len] != '='))
			continue;
		return valued && !a[len] && i + 1 < prog_argc ? 2 : 1;
	}
	return 0;
}

void tool_add_provenance(st_header *h)
{
	st_error err;
	char **argv = malloc(((size_t)prog_argc + 1) * sizeof *argv);
	if (!argv)
		tool_die("out of memory");
	int argc = 0, operands = 0;
	for (int i = 0; i < prog_argc;) {
		int skip = i > 0 && !operands ? omitted(i) : 0;
		operands |= !strcmp(prog_argv[i], "--");
		if (!skip)
			argv[argc++] = prog_argv[i++];
		i += skip;
	}
	int rc = st_header_add_pg(h, prog, APSP_VERSION, argc, argv, &err);
	free(argv);
	if (rc < 0)
		tool_die_st("provenance", &err);
}

static int cores_shared = 1;

void tool_share_cores(int ways)
{
	cores_shared = ways > 1 ? ways : 1;
}

int tool_threads(void)
{
	if (tool_opts.threads > 0)
		return tool_opts.threads;
	const int cores = lib_cores() / cores_shared;
	return cores > 1 ? cores : 1;
}

double tool_physical_memory(void)
{
	return (double)lib_physical_memory();
}

const char *tool_memory_refusal(char *why, size_t len, uint64_t n, double need, int power)
{
	const double have = tool_physical_memory();
	if (have <= 0 || need <= have)
		return NULL;
	return lib_memory_refusal(why, len, n, need, have, power);
}

void tool_refuse_checkpoint(const char *name, st_reader *r, st_header *h)
{
	if (!st_header_is_checkpoint(h))
		return;
	st_reader_free(r);
	st_header_free(h);
	tool_die("%s: " ST_CHECKPOINT_REFUSAL, name);
}

st_reader *tool_open_result(const char *input, st_header *h, uint64_t base, int need_pred,
                            int threads, int *fdp)
{
	const char *name = tool_input_name(input);
	tool_refuse_terminal_input(input);
	int fd = tool_open_input(input);
	if (fdp)
		*fdp = fd;
	st_error err;
	st_reader *r = st_reader_open(fd, name, h, threads, &err);
	if (!r)
		tool_die_st(NULL, &err);
	/* Free the reader before these deaths: clean under LeakSanitizer. */
	tool_refuse_checkpoint(name, r, h);
	if (h->flags & ST_NEGCYCLE) {
		long long v = (long long)h->cycle_vertex + (long long)base;
		st_reader_free(r);
		st_header_free(h);
		tool_die_status(EXIT_NEGCYCLE,
		                "%s: the graph has a negative cycle through vertex %lld: no shortest paths",
		                name, v);
	}
	if (!(h->matrices & ST_DIST) || (need_pred && !(h->matrices & ST_PRED))) {
		const int nodist = !(h->matrices & ST_DIST), table = !!(h->matrices & ST_TARGETS);
		const int arcs = !!(h->matrices & ST_ARCS);
		st_reader_free(r);
		st_header_free(h);
		if (nodist)
			tool_die("%s: the stream holds no distances (%srun apsp-cpu or apsp-gpu first)",
			         name, arcs ? "a graph as a list of arcs: " : "");
		if (table)
			tool_die("%s: " ST_TABLE_REFUSAL ": it holds no predecessors (for paths, the "
			         "sources' rows: --sources without --targets)", name);
		tool_die("%s: the stream holds no predecessors (computed with --no-paths?)", name);
	}
	return r;
}
