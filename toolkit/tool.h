/* tool.h - what every apsp tool shares: common options, messages, safe
 * output, progress.  Only tools include this; the library never exits. */
#ifndef APSP_TOOL_H
#define APSP_TOOL_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "stream.h"

#define APSP_VERSION "0.1.0"

/* Exit statuses shared by all tools (see each tool's EXIT STATUS). */
enum {
	EXIT_OK = 0,
	EXIT_DIFFERENT = 1, /* apsp-diff: different; apsp-path: unreachable pair */
	EXIT_TROUBLE = 2,   /* usage, input or I/O error */
	EXIT_NEGCYCLE = 3,  /* the graph has a negative cycle */
};

/* Options every tool takes.  Filled by tool_common_option(). */
struct tool_opts {
	const char *output;  /* -o FILE, NULL = stdout */
	int threads;         /* -T N, 0 = all cores */
	int level;           /* -z LEVEL */
	int verbose;         /* -v raises, -q lowers; default 1 */
	int force;           /* -f: write binary to a terminal */
	int progress;        /* -1 auto (stderr is a terminal), 0 off, 1 on */
};
extern struct tool_opts tool_opts;

/* Short and long options handled by tool_common_option(); a tool's own
 * option strings are appended to these. */
#define TOOL_SHORTOPTS "hVo:T:z:qvf"
enum { TOOL_OPT_PROGRESS = 0x1000, TOOL_OPT_NO_PROGRESS };
#define TOOL_LONGOPTS                                               \
	{"help", no_argument, 0, 'h'}, {"version", no_argument, 0, 'V'}, \
	{"output", required_argument, 0, 'o'},                           \
	{"threads", required_argument, 0, 'T'},                          \
	{"level", required_argument, 0, 'z'},                            \
	{"quiet", no_argument, 0, 'q'}, {"verbose", no_argument, 0, 'v'}, \
	{"force", no_argument, 0, 'f'},                                  \
	{"progress", no_argument, 0, TOOL_OPT_PROGRESS},                 \
	{"no-progress", no_argument, 0, TOOL_OPT_NO_PROGRESS}

/* Call first: records the program name and command line (for provenance). */
void tool_init(const char *name, int argc, char **argv);
const char *tool_name(void);

/* A tool that writes text calls this after tool_init(): -z and -f, which
 * concern binary streams, are then refused as usage errors. */
void tool_text_output(void);
/* Handle option c if it is a common one; returns 1 if handled, 0 if not.
 * 'h' calls usage(stdout) and exits 0; 'V' prints the version, exits 0. */
int tool_common_option(int c, const char *arg, void (*usage)(FILE *));
/* Help lines for the common options, for a tool's usage(). */
void tool_common_help(FILE *f, int binary_output);

/* Messages: "tool: message" on stderr.  A format ending in ':' appends
 * strerror(errno).  die exits 2 (after removing a pending -o file). */
void tool_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tool_info(const char *fmt, ...) __attribute__((format(printf, 1, 2))); /* only with -v */
/* With APSP_TIMELINE set in the environment: "tool: at SECONDS what" on
 * stderr, SECONDS from CLOCK_REALTIME, so that bench/pipeline.sh can lay the
 * stages of a pipeline's tools side by side.  Nothing otherwise. */
void tool_mark(const char *what);
/* Under mpirun: the marks say "process RANK at SECONDS what". */
void tool_mark_process(int rank);
_Noreturn void tool_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void tool_die_status(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* fn runs once before a tool dies (after its message, before exit()), for
 * work that must end first, such as a thread inside a library that exit()
 * tears down. */
void tool_before_death(void (*fn)(void));
/* Usage error: message, a hint to try --help, exit 2. */
_Noreturn void tool_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Parse numbers strictly (whole string, range); die with a usage error naming
 * the option otherwise. */
long long tool_parse_ll(const char *opt, const char *s, long long lo, long long hi);
double tool_parse_double(const char *opt, const char *s);

/* Input: path NULL or "-" is stdin.  Returns an fd; dies with a message. */
int tool_open_input(const char *path);
/* A usage error where path is stdin and stdin a terminal: a tool that reads
 * a binary stream would wait there with no hint. */
void tool_refuse_terminal_input(const char *path);
/* The name every message gives an input: "standard input" for NULL or "-". */
const char *tool_input_name(const char *path);

/* Output.  tool_output_open() returns an fd for tool_opts.output (or
 * stdout): a named file is written as a temporary file beside it and only
 * renamed over it by tool_output_commit().  binary: refuse a terminal
 * unless -f.  tool_output_commit() checks every byte reached the disk or
 * pipe (close errors too) and dies otherwise.  If the tool dies first, the
 * temporary file is removed. */
int tool_output_open(int binary);
FILE *tool_output_fopen(int binary); /* same, as a stdio stream */
void tool_output_commit(void);
/* A second output beside -o's (apsp-cpu --edge-betweenness FILE), written
 * as safely: a device or a FIFO written to, a symbolic link written
 * through, a regular file replaced only by tool_side_commit() with the
 * mode of the file it replaces (else 0666 less the umask), nothing left
 * behind by a kill; "-" is standard output.  Text (no terminal refusal). */
FILE *tool_side_fopen(const char *path);
void tool_side_commit(void);
/* The name every message gives the output: -o's file or "standard output". */
const char *tool_output_name(void);

/* Write all of buf to fd; dies on error ("NAME: write error: ...", NAME the
 * output's name where fd is the output's); a closed pipe
 * ends the program quietly. */
void tool_write_all(int fd, const void *buf, size_t len);

/* Progress on stderr, only if enabled (see tool_opts.progress), redrawn at
 * most a few times a second.  done/total in units of what. */
void tool_progress(const char *what, uint64_t done, uint64_t total);
/* Progress: a step without a count begins (drawn at once, where progress
 * is shown), until the next tool_progress or stage replaces it. */
void tool_progress_stage(const char *what);
/* This machine's physical memory in bytes. */
double tool_physical_memory(void);
/* Where need bytes (for n vertices, growing as n^power) exceed this
 * machine's memory: the refusal in the one phrasing (lib_memory_refusal)
 * written into why, which is returned; else NULL. */
const char *tool_memory_refusal(char *why, size_t len, uint64_t n, double need, int power);
void tool_progress_end(void);

/* A result stream opened (input "-": stdin, refused where a terminal) and
 * its header read into h;
 * dies where it records a negative cycle (status 3, the vertex numbered
 * from base), holds no distances, or (need_pred) no predecessors.  *fd
 * (if fd): the descriptor, for the caller to close. */
st_reader *tool_open_result(const char *input, st_header *h, uint64_t base, int need_pred,
                            int threads, int *fd);

/* Dies (exit 2, nothing written) where h is an engine's checkpoint rather
 * than a result: "NAME: a checkpoint, not a result: go on with --resume".
 * r (may be NULL) and h are freed first. */
void tool_refuse_checkpoint(const char *name, st_reader *r, st_header *h);

/* Die with the library's message, prefixed by what. */
_Noreturn void tool_die_st(const char *what, const st_error *err);

/* Add this tool's provenance line to h (dies on failure). */
void tool_add_provenance(st_header *h);
/* Options that say nothing of the result, left out of the provenance line:
 * long names, NULL-terminated, "--name=" for one that takes a value. */
void tool_provenance_omit(const char *const *opts);

/* Number of threads to use: tool_opts.threads, or the cores this process
 * may run on shared among the processes that may run on them too
 * (tool_share_cores). */
int tool_threads(void);
/* ways processes of one run share this process's cores (mpirun). */
void tool_share_cores(int ways);

/* A tool whose process is slow to end (a CUDA context, gigabytes mapped)
 * calls tool_detach_teardown() once, after its options and before any
 * thread or device: the process forks, the child does the work and the
 * parent waits.  After the result is committed the child calls
 * tool_done(status): the parent, which is what the shell waits for, exits
 * with that status at once, while the child's exit (device teardown,
 * unmapping) goes on unwatched.  Signals to the parent reach the child; a
 * child that dies without tool_done() passes on its status or signal.  A
 * no-op where fork fails, and under AddressSanitizer. */
void tool_detach_teardown(void);
void tool_done(int status);

/* fn(ctx, begin, end) over contiguous parts of 0..n-1 on threads of its
 * own (threads <= 0: all cores).  For work next to the stream's codec:
 * OpenMP's idle threads spin for a while after each loop and would take
 * the codec's cores. */
void tool_parallel(int threads, uint64_t n, void (*fn)(void *ctx, uint64_t begin, uint64_t end),
                   void *ctx);

#endif
