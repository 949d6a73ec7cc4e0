/* progress.c - the tools' progress on a terminal (tool.h): a line redrawn
 * in place at most a few times a second, with what is done and, where the
 * whole is known, the share of it. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "common.h"
#include "tool.h"
#include "tool_internal.h"

/* Progress state, guarded by progress_lock: engines may report from any
 * thread.  A thread that finds it taken skips its redraw. */
static pthread_mutex_t progress_lock = PTHREAD_MUTEX_INITIALIZER;
static int progress_drawn;       /* characters on the progress line now */
static double progress_last;     /* time of the last redraw, or of the start */

void tool_progress_init(void)
{
	progress_last = lib_now();
}

/* ---- progress ---- */

static int progress_on(void)
{
	if (tool_opts.progress >= 0)
		return tool_opts.progress;
	return tool_opts.verbose >= 1 && isatty(STDERR_FILENO);
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
	int len = snprintf(line, sizeof line, "%s: %s", tool_name(), what);
	progress_draw(line, len < (int)sizeof line ? len : (int)sizeof line - 1);
	pthread_mutex_unlock(&progress_lock);
}

/* Where the counted step now drawn began: its name, when, and its count
 * then (a new name, or a count going back, begins another). */
static const char *step_what;
static double step_t0;
static uint64_t step_done0;

/* s seconds as "42 s", "3 min 07 s" or "2 h 05 min" into buf. */
static void put_seconds(char *buf, size_t len, double s)
{
	const long long k = s > 0 ? (long long)(s + 0.5) : 0;
	if (k < 60)
		snprintf(buf, len, "%lld s", k);
	else if (k < 3600)
		snprintf(buf, len, "%lld min %02lld s", k / 60, k % 60);
	else
		snprintf(buf, len, "%lld h %02lld min", k / 3600, k % 3600 / 60);
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
	if (what != step_what || done < step_done0) {
		step_what = what, step_t0 = t, step_done0 = done;
	}
	/* As pv(1) does: the time the step has taken, and where the whole is
	 * known, the time left at its rate so far. */
	char spent[32], left[48] = "";
	put_seconds(spent, sizeof spent, t - step_t0);
	if (total && done > step_done0 && done < total && t - step_t0 >= 0.5) {
		char s[32];
		put_seconds(s, sizeof s, (t - step_t0) * (double)(total - done) / (double)(done - step_done0));
		snprintf(left, sizeof left, ", about %s left", s);
	}
	char line[200];
	int len;
	if (total)
		len = snprintf(line, sizeof line, "%s: %s %.0f%% (%llu/%llu), %s%s", tool_name(), what,
		               100.0 * (double)done / (double)total,
		               (unsigned long long)done, (unsigned long long)total, spent, left);
	else
		len = snprintf(line, sizeof line, "%s: %s %llu, %s", tool_name(), what,
		               (unsigned long long)done, spent);
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
