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

static char tmp_path[PATH_MAX];  /* pending temporary file, "" if none */
static char *target_path;        /* what tmp_path becomes at commit */
static int out_fd = -1;
static FILE *out_file;
static int out_committed;
static int stdout_checked;       /* stdout flushed and closed, or not ours to check */

void tool_output_drop(void)
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
		tool_widen_pipe(out_fd);
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
			tool_quiet_pipe_exit();
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
				tool_quiet_pipe_exit();
			if (fd == out_fd || (out_fd < 0 && fd == STDOUT_FILENO))
				tool_die("%s: write error:", tool_output_name());
			tool_die("write error:");
		}
		p += k;
		len -= (size_t)k;
	}
}
