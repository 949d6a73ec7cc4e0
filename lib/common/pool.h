/* pool.h - an ordered pipeline of threads, internal to the library: the
 * stream's writer and reader compress and inflate blocks on it. */
#ifndef APSP_POOL_H
#define APSP_POOL_H

#include <stdint.h>

/* An ordered pipeline on nt threads: body(ctx, t, i, p) runs for every i
 * in 0..cnt-1, on thread t (0..nt-1, the caller is 0), and may bracket
 * the part that must run in index order (the reader's I/O) with
 * pool_enter/pool_leave, exactly once per i.  Waiting threads sleep on a condition variable rather
 * than spin: in a pipeline of tools every stage runs on all cores, and a
 * spinning waiter would steal the core of the thread it waits for. */
struct pool;
typedef void pool_body(void *ctx, int t, uint64_t i, struct pool *p);

/* Run body for every index 0..cnt-1 on up to nt threads (at most the cores),
 * the caller's own thread among them; returns when all have run. */
void pool_run(int nt, uint64_t cnt, pool_body *body, void *ctx);
/* Wait for index i's turn: every index before it has left. */
void pool_enter(struct pool *p, uint64_t i);
/* End index i's turn: the next index may enter. */
void pool_leave(struct pool *p, uint64_t i);
/* After a failure: the indices already taken still run (their turns keep the
 * order), no new one starts, so a hostile block count ends at once. */
void pool_halt(struct pool *p);

#endif
