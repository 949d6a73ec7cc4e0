/* output.c - the tools' safe output (tool.h): "-o FILE" is written to a
 * temporary file in FILE's directory and renamed over FILE only by
 * tool_output_commit(), so a tool that dies (or is interrupted) leaves FILE
 * as it was.  Standard output is checked when it is closed, at commit or at
 * exit, so a full disk is an error and not exit 0.  A closed downstream pipe
 * ends the tool quietly: SIGPIPE keeps its default action, and an EPIPE seen
 * with SIGPIPE ignored exits as if killed by it. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tool.h"
#include "tool_internal.h"

/* An output being written: -o's (the first), or a second file beside it
 * (tool_side_fopen). */
struct output {
	const char *path;            /* as given; NULL or "-": standard output */
	char tmp_path[PATH_MAX];     /* pending temporary file, "" if none */
	char *target_path;           /* what tmp_path becomes at commit */
	int fd;
	FILE *file;
	int committed;
	/* The temporary file: see temp_open() */
	char temp_dir[PATH_MAX];     /* the target's directory, "." for none */
	const char *temp_base;       /* the target's last component */
	int temp_unnamed;            /* fd is an O_TMPFILE file */
	char resolved[PATH_MAX];     /* a symbolic link's target */
};
static struct output outputs[2] = {{.fd = -1}, {.fd = -1}};
static int stdout_checked;       /* stdout flushed and closed, or not ours to check */

void tool_output_drop(void)
{
	for (int i = 0; i < 2; i++)
		if (outputs[i].tmp_path[0]) {
			unlink(outputs[i].tmp_path);
			outputs[i].tmp_path[0] = '\0';
		}
}

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < 2; i++)
		if (outputs[i].tmp_path[0])
			unlink(outputs[i].tmp_path); /* async-signal-safe */
	signal(sig, SIG_DFL);
	raise(sig);
}

/* At exit: drop an uncommitted temporary file, and make sure everything the
 * tool put on stdout (help text, text output) really got there. */
void tool_output_at_exit(void)
{
	tool_output_drop();
	if (tool_dying || stdout_checked)
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
			tool_quiet_pipe_exit();
		fprintf(stderr, "%s: standard output: write error: %s\n", tool_name(), strerror(e));
		_exit(EXIT_TROUBLE);
	}
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

/* tmp_path := DIR/.BASE.PID.XXXXXX (XXXXXX left for the caller); 0 or -1. */
static int temp_name(struct output *o)
{
	int k = snprintf(o->tmp_path, sizeof o->tmp_path, "%s/.%s.%ld.XXXXXX", o->temp_dir,
	                 o->temp_base, (long)getpid());
	if (k < 0 || k >= (int)sizeof o->tmp_path) {
		o->tmp_path[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Remove the named temporary files of target's directory whose process is
 * gone (a kill -9 of an earlier run on a file system without O_TMPFILE). */
static void sweep_dead_temps(const struct output *o)
{
	char pattern[PATH_MAX + 32];
	if (snprintf(pattern, sizeof pattern, "%s/.%s.*.??????", o->temp_dir, o->temp_base)
	    >= (int)sizeof pattern)
		return;
	glob_t g;
	if (glob(pattern, GLOB_NOESCAPE | GLOB_NOSORT, NULL, &g) != 0)
		return;
	const size_t skip = strlen(o->temp_dir) + 2 + strlen(o->temp_base) + 1;
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
static int temp_open(struct output *o, const char *path)
{
	const char *slash = strrchr(path, '/');
	int k = slash ? snprintf(o->temp_dir, sizeof o->temp_dir, "%.*s",
	                         (int)(slash == path ? 1 : slash - path), path)
	              : snprintf(o->temp_dir, sizeof o->temp_dir, ".");
	if (k < 0 || k >= (int)sizeof o->temp_dir) {
		errno = ENAMETOOLONG;
		return -1;
	}
	o->temp_base = slash ? slash + 1 : path;
	sweep_dead_temps(o);
	if (access("/proc/self/fd", X_OK) == 0) { /* linkat() reaches the file through it */
		int fd = open(o->temp_dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
		if (fd >= 0) {
			o->temp_unnamed = 1;
			return fd;
		}
		if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOSYS)
			return -1;
	}
	if (temp_name(o) < 0)
		return -1;
	return mkstemp(o->tmp_path);
}

/* Give the unnamed temporary file fd a name (tmp_path); 0 or -1. */
static int temp_link(struct output *o, int fd)
{
	char proc[64];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	for (unsigned tries = 0; tries < 100; tries++) {
		if (temp_name(o) < 0)
			return -1;
		unsigned long v = (unsigned long)time(NULL) * 2654435761u + tries * 40503u + (unsigned long)getpid();
		char *x = o->tmp_path + strlen(o->tmp_path) - 6;
		for (int i = 0; i < 6; i++, v /= 36)
			x[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[v % 36];
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp_path, AT_SYMLINK_FOLLOW) == 0)
			return 0;
		if (errno != EEXIST)
			break;
	}
	o->tmp_path[0] = '\0';
	return -1;
}

static int output_open(struct output *o, int binary)
{
	const char *path = o->path;
	if (o->fd >= 0)
		return o->fd;
	if (!path || strcmp(path, "-") == 0) {
		refuse_terminal(STDOUT_FILENO, binary);
		o->fd = STDOUT_FILENO;
		tool_widen_pipe(o->fd);
		return o->fd;
	}
	struct stat st;
	int exists = stat(path, &st) == 0;
	if (exists && S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		tool_die("%s:", path);
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* A device or a pipe: nothing to replace atomically, write to it. */
		o->fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if (o->fd < 0)
			tool_die("%s:", path);
		refuse_terminal(o->fd, binary);
		o->target_path = (char *)path;
		return o->fd;
	}
	/* A regular file (or none yet): a temporary file beside it.  Through a
	 * symbolic link, beside the file it names, so the link stays a link. */
	struct stat lst;
	if (exists && lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode) && realpath(path, o->resolved))
		path = o->resolved;
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		if (signal(sigs[i], on_fatal_signal) == SIG_IGN)
			signal(sigs[i], SIG_IGN);
	o->fd = temp_open(o, path);
	if (o->fd < 0) {
		o->tmp_path[0] = '\0';
		tool_die("%s:", path);
	}
	mode_t mask = umask(0);
	umask(mask);
	fchmod(o->fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
	o->target_path = (char *)path;
	return o->fd;
}

static FILE *output_fopen(struct output *o, int binary)
{
	int fd = output_open(o, binary);
	if (o->file)
		return o->file;
	if (fd == STDOUT_FILENO) {
		o->file = stdout;
	} else {
		o->file = fdopen(fd, "w");
		if (!o->file)
			tool_die("%s:", o->path);
	}
	setvbuf(o->file, NULL, _IOFBF, 1 << 16);
	return o->file;
}

static const char *output_name(const struct output *o)
{
	return o->path && strcmp(o->path, "-") ? o->path : "standard output";
}

static void output_commit(struct output *o)
{
	if (o->committed)
		return;
	o->committed = 1;
	const char *name = output_name(o);
	int fd = o->fd >= 0 ? o->fd : STDOUT_FILENO;
	int bad = 0, e = 0;
	if (o->file && (fflush(o->file) != 0 || ferror(o->file))) {
		bad = 1;
		e = errno;
	}
	if (!bad && o->temp_unnamed && temp_link(o, fd) < 0)
		tool_die("%s: cannot name the finished output in %s:", name, o->temp_dir);
	if (o->file) {
		if (o->file != stdout) {
			if (fclose(o->file) != 0 && !bad) {
				bad = 1;
				e = errno;
			}
			fd = -1;
		}
	} else if (fd == STDOUT_FILENO && fflush(stdout) != 0) {
		bad = 1;
		e = errno;
	}
	/* (standard output as the second output stays open for the first) */
	const int first = o == &outputs[0];
	if (fd >= 0 && (fd != STDOUT_FILENO || first) && close(fd) != 0 && !bad
	    && errno != EBADF) {
		bad = 1;
		e = errno;
	}
	if (first && (fd == STDOUT_FILENO || o->file == stdout))
		stdout_checked = 1;
	if (bad) {
		if (e == EPIPE)
			tool_quiet_pipe_exit();
		errno = e;
		tool_die("%s: write error:", name);
	}
	if (o->tmp_path[0]) {
		if (rename(o->tmp_path, o->target_path) != 0)
			tool_die("cannot rename %s to %s:", o->tmp_path, o->target_path);
		o->tmp_path[0] = '\0';
	}
}

int tool_output_open(int binary)
{
	outputs[0].path = tool_opts.output;
	return output_open(&outputs[0], binary);
}

FILE *tool_output_fopen(int binary)
{
	outputs[0].path = tool_opts.output;
	return output_fopen(&outputs[0], binary);
}

const char *tool_output_name(void)
{
	return output_name(&(struct output){.path = tool_opts.output});
}

void tool_output_commit(void)
{
	if (outputs[0].committed)
		return;
	tool_progress_end();
	output_commit(&outputs[0]);
	tool_mark("output committed");
}

FILE *tool_side_fopen(const char *path)
{
	outputs[1].path = path;
	return output_fopen(&outputs[1], 0);
}

void tool_side_commit(void)
{
	output_commit(&outputs[1]);
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
				tool_quiet_pipe_exit();
			if (fd == outputs[0].fd || (outputs[0].fd < 0 && fd == STDOUT_FILENO))
				tool_die("%s: write error:", tool_output_name());
			tool_die("write error:");
		}
		p += k;
		len -= (size_t)k;
	}
}
