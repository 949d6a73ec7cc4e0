/* ranks.h - the processes of an MPI run of a tool (prefix ranks_).
 *
 * apsp-gpu started by mpirun (or another MPI launcher) runs as several
 * processes, one GPU each; process 0 reads the input and writes the result.
 * Built without MPI, or started without a launcher, a tool is one process:
 * rank 0 of 1, and these calls do nothing. */
#ifndef APSP_RANKS_H
#define APSP_RANKS_H

#include <stddef.h>
#include <stdint.h>

/* Join the run if an MPI launcher started this process (before any thread
 * or child process is made); returns the number of processes. */
int ranks_init(int *argc, char ***argv);
int ranks_rank(void);
int ranks_count(void);
/* This process's number among those on its machine (its GPU). */
int ranks_local(void);
/* len bytes at buf from process 0 to every process. */
void ranks_bcast(void *buf, size_t len);
/* len bytes at buf to process to, or from process from, with tag (any
 * length: sent in pieces). */
void ranks_send(const void *buf, size_t len, int to, int tag);
void ranks_recv(void *buf, size_t len, int from, int tag);
/* One message of at most cap bytes (at most 1 GiB) from process from with
 * tag into buf: the bytes it held. */
size_t ranks_recv_some(void *buf, size_t cap, int from, int tag);
/* The same begun without waiting (at most 1 GiB): ranks_wait() ends it. */
typedef struct ranks_req { void *req; } ranks_req;
void ranks_isend(const void *buf, size_t len, int to, int tag, ranks_req *rq);
void ranks_wait(ranks_req *rq);
/* Each of count values combined over every process, in place. */
enum { RANKS_SUM, RANKS_MAX, RANKS_MIN };
void ranks_allreduce(int64_t *v, int count, int op);
/* End every process of the run with status (after an error in one). */
void ranks_abort(int status);
/* Open MPI gives each process's stdout a pseudo-terminal of its own, which
 * mpirun copies to its stdout; its line discipline would turn each byte 10
 * of a binary stream into 13 10.  In an MPI run, set that terminal raw (no
 * output processing): 1 if done, so that the stream may go through it. */
int ranks_raw_stdout(void);
/* Leave the run (every process, at the end). */
void ranks_finish(void);
/* Whether this process is part of an MPI run (even of one process). */
int ranks_joined(void);

#endif
