/* tool.c - what every apsp tool shares: common options, messages, safe
 * output, progress.  See tool.h.
 *
 * Output safety: "-o FILE" is written to a temporary file in FILE's directory
 * and renamed over FILE only by tool_output_commit(), so a tool that dies (or
 * is interrupted) leaves FILE as it was.  Standard output is checked when it
 * is closed, at commit or at exit, so a full disk is an error and not exit 0.
 * A closed downstream pipe ends the tool quietly: SIGPIPE keeps its default
 * action, and an EPIPE seen with SIGPIPE ignored exits as if killed by it. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "common.h"

struct tool_opts tool_opts = {
	.output = NULL, .threads = 0, .level = ST_LEVEL_DEFAULT,
	.verbose = 1, .force = 0, .progress = -1,
};

static const char *prog = "apsp";
static int prog_argc;
static char **prog_argv;
static int dying;                /* a fatal message was printed: skip exit checks */

/* Output state. */
static char tmp_path[PATH_MAX];  /* pending temporary file, "" if none */
static char *target_path;        /* what tmp_path becomes at commit */
static int out_fd = -1;
static FILE *out_file;
static int out_committed;
static int stdout_checked;       /* stdout flushed and closed, or not ours to check */

/* Progress state, guarded by progress_lock: engines may report from any
 * thread.  A thread that finds it taken skips its redraw. */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_drawn;       /* characters on the progress line now */
static double progress_last;     /* time of the last redraw, or of the start */

static void quiet_pipe_exit(void)
{
	/* The reader went away: end as a default SIGPIPE would, without a word. */
	signal(SIGPIPE, SIG_DFL);
	raise(SIGPIPE);
	_exit(128 + SIGPIPE);
}

static void remove_tmp(void)
{
	if (tmp_path[0]) {
		unlink(tmp_path);
		tmp_path[0] = '\0';
	}
}

static void on_fatal_signal(int sig)
{
	if (tmp_path[0])
		unlink(tmp_path); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* At exit: drop an uncommitted temporary file, and make sure everything the
 * tool put on stdout (help text, text output) really got there. */
static void at_exit(void)
{
	remove_tmp();
	if (dying || stdout_checked)
		return;
	stdout_checked = 1;
	int bad = fflush(stdout) != 0 || ferror(stdout);
	int e = errno;
	if (!bad && close(STDOUT_FILENO) != 0 && errno != EBADF) {
		bad = 1;
		e = errno;
	}
	if (bad) {
		if (e == EPIPE)
			quiet_pipe_exit();
		fprintf(stderr, "%s: standard output: write error: %s\n", prog, strerror(e));
		_exit(EXIT_TROUBLE);
	}
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
	 * the tool says so and removes its temporary file, instead of dying of
	 * SIGXFSZ with half a file left behind. */
	signal(SIGXFSZ, SIG_IGN);
	atexit(at_exit);
	progress_last = lib_now();
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

void tool_mark(const char *what)
{
	if (timeline < 0)
		timeline = getenv("APSP_TIMELINE") != NULL;
	if (!timeline)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	fprintf(stderr, "%s: at %lld.%06ld %s\n", prog, (long long)ts.tv_sec, ts.tv_nsec / 1000, what);
}

static void (*before_death)(void);

void tool_before_death(void (*fn)(void))
{
	before_death = fn;
}

_Noreturn static void die_now(int status)
{
	dying = 1;
	if (before_death) {
		void (*fn)(void) = before_death;
		before_death = NULL;
		fn();
	}
	remove_tmp();
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
		quiet_pipe_exit();
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
static void widen_pipe(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

const char *tool_input_name(const char *path)
{
	return !path || strcmp(path, "-") == 0 ? "standard input" : path;
}

int tool_open_input(const char *path)
{
	if (!path || strcmp(path, "-") == 0) {
		widen_pipe(STDIN_FILENO);
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

/* ---- output ---- */

static void refuse_terminal(int fd, int binary)
{
	if (binary && !tool_opts.force && isatty(fd))
		tool_die("refusing to write binary data to a terminal; use -f to force");
}

/* The output's temporary file.  Where the file system has them (ext4, xfs,
 * btrfs, tmpfs), an unnamed file (O_TMPFILE) in the target's directory,
 * which no kill can leave behind: tool_output_commit() links it under a
 * temporary name and renames that over the target at once.  Elsewhere a
 * named one, ".BASE.PID.XXXXXX", that a kill -9 leaves: the next run that
 * writes the same target removes those whose process is gone. */
static char temp_dir[PATH_MAX];  /* the target's directory, "." for none */
static const char *temp_base;    /* the target's last component */
static int temp_unnamed;         /* out_fd is an O_TMPFILE file */

/* tmp_path := DIR/.BASE.PID.XXXXXX (XXXXXX left for the caller); 0 or -1. */
static int temp_name(void)
{
	int k = snprintf(tmp_path, sizeof tmp_path, "%s/.%s.%ld.XXXXXX", temp_dir, temp_base,
	                 (long)getpid());
	if (k < 0 || k >= (int)sizeof tmp_path) {
		tmp_path[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Remove the named temporary files of target's directory whose process is
 * gone (a kill -9 of an earlier run on a file system without O_TMPFILE). */
static void sweep_dead_temps(void)
{
	char pattern[PATH_MAX + 32];
	if (snprintf(pattern, sizeof pattern, "%s/.%s.*.??????", temp_dir, temp_base)
	    >= (int)sizeof pattern)
		return;
	glob_t g;
	if (glob(pattern, GLOB_NOESCAPE | GLOB_NOSORT, NULL, &g) != 0)
		return;
	const size_t skip = strlen(temp_dir) + 2 + strlen(temp_base) + 1;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *p = g.gl_pathv[i] + skip, *dot = strchr(p, '.');
		char *end;
		long pid = strtol(p, &end, 10);
		if (end == p || end != dot || strlen(dot) != 7 || pid <= 0)
			continue; /* another name, or an older build's (no process to ask) */
		if (pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			unlink(g.gl_pathv[i]);
	}
	globfree(&g);
}

/* Open the temporary file for target path; -1 with errno where none. */
static int temp_open(const char *path)
{
	const char *slash = strrchr(path, '/');
	int k = slash ? snprintf(temp_dir, sizeof temp_dir, "%.*s", (int)(slash == path ? 1 : slash - path), path)
	              : snprintf(temp_dir, sizeof temp_dir, ".");
	if (k < 0 || k >= (int)sizeof temp_dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	temp_base = slash ? slash + 1 : path;
	sweep_dead_temps();
	if (access("/proc/self/fd", X_OK) == 0) { /* linkat() reaches the file through it */
		int fd = open(temp_dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			temp_unnamed = 1;
			return fd;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOSYS)
			return -1;
	}
	if (temp_name() < 0)
		return -1;
	return mkstemp(tmp_path);
}

/* Give the unnamed temporary file fd a name (tmp_path); 0 or -1. */
static int temp_link(int fd)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (unsigned tries = 0; tries < 100; tries++) {
		if (temp_name() < 0)
			return -1;
		unsigned long v = (unsigned long)time(NULL) * 2654435761u + tries * 40503u + (unsigned long)getpid();
		char *x = tmp_path + strlen(tmp_path) - 6;
		for (int i = 0; i < 6; i++, v /= 36)
			x[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[v % 36];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp_path, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	tmp_path[0] = '\0';
	return -1;
}

int tool_output_open(int binary)
{
	const char *path = tool_opts.output;
	if (out_fd >= 0)
		return out_fd;
	if (!path || strcmp(path, "-") == 0) {
		refuse_terminal(STDOUT_FILENO, binary);
		out_fd = STDOUT_FILENO;
		widen_pipe(out_fd);
		return out_fd;
	}
	struct stat st;
	int exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		tool_die("%s:", path);
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* A device or a pipe: nothing to replace atomically, write to it. */
		out_fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (out_fd < 0)
			tool_die("%s:", path);
		refuse_terminal(out_fd, binary);
		target_path = (char *)path;
		return out_fd;
	}
	/* A regular file (or none yet): a temporary file beside it.  Through a
	 * symbolic link, beside the file it names, so the link stays a link. */
	struct stat lst;
	static char resolved[PATH_MAX];
	if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, resolved))
		path = resolved;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		if (signal(sigs[i], on_fatal_signal) == SIG_IGN)
			signal(sigs[i], SIG_IGN);
	out_fd = temp_open(path);
	if (out_fd < 0) {
		tmp_path[0] = '\0';
		tool_die("%s:", path);
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(out_fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
	target_path = (char *)path;
	return out_fd;
}

FILE *tool_output_fopen(int binary)
{
	int fd = tool_output_open(binary);
	if (out_file)
		return out_file;
	if (fd == STDOUT_FILENO) {
		out_file = stdout;
	} else {
		out_file = fdopen(fd, "w");
		if (!out_file)
			tool_die("%s:", tool_opts.output);
	}
	setvbuf(out_file, NULL, _IOFBF, 1 << 16);
	return out_file;
}

const char *tool_output_name(void)
{
	const char *path = tool_opts.output;
	return path && strcmp(path, "-") ? path : "standard output";
}

void tool_output_commit(void)
{
	if (out_committed)
		return;
	out_committed = 1;
	tool_progress_end();
	const char *name = tool_output_name();
	int fd = out_fd >= 0 ? out_fd : STDOUT_FILENO;
	int bad = 0, e = 0;
	if (out_file && (fflush(out_file) != 0 || ferror(out_file))) {
		bad = 1;
		e = errno;
	}
	if (!bad && temp_unnamed && temp_link(fd) < 0)
		tool_die("%s: cannot name the finished output in %s:", name, temp_dir);
	if (out_file) {
		if (out_file != stdout) {
			if (fclose(out_file) != 0 && !bad) {
				bad = 1;
				e = errno;
			}
			fd = -1;
		}
	} else if (fd == STDOUT_FILENO && fflush(stdout) != 0) {
		bad = 1;
		e = errno;
	}
	if (fd >= 0 && close(fd) != 0 && !bad && errno != EBADF) {
		bad = 1;
		e = errno;
	}
	if (fd == STDOUT_FILENO || out_file == stdout)
		stdout_checked = 1;
	if (bad) {
		if (e == EPIPE)
			quiet_pipe_exit();
		errno = e;
		tool_die("%s: write error:", name);
	}
	if (tmp_path[0]) {
		if (rename(tmp_path, target_path) != 0)
			tool_die("cannot rename %s to %s:", tmp_path, target_path);
		tmp_path[0] = '\0';
	}
	tool_mark("output committed");
}

void tool_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len) {
		ssize_t k = write(fd, p, len);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EPIPE)
				quiet_pipe_exit();
			if (fd == out_fd || (out_fd < 0 && fd == STDOUT_FILENO))
				tool_die("%s: write error:", tool_output_name());
			tool_die("write error:");
		}
		p += k;
		len -= (size_t)k;
	}
}

/* ---- progress ---- */

static int progress_on(void)
{
	if (tool_opts.progress >= 0)
		return tool_opts.progress;
	return tool_opts.verbose >= 1 && isatty(STDERR_FILENO);
}


double tool_physical_memory(void)
{
	return (double)lib_physical_memory();
}

/* Draw line in place of the progress line; the caller holds progress_lock. */
static void progress_draw(const char *line, int len)
{
	int pad = progress_drawn > len ? progress_drawn - len : 0;
	fprintf(stderr, "\r%s%*s", line, pad, "");
	if (pad)
		fprintf(stderr, "\r%s", line);
	fflush(stderr);
	progress_drawn = len;
	progress_last = lib_now();
}

static int progress_enabled(void)
{
	static int enabled = -1;
	if (enabled < 0)
		enabled = progress_on();
	return enabled;
}

void tool_progress_stage(const char *what)
{
	if (!progress_enabled())
		return;
	pthread_mutex_lock(&progress_lock);
	char line[160];
	int len = snprintf(line, sizeof line, "%s: %s", prog, what);
	progress_draw(line, len < (int)sizeof line ? len : (int)sizeof line - 1);
	pthread_mutex_unlock(&progress_lock);
}

void tool_progress(const char *what, uint64_t done, uint64_t total)
{
	if (!progress_enabled() || pthread_mutex_trylock(&progress_lock) != 0)
		return;
	double t = lib_now();
	/* At most 5 redraws a second, and nothing in the first 0.2 s of the run. */
	if (t - progress_last < 0.2) {
		pthread_mutex_unlock(&progress_lock);
		return;
	}
	char line[160];
	int len;
	if (total)
		len = snprintf(line, sizeof line, "%s: %s %.0f%% (%llu/%llu)", prog, what,
		               100.0 * (double)done / (double)total,
		               (unsigned long long)done, (unsigned long long)total);
	else
		len = snprintf(line, sizeof line, "%s: %s %llu", prog, what,
		               (unsigned long long)done);
	if (len >= (int)sizeof line)
		len = sizeof line - 1;
	progress_draw(line, len);
	pthread_mutex_unlock(&progress_lock);
}

void tool_progress_end(void)
{
	if (pthread_mutex_trylock(&progress_lock) != 0)
		return;
	if (progress_drawn) {
		fprintf(stderr, "\r%*s\r", progress_drawn, "");
		fflush(stderr);
		progress_drawn = 0;
	}
	progress_last = lib_now();
	pthread_mutex_unlock(&progress_lock);
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

int tool_threads(void)
{
	return lib_threads(tool_opts.threads);
}

/* ---- handing the teardown away ---- */

static int done_fd = -1;      /* the child's end of the status pipe */
static pid_t worker_pid;       /* the parent's child */

static void forward_signal(int sig)
{
	if (worker_pid > 0)
		kill(worker_pid, sig);
}

void tool_detach_teardown(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return; /* the leak check runs at exit: its verdict must be the status */
#endif
	const char *env = getenv("APSP_DETACH");
	if (env && !strcmp(env, "0"))
		return; /* for tools that follow one process (compute-sanitizer) */
	int p[2];
	if (pipe(p) != 0)
		return; /* then the process tears itself down, as any other */
	fflush(stdout);
	fflush(stderr);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		/* The child does the work.  It dies with its parent, so a parent
		 * killed outright leaves nothing running on. */
		close(p[0]);
		done_fd = p[1];
		fcntl(done_fd, F_SETFD, FD_CLOEXEC);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(EXIT_TROUBLE);
		return;
	}
	/* The parent holds no input, no output and no device: it waits for the
	 * child's word that the result is committed, and ends with its status. */
	worker_pid = pid;
	close(p[1]);
	close(STDIN_FILENO);
	close(STDOUT_FILENO);
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		signal(sigs[i], forward_signal);
	unsigned char status;
	ssize_t r;
	while ((r = read(p[0], &status, 1)) < 0 && errno == EINTR)
		;
	if (r == 1)
		_exit(status);
	/* The child ended without that word (an error, a signal): end as it did. */
	int ws;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			_exit(EXIT_TROUBLE);
	if (WIFSIGNALED(ws)) {
		signal(WTERMSIG(ws), SIG_DFL);
		raise(WTERMSIG(ws));
		_exit(128 + WTERMSIG(ws));
	}
	_exit(WIFEXITED(ws) ? WEXITSTATUS(ws) : EXIT_TROUBLE);
}

void tool_done(int status)
{
	if (done_fd < 0)
		return;
	fflush(stdout);
	fflush(stderr);
	unsigned char b = (unsigned char)status;
	while (write(done_fd, &b, 1) < 0 && errno == EINTR)
		;
	close(done_fd);
	done_fd = -1;
}

/* ---- a parallel loop on threads of its own ---- */

struct par_arg {
	void (*fn)(void *ctx, uint64_t begin, uint64_t end);
	void *ctx;
	uint64_t begin, end;
};

static void *par_thread(void *arg)
{
	struct par_arg *a = arg;
	a->fn(a->ctx, a->begin, a->end);
	return NULL;
}

void tool_parallel(int threads, uint64_t n, void (*fn)(void *ctx, uint64_t begin, uint64_t end),
                   void *ctx)
{
	if (threads <= 0)
		threads = tool_threads();
	if ((uint64_t)threads > n)
		threads = n ? (int)n : 1;
	struct par_arg a[256];
	pthread_t tid[256];
	if (threads > 256)
		threads = 256;
	int started = 0;
	for (int t = 0; t < threads; t++)
		a[t] = (struct par_arg){fn, ctx, n * (uint64_t)t / (uint64_t)threads,
		                        n * (uint64_t)(t + 1) / (uint64_t)threads};
	for (int t = 1; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, par_thread, &a[t]) != 0)
			break;
		started = t;
	}
	/* chunks whose thread did not start run here */
	for (int t = started + 1; t < threads; t++)
		fn(ctx, a[t].begin, a[t].end);
	fn(ctx, a[0].begin, a[0].end);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
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
		int nodist = !(h->matrices & ST_DIST);
		st_reader_free(r);
		st_header_free(h);
		if (nodist)
			tool_die("%s: the stream holds no distances (run apsp-cpu or apsp-gpu first)", name);
		tool_die("%s: the stream holds no predecessors (computed with --no-paths?)", name);
	}
	return r;
}
