/* pool.c - the ordered pipeline of threads (see pool.h). */
#include "pool.h"
#include "common.h"

#include <pthread.h>
#include <stdlib.h>

struct pool {
	pthread_mutex_t mu;
	pthread_cond_t *slot;   /* nt of them: index i waits on slot[i % nt] */
	int nt;
	uint64_t next, turn, cnt;
	pool_body *body;
	void *ctx;
	int halt;   /* pool_halt(): take no further index */
};


struct pool_arg {
	struct pool *p;
	int t;
};

static void *pool_thread(void *arg)
{
	struct pool_arg *a = arg;
	struct pool *p = a->p;
	uint64_t i;

	while (!__atomic_load_n(&p->halt, __ATOMIC_RELAXED)
	       && (i = __atomic_fetch_add(&p->next, 1, __ATOMIC_RELAXED)) < p->cnt)
		p->body(p->ctx, a->t, i, p);
	return NULL;
}

/* After a failure: the indices already taken still run (their turns keep the
 * order), no new one starts, so a hostile block count ends at once. */
void pool_halt(struct pool *p)
{
	__atomic_store_n(&p->halt, 1, __ATOMIC_RELAXED);
}

/* The indices in flight are turn..next-1, fewer than nt, so no two of them
 * share a slot: leaving wakes only the thread whose turn comes next, not
 * every waiter (16 threads woken per block made a convoy of two tools'
 * pools on the same cores). */
void pool_enter(struct pool *p, uint64_t i)
{
	pthread_mutex_lock(&p->mu);
	while (p->turn != i)
		pthread_cond_wait(&p->slot[i % p->nt], &p->mu);
	pthread_mutex_unlock(&p->mu);
}

void pool_leave(struct pool *p, uint64_t i)
{
	pthread_mutex_lock(&p->mu);
	p->turn = i + 1;
	pthread_cond_signal(&p->slot[(i + 1) % p->nt]);
	pthread_mutex_unlock(&p->mu);
}

void pool_run(int nt, uint64_t cnt, pool_body *body, void *ctx)
{
	pthread_cond_t one = PTHREAD_COND_INITIALIZER;
	struct pool p = {PTHREAD_MUTEX_INITIALIZER, &one, 1, 0, 0, cnt, body, ctx, 0};
	int started = 0;

	if ((uint64_t)nt > cnt)
		nt = (int)cnt;
	/* More threads than cores only take turns on them. */
	int cores = lib_cores();
	if (nt > cores)
		nt = cores;
	if (nt < 1)
		nt = 1;
	/* Threads of its own, not OpenMP's team: with the team, writing a
	 * distance matrix on 16 cores ran at a third of the speed
	 * (bench/stream.md). */
	pthread_t *tid = nt > 1 ? malloc((size_t)nt * sizeof *tid) : NULL;
	struct pool_arg *args = nt > 1 ? malloc((size_t)nt * sizeof *args) : NULL;
	pthread_cond_t *slot = nt > 1 ? malloc((size_t)nt * sizeof *slot) : NULL;
	if (slot) {
		for (int t = 0; t < nt; t++)
			pthread_cond_init(&slot[t], NULL);
		p.slot = slot;
		p.nt = nt;
	}
	for (int t = 1; t < nt && tid && args && slot; t++) {
		args[t] = (struct pool_arg){&p, t};
		if (pthread_create(&tid[t], NULL, pool_thread, &args[t]) != 0)
			break; /* fewer threads, same result */
		started = t;
	}
	struct pool_arg self = {&p, 0};
	pool_thread(&self);
	for (int t = 1; t <= started; t++)
		pthread_join(tid[t], NULL);
	for (int t = 0; t < p.nt; t++)
		pthread_cond_destroy(&p.slot[t]);
	free(slot);
	free(tid);
	free(args);
	pthread_mutex_destroy(&p.mu);
}
