/* cpuroute.h - apsp-cpu's run (prefix cpu_), in the shape of apsp-gpu's
 * (gpuroute.h): opened, planned, run, closed.  The plan is the dense
 * engine, or the sparse engine where it may take the graph and the dense
 * one where it declines it once read (its graph then handed over as read). */
#ifndef APSP_RUN_CPUROUTE_H
#define APSP_RUN_CPUROUTE_H

#include <stdint.h>
#include <stdio.h>

#include "checkpoint.h"
#include "engine.h"
#include "fw.h"
#include "sources.h"
#include "statsout.h"
#include "stream.h"

/* What the command line asks. */
struct cpu_args {
	fw_opts o;
	struct ckpt ck;
	int paths, order, as_stats, engine;
	struct stats_form form;
	struct sources_opt rows;
	const char *path; /* GRAPH ("-": standard input) */
};

/* A run's state, from its start to its end. */
struct cpu_run {
	const struct cpu_args *a;
	fw_opts o;               /* the dense engine's options for this run */
	fw_counts counts;
	struct ckpt ck;
	int paths, threads;
	double t0;
	int out;                 /* the result stream's descriptor, or -1 (--stats) */
	FILE *sout;              /* --stats: the statistics' output, or NULL */
	engine_in *r;            /* the input */
	st_header in;            /* its header */
	uint32_t *src, *dst;     /* the rows asked and a table's columns, or NULL */
	uint64_t sources, targets;
};

enum cpu_route { CPU_DENSE, CPU_SPARSE_ELSE_DENSE };

/* The route and why it was taken. */
struct cpu_plan {
	enum cpu_route route;
	char why[200];
};

/* The run begun: the output opened, the input's header read, the rows and
 * columns asked resolved against it. */
void cpu_open(struct cpu_run *c, const struct cpu_args *a);
/* The route of c, and why (--engine sparse on a graph it cannot take: a
 * usage error). */
void cpu_plan_route(struct cpu_plan *p, const struct cpu_run *c);
/* The route run: the exit status (every failure dies with its message). */
int cpu_run_route(const struct cpu_plan *p, struct cpu_run *c);
/* The run ended: what it holds freed. */
void cpu_close(struct cpu_run *c);

#endif
