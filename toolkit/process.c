/* process.c - the tools' process (tool.h): its teardown handed to a child
 * that the shell does not wait for, and loops on threads of its own. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tool.h"
#include "tool_internal.h"

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
