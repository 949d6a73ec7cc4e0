// fw_gpu.cu - the engine behind fw_gpu.h (its choices by n: fw_choose.cuh):
// fwg_solve_panels(), a run in stages (plan_run, fit_run,
// open_devices, upload_and_prepare, choose_kernels, run_kernels,
// collect_results) over the devices of fw_devs.cuh: it moves the matrices
// (fw_transfer.cuh, fw_exchange.cuh) and runs the rounds (fw_rounds.cuh)
// that launch the tile kernels of fw_tiles.cuh; what a process makes once
// (contexts, staging, communicators) is in fw_init.cuh.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <functional>
#include <thread>
#include <vector>

#include "fw_gpu.h"
#include "fw_choose.cuh"
#include "fw_exchange.cuh"
#include "fw_rounds.cuh"
#include "fw_transfer.cuh"
#include "fw_roworder.cuh"
#include "fw_lanes16.cuh"
#include "fw_outcore.cuh"
#include "fw_graph_stats.cuh"
#include "fw_init.cuh"
#include "stream.h"

extern "C" int fwg_solve(const struct fwg_opts *o, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, struct fwg_timing *t, char *errbuf, size_t errlen)
{
	Into into{dist, pred, n, ST_TYPE_SIZE(o->type)};
	// Row order only where asked for: copying into memory is quick, and a
	// 16-bit run rejected in row order starts again from the weights.
	// (float64 has no 16-bit run: in row order over its own weights too)
	struct fwg_opts oo = *o;
	if (o->schedule != FWG_SCHEDULE_ROWS || (dist == graph && o->type != ST_FLOAT64))
		oo.schedule = FWG_SCHEDULE_ROUNDS;
	return fwg_solve_panels(&oo, n, graph, copy_into, &into, t, errbuf, errlen);
}

// A process's first run with paths costs more than the later ones (9.7 to
// 12.8 ms of kernels against 1.3 with derived paths at n = 2000, H200; not
// the loading of code: bench/first-run.md).  A small run with the same
// choices pays that beforehand on the device a one-GPU run of n uses; its
// results are thrown away.  (An order and skipped blocks are chosen later,
// from the graph: such runs warm up the dense kernels.)
extern "C" int fwg_warm(const struct fwg_opts *o, uint64_t n, char *errbuf, size_t errlen)
{
	if (n < 2 || o->ranks > 1 || o->gpus > 1 || o->order)
		return 0;
	struct fwg_opts w = *o;
	const bool is_int = o->type == ST_INT32;
	w.block = o->block ? o->block : fwg_choose_block(n, o->type, o->paths, o->lanes16, o->skip);
	w.lanes16 = is_int && use_lanes16(n, o->lanes16, o->paths) ? FWG_LANES16_ALWAYS
	                                                           : FWG_LANES16_NEVER;
	if (!is_int && o->derive == FWG_DERIVE_AUTO)
		w.derive = n >= DERIVE_FLOAT_FROM ? FWG_DERIVE_ALWAYS : FWG_DERIVE_NEVER;
	w.schedule = FWG_SCHEDULE_ROUNDS;
	w.feed = nullptr, w.stats = nullptr, w.potential = nullptr, w.checkpoint = nullptr;
	w.memory_cap = 0, w.host_memory = 0;
	// Three block rows: every phase has blocks; weights 1 to 100 on about
	// half the pairs, as a graph in 16-bit lanes with derived paths has.
	const uint64_t m = std::min<uint64_t>(n, 3 * (uint64_t)w.block);
	const size_t es = ST_TYPE_SIZE(o->type);
	std::vector<char> graph(m * m * es), dist(m * m * es);
	std::vector<int32_t> pred(o->paths ? m * m : 1);
	for (uint64_t i = 0; i < m; i++)
		for (uint64_t j = 0; j < m; j++) {
			const uint32_t h = (uint32_t)((i * 2654435761u) ^ (j * 40503u));
			const int x = i == j ? 0 : h % 2 ? 1 + (int)(h >> 8) % 100 : ST_INF_I32;
			const float f = x == ST_INF_I32 ? __builtin_inff() : (float)x;
			const double g = f;
			memcpy(&graph[(i * m + j) * es], is_int ? (const void *)&x : es == 8 ? (const void *)&g
			                                                                 : (const void *)&f,
			       es);
		}
	struct fwg_timing t;
	return fwg_solve(&w, m, graph.data(), dist.data(), o->paths ? pred.data() : nullptr, &t,
	                 errbuf, errlen);
}

// One call of fwg_solve_panels(): what it was asked, what each stage
// decided, and what the run holds, handed from stage to stage.  Members are
// destroyed in reverse order: the row-order state, the renumbering, the
// out-of-core state, then the devices.
struct Run {
	Err e;
	const fwg_opts *o;
	uint64_t n;
	const void *graph;
	fwg_sink *sink;
	void *ctx;
	fwg_timing *t;

	// plan_run
	int B = 0, gpus = 1;
	uint64_t npad = 0, nb = 0;
	bool is_int = false, paths = false, may16 = false, ranks = false;
	Devs v;
	cudaDeviceProp prop;
	size_t pbytes = 0; // a B x npad panel
	// fit_run
	uint64_t extra = 0; // device bytes a run needs beside its band and panels
	OutOfCore oc;
	bool ooc = false;
	// open_devices
	bool by_rows = false, have16 = false, as_read = false;
	bool direct = false; // the graph read straight onto the devices (take)
	bool in_place16 = false; // the 16-bit lanes in d's memory (InPlace16)
	bool live_made = false;  // the map of live blocks made from the arcs (for sparse_start)
	InPlace16 in16;
	// upload_and_prepare
	Reorder reorder;
	Reorder *ro = nullptr;
	Sparse *sp = nullptr;
	bool packed = false;
	// choose_kernels
	int inf_dev = ST_INF_I32;
	int derive16 = 0, derive32 = 0;
	std::function<int()> lists16;
	RowOrder row_order;
	RowOrder *rw = nullptr;
	// run_kernels
	int done = 0;
	uint64_t sunk = 0; // rows the sink has taken
	// the state saved between steps (o->checkpoint)
	Checkpoints ck;

	Run(Err e_, const fwg_opts *o_, uint64_t n_, const void *graph_, fwg_sink *sink_,
	    void *ctx_, fwg_timing *t_)
	        : e(e_), o(o_), n(n_), graph(graph_), sink(sink_), ctx(ctx_), t(t_)
	{
	}
	Dev &d0() { return v.dev[v.first]; }
	// A device's need: its band of the matrices, the panels, the extras.
	size_t need_of(const Dev &x) const
	{
		return x.count(B, npad) * (v.es + (paths ? 4 : 0)) + 2 * pbytes
		     + (gpus > 1 && paths ? (size_t)B * npad * 4 : 0) + extra;
	}
};

// The communicators of this process's devices (group): opened beside
// (fwg_init_beside) and waited for, or opened again for other devices.
static int join_group(Err e, int device, int gpus)
{
	if (group_wait(e))
		return -1;
	if (group.first != device || group.count != gpus)
		return fwg_init(device, gpus, 0, e.buf, e.len) < 0 ? -1 : 0;
	return 0;
}

// Stage 1: the shape of the run: blocking factor, padding, 16-bit lanes,
// how many devices or processes and each one's band of block rows.
static int plan_run(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	const uint64_t n = r.n;
	const int B = r.B;
	const uint64_t npad = (n + B - 1) / B * B;
	if (npad > (uint64_t)INT32_MAX / 2)
		return fail(e, "%llu vertices is more than this engine handles", (unsigned long long)n);
	r.npad = npad;
	r.nb = npad / B;
	r.is_int = o->type == ST_INT32;
	r.paths = o->paths != 0;
	// int32 paths where 16-bit lanes are tried: distances in them, then
	// predecessors derived from the distances and the edges into each vertex.
	const int lanes16 = r.paths && o->derive == FWG_DERIVE_ALWAYS ? FWG_LANES16_ALWAYS : o->lanes16;
	r.may16 = r.is_int && use_lanes16(n, lanes16, r.paths) && (B == 64 || B == 128)
	          && (!r.paths || o->derive != FWG_DERIVE_NEVER);
	const uint64_t nb = r.nb;

	if (o->type == ST_FLOAT64 && (B != 64 || o->arcs))
		return fail(e, "float64 takes a blocking factor of 64 and a matrix (not %s)",
		            B != 64 ? "another blocking factor" : "arcs");
	// Several GPUs for dense runs only, each with a block row at least.
	r.ranks = o->ranks > 1;
	if (o->arcs && r.ranks)
		return fail(e, "a graph given by its arcs takes one process");
	int gpus = r.ranks ? o->ranks : o->gpus > 1 && !o->order && !o->skip ? o->gpus : 1;
	if (r.ranks) {
		if (o->order || o->skip)
			return fail(e, "a sparse run (skipped blocks, an order) takes one process");
		if ((uint64_t)gpus > nb)
			return fail(e, "n = %llu has %llu block rows of %d: too few for %d processes",
			            (unsigned long long)n, (unsigned long long)nb, B, gpus);
		if (group.ranks != o->ranks || group.rank != o->rank)
			return fail(e, "process %d of %d: fwg_init_rank() first", o->rank, o->ranks);
		if (relay_rows(npad, ST_TYPE_SIZE(o->type), r.paths) == 0)
			return fail(e, "n = %llu is too large for several processes", (unsigned long long)n);
		if (!o->own_rows && (o->rank == 0) != (r.graph != nullptr))
			return fail(e, "process %d of %d: the graph belongs to process 0 alone", o->rank,
			            o->ranks);
		if (o->own_rows && !r.graph)
			return fail(e, "process %d of %d: its band of the graph is missing", o->rank,
			            o->ranks);
	}
	if ((uint64_t)gpus > nb)
		gpus = (int)nb;
	if (gpus > MAX_GPUS)
		return fail(e, "at most %d GPUs", MAX_GPUS);
	// (A graph read straight onto the devices needs the group once read.)
	if (!r.ranks && gpus > 1 && !(o->feed && o->feed->take) && join_group(e, o->device, gpus))
		return -1;
	r.gpus = gpus;
	r.t->gpus = gpus;
	Devs &v = r.v;
	v.count = gpus;
	v.first = r.ranks ? o->rank : 0;
	v.last = r.ranks ? o->rank + 1 : gpus;
	v.B = B;
	v.npad = (int)npad;
	v.es = (int)ST_TYPE_SIZE(o->type);
	v.phase1 = o->phase1;
	for (int g = 0; g < gpus; g++)
		band(nb, gpus, g, &v.dev[g].row0, &v.dev[g].rows);

	CUDA_TRY(cudaSetDevice(o->device));
	CUDA_TRY(cudaGetDeviceProperties(&r.prop, o->device));
	fwg_timing *t = r.t;
	if (r.ranks)
		snprintf(t->device_name, sizeof t->device_name, "%d processes x %.100s", gpus, r.prop.name);
	else if (gpus > 1)
		snprintf(t->device_name, sizeof t->device_name, "%d x %.100s", gpus, r.prop.name);
	else
		snprintf(t->device_name, sizeof t->device_name, "%.*s", (int)sizeof t->device_name - 1,
		         r.prop.name);
	r.pbytes = (size_t)B * npad * v.es;
	return 0;
}

// ": at most n = N fits" with where after it and, with paths, " (M without
// paths)": most(p) is the largest n that fits with paths or without.
template <typename Most>
static void fits_text(char *buf, size_t len, const char *where, bool paths, Most most)
{
	const int k = snprintf(buf, len, ": at most n = %llu fits%s", (unsigned long long)most(paths),
	                       where);
	if (paths)
		snprintf(buf + k, len - k, " (%llu without paths)", (unsigned long long)most(false));
}

// Why a run that fits neither in the devices nor out of core is refused,
// with the largest n that would fit beside the same extras, with and
// without paths.
static int explain_refusal(Run &r, int short_of, size_t free_b, size_t total_b)
{
	Err e = r.e;
	const int B = r.B, gpus = r.gpus;
	const bool paths = r.paths;
	const unsigned long long n = r.n;
	const Dev &x = r.v.dev[short_of];
	const size_t need = r.need_of(x);
	char fits[128];
	const uint64_t room = free_b > r.extra ? free_b - r.extra : 0;
	auto in_core = [&](bool p) {
		return largest_n(n, [&](uint64_t m) {
			return fwg_memory_needed(m, r.o->type, B, p, gpus) <= room;
		});
	};
	if (r.o->arcs) {
		fits_text(fits, sizeof fits, "", paths, in_core);
		return fail(e, "n = %llu needs %.1f MiB of device memory (%s); %.1f MiB of %.1f MiB "
		               "are free%s, and a graph given by its arcs is solved in core",
		            n, need / 1048576.0, paths ? "distances and predecessors" : "distances",
		            free_b / 1048576.0, total_b / 1048576.0, fits);
	}
	if (r.ranks) {
		fits_text(fits, sizeof fits, "", paths, in_core);
		return fail(e, "n = %llu on %d processes needs %.1f MiB of memory on GPU %d of a "
		               "process (%s); %.1f MiB of %.1f MiB are free%s",
		            n, gpus, need / 1048576.0, x.id,
		            paths ? "distances and predecessors" : "distances",
		            free_b / 1048576.0, total_b / 1048576.0, fits);
	}
	auto out_of_core = [&](bool p) {
		return largest_n(n, [&](uint64_t m) {
			OocPlan pl;
			return fwg_memory_needed(m, r.o->type, B, p, 1) <= free_b
			       || plan_out_of_core((m + B - 1) / B * B, B, r.v.es, p, free_b, &pl);
		});
	};
	fits_text(fits, sizeof fits, ", out of core", paths, out_of_core);
	return fail(e, "n = %llu needs %.1f MiB of device memory (%s), at least %.1f MiB out "
	               "of core; %.1f MiB of %.1f MiB are free%s",
	            n, need / 1048576.0, paths ? "distances and predecessors" : "distances",
	            ooc_minimum(r.npad, B, r.v.es, paths) / 1048576.0, free_b / 1048576.0,
	            total_b / 1048576.0, fits);
}

// Stage 2: whether the run fits.  Where a device has less free than its
// share needs, the run goes out of core on the first device
// (fw_outcore.cuh), dense and in the caller's order, unless it spans
// processes; else it is refused (explain_refusal).
static int fit_run(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	const int B = r.B;
	const uint64_t nb = r.nb, n = r.n;
	Devs &v = r.v;
	size_t free_of[MAX_GPUS] = {}, total_of[MAX_GPUS] = {};
	if (r.ranks && o->rank == 0 && !o->own_rows) // the relay
		r.extra += 2 * staging.bytes;
	if (o->order) // renumbering: the order both ways, two staging-sized buffers
		r.extra += 8 * n + 2 * staging.bytes;
	if (o->skip) // the map of live blocks, a level's lists (and panels)
		r.extra += nb * nb + 8 * nb * LEVEL_MAX + 16 * nb + 64;
	if (o->arcs) // the arcs, while the matrix is made of them
		r.extra += 12 * o->arcs->count;
	int short_of = -1;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(o->device + g - v.first));
		CUDA_TRY(cudaMemGetInfo(&free_of[g], &total_of[g]));
		if (o->memory_cap && free_of[g] > o->memory_cap)
			free_of[g] = o->memory_cap;
		if (short_of < 0 && r.need_of(v.dev[g]) > free_of[g])
			short_of = g;
	}
	if (short_of < 0)
		return 0;
	const uint64_t free_b = free_of[v.first];
	if (r.ranks || o->arcs || !plan_out_of_core(r.npad, B, v.es, r.paths, free_b, &r.oc.pl))
		return explain_refusal(r, short_of, r.ranks ? free_of[short_of] : free_b,
		                       r.ranks ? total_of[short_of] : total_of[v.first]);
	// Host memory for the bands not resident, if the caller counts it.
	if (o->host_memory && r.oc.pl.host_bytes > o->host_memory) {
		const uint64_t host = o->host_memory;
		const bool paths = r.paths;
		const uint64_t most = largest_n(n, [&](uint64_t m) {
			OocPlan pl;
			return fwg_memory_needed(m, r.o->type, B, paths, 1) <= free_b
			       || (plan_out_of_core((m + B - 1) / B * B, B, v.es, paths, free_b, &pl)
			           && pl.host_bytes <= host);
		});
		return fail(e, "n = %llu does not fit in device memory (%.1f MiB free) and out of "
		               "core needs %.1f MiB of host memory beside the graph; %.1f MiB are "
		               "available: at most n = %llu fits",
		            (unsigned long long)n, free_b / 1048576.0, r.oc.pl.host_bytes / 1048576.0,
		            host / 1048576.0, (unsigned long long)most);
	}
	r.ooc = true;
	r.gpus = 1;
	v.count = 1, v.first = 0, v.last = 1;
	v.dev[0].row0 = 0;
	v.dev[0].rows = r.oc.pl.resident * r.oc.pl.S;
	r.t->gpus = 1;
	snprintf(r.t->device_name, sizeof r.t->device_name, "%.*s",
	         (int)sizeof r.t->device_name - 1, r.prop.name);
	return 0;
}

// The largest int32 weight of a graph's arcs (below ST_INF_I32, no edge).
static int arcs_wmax(const fwg_arcs &a)
{
	int m = 0;
	for (uint64_t k = 0; k < a.count; k++) {
		const int w = ((const int32_t *)a.w)[k];
		if (w < ST_INF_I32 && w > m)
			m = w;
	}
	return m;
}

// Stage 3: each device's streams, events and memory; the 16-bit matrix
// where the lanes are tried; the second pair of panels for lookahead.
static int open_devices(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	const int B = r.B, gpus = r.gpus;
	const uint64_t npad = r.npad;
	const size_t pbytes = r.pbytes;
	Devs &v = r.v;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		x.id = o->device + g - v.first;
		if (gpus > 1 && (r.ranks || !(o->feed && o->feed->take)))
			x.comm = group.comm[g - v.first];
		const size_t mbytes = x.count(B, npad) * v.es;
		x.es = v.es;
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaStreamCreateWithFlags(&x.s, cudaStreamNonBlocking));
		for (auto &ev : x.ev)
			CUDA_TRY(cudaEventCreate(&ev));
		for (auto &ev : x.done)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		if (mbytes)
			CUDA_TRY(cudaMalloc(&x.d, mbytes));
		if (r.paths && mbytes)
			CUDA_TRY(cudaMalloc(&x.p, mbytes / v.es * 4));
		if (gpus > 1 && r.paths)
			CUDA_TRY(cudaMalloc(&x.prow, (size_t)B * npad * 4));
		CUDA_TRY(cudaMalloc(&x.colT, pbytes));
		CUDA_TRY(cudaMalloc(&x.rowP, pbytes));
		CUDA_TRY(cudaMalloc(&x.scratch, 4 * sizeof *x.scratch));
		if (r.ranks && o->rank == 0 && !o->own_rows)
			for (auto &rl : x.relay)
				CUDA_TRY(cudaMalloc(&rl, staging.bytes));
	}
	r.by_rows = gpus == 1 && !r.ranks && !o->skip && !o->order && !o->arcs && r.nb > 1 && !r.ooc
	            && o->schedule != FWG_SCHEDULE_ROUNDS && !o->checkpoint
	            && (o->schedule == FWG_SCHEDULE_ROWS || r.n >= FWG_ROW_ORDER_FROM);
	// The 16-bit matrix where the lanes will be tried (and fit, with 64 MiB
	// to spare), allocated with the rest: without it (have16) they are not.
	// A graph made from its arcs, without paths, needs none: the lanes take
	// the first half of the 32-bit matrix's memory, which the arcs can make
	// again if their result is rejected.
	r.in_place16 = r.may16 && o->arcs && !r.paths && !r.ooc && gpus == 1 && !r.ranks;
	if (r.in_place16) {
		Dev &x = v.dev[v.first];
		x.d16 = (short *)x.d;
		x.d16_in_d = r.have16 = true;
		r.in16.wmax = arcs_wmax(*o->arcs);
		r.in16.keep = o->stats != nullptr;
	} else if (r.may16 && !r.ooc && alloc16(e, v, &r.have16)) {
		return -1;
	}
	// One device in core, every block every round, round after round: the
	// rounds with lookahead (fw_rounds.cuh), where the second pair of panels
	// fits.
	if (gpus == 1 && !r.ranks && !r.ooc && !o->skip && !r.by_rows && v.es == 4
	    && o->lookahead != FWG_LOOKAHEAD_NEVER && r.nb > 2) {
		Ahead &a = v.dev[0].ahead;
		int least = 0, greatest = 0;
		CUDA_TRY(cudaSetDevice(v.dev[0].id));
		if (cudaMalloc(&a.colT, pbytes) == cudaSuccess
		    && cudaMalloc(&a.rowP, pbytes) == cudaSuccess) {
			CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
			CUDA_TRY(cudaStreamCreateWithPriority(&a.s, cudaStreamNonBlocking, greatest));
			CUDA_TRY(cudaEventCreateWithFlags(&a.phase2, cudaEventDisableTiming));
			CUDA_TRY(cudaEventCreateWithFlags(&a.rest, cudaEventDisableTiming));
		} else {
			cudaGetLastError(); // the rounds without it
		}
	}
	// A graph still being read (o->feed): in row order without paths the
	// rounds start on its first bands (fw_roworder.cuh); elsewhere the
	// whole graph and the caller's verdict come first.
	r.as_read = o->feed && !o->feed->take && r.by_rows && !r.paths;
	r.direct = o->feed && o->feed->take && !r.by_rows && !r.ooc && !r.ranks && !o->order
	           && !o->skip && !o->arcs && !r.paths && !o->checkpoint && v.es == 4;
	return 0;
}

// Where a sparse run's map of live blocks is made from its arcs (one device
// holds every row), with the matrix: sparse_start then takes it as it is.
static uint8_t *arcs_live(Run &r)
{
	r.live_made = r.sp && r.v.count == 1;
	return r.live_made ? r.sp->live : nullptr;
}

// The weight matrix made again from the arcs, on 32 bits, where a 16-bit
// run in place was rejected.
static int arcs_again(Run &r)
{
	Devs &v = r.v;
	for (int g = v.first; g < v.last; g++)
		if (upload_arcs(r.e, *r.o->arcs, v.dev[g], r.npad, r.B, r.is_int, r.ro, false,
		                arcs_live(r))
		    || prepare_rows(r.e, v, v.dev[g], r.n, r.is_int, r.packed))
			return -1;
	return 0;
}

// Stage 4: the renumbering and the sparse run's map; the graph onto the
// devices (other processes' bands through process 0); its facts; each
// device's rows prepared for the rounds.
static int upload_and_prepare(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	const uint64_t n = r.n, npad = r.npad, nb = r.nb;
	const int B = r.B;
	Devs &v = r.v;
	Dev &d0 = r.d0();
	CUDA_TRY(cudaSetDevice(d0.id));
	if (o->order) {
		r.ro = &r.reorder;
		r.ro->host = o->order;
		std::vector<int32_t> pos(n);
		for (uint64_t k = 0; k < n; k++)
			pos[o->order[k]] = (int32_t)k;
		CUDA_TRY(cudaMalloc(&r.ro->order, n * 4));
		CUDA_TRY(cudaMalloc(&r.ro->pos, n * 4));
		CUDA_TRY(cudaMemcpy(r.ro->order, o->order, n * 4, cudaMemcpyHostToDevice));
		CUDA_TRY(cudaMemcpy(r.ro->pos, pos.data(), n * 4, cudaMemcpyHostToDevice));
		for (auto &x : r.ro->tmp)
			CUDA_TRY(cudaMalloc(&x, staging.bytes));
	}
	if (o->skip && nb > 1) {
		r.sp = &d0.sparse;
		CUDA_TRY(cudaMalloc(&r.sp->live, nb * nb));
		CUDA_TRY(cudaMalloc(&r.sp->updates, sizeof *r.sp->updates));
		r.sp->sms = r.prop.multiProcessorCount;
	}

	cudaEvent_t guard[2] = {nullptr, nullptr};
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[0], v.dev[g].s));
		if (o->arcs && upload_arcs(e, *o->arcs, v.dev[g], npad, B, r.is_int, r.ro,
		                           r.in_place16 && r.in16.made(), arcs_live(r)))
			return -1;
		// (each process its own band: the caller's rows from its first)
		const uint64_t host_row0 = o->own_rows ? v.dev[g].first_row(B) : 0;
		if (r.graph && !r.as_read
		    && upload_rows(e, r.graph, v.dev[g], n, npad, B, guard, r.ro, host_row0))
			return -1;
	}
	for (int g = 1; g < r.gpus && r.ranks && !o->own_rows; g++) // others' bands, through process 0
		if ((o->rank == 0 || g == o->rank) && relay_up(e, v, r.graph, g, n, guard))
			return -1;
	// int32: the sum of each vertex's largest weight bounds every simple
	// path; below INF_PACKED, tracked paths can take the packed form.  And
	// where no edge weighs 0, every derived chain ends at its source.  Both
	// matter only with paths.
	if (r.is_int && r.paths && int32_facts(e, v, n, r.t, &r.packed, [](Dev &) { return 0; }))
		return -1;
	r.t->packed = r.packed;
	// (a matrix made in 16-bit lanes is made as prepare_rows leaves one)
	for (int g = v.first; g < v.last && !r.as_read && !(r.in_place16 && r.in16.made()); g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		if (prepare_rows(e, v, v.dev[g], n, r.is_int, r.packed))
			return -1;
	}
	// The kernels' time runs from when every device is ready (rows still
	// arriving: from when the first band is).
	if (r.gpus > 1 && sync_all(e, v))
		return -1;
	for (int g = v.first; g < v.last && !r.as_read; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[1], v.dev[g].s));
	}
	CUDA_TRY(cudaSetDevice(d0.id));
	r.inf_dev = r.packed ? INF_PACKED : ST_INF_I32;
	r.t->tiles = nb > 1 ? nb * (2 * (nb - 1) + (nb - 1) * (nb - 1)) : 0;
	return 0;
}

// A sparse run (one GPU) starts from the blocks that hold a finite entry
// (again before a 32-bit run that follows a rejected 16-bit one, and from
// a checkpoint's state: lanes16, in the 16-bit matrix), unless its map was
// made with the matrix, from the arcs (arcs_live).
static int sparse_start(Run &r, bool lanes16 = false)
{
	Err e = r.e;
	Sparse *sp = r.sp;
	if (!sp)
		return 0;
	Dev &d0 = r.d0();
	CUDA_TRY(cudaMemsetAsync(sp->updates, 0, sizeof *sp->updates, d0.s));
	const dim3 g((unsigned)r.nb, (unsigned)r.nb);
	if (r.live_made) // (made with the matrix, from its arcs)
		r.live_made = false;
	else if (lanes16)
		live_init<short><<<g, 256, 0, d0.s>>>(d0.d16, (int)r.npad, r.B, (short)INF16, sp->live);
	else if (r.v.es == 8)
		live_init<double><<<g, 256, 0, d0.s>>>((const double *)d0.d, (int)r.npad, r.B,
		                                       __builtin_inf(), sp->live);
	else if (r.is_int)
		live_init<int><<<g, 256, 0, d0.s>>>((const int *)d0.d, (int)r.npad, r.B,
		                                    r.packed ? INF_PACKED : ST_INF_I32, sp->live);
	else
		live_init<float><<<g, 256, 0, d0.s>>>((const float *)d0.d, (int)r.npad, r.B,
		                                      __builtin_inff(), sp->live);
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// Checkpoints (o->checkpoint): in core the host's room for the state (within
// the host memory left), and a sparse run's map of live blocks made again
// from a state loaded.
static int open_checkpoints(Run &r)
{
	const fwg_opts *o = r.o;
	if (!o->checkpoint)
		return 0;
	const double rows = r.ranks ? (double)r.d0().count(r.B, (int)r.npad) / (double)r.npad
	                            : (double)r.npad; // (several processes: each its band)
	const double need = rows * (double)r.npad * (r.v.es + (r.paths ? 4 : 0));
	// Without room for a host copy of the state, the caller takes it from
	// the devices while they wait, as out of core.
	r.ck.direct = !r.ooc && o->host_memory && need > (double)o->host_memory;
	r.t->checkpoint_direct = r.ck.direct;
	if (r.ck.open(r.e, o->checkpoint, r.v, !r.ooc))
		return -1;
	r.v.ck = &r.ck;
	r.ck.relive = [&r](bool lanes16) { return sparse_start(r, lanes16); };
	return 0;
}

// The lists of edges for predecessors derived from 16-bit distances: on
// one device in the rounds' order, made once the 16-bit rounds are queued
// (where memory is sure to hold them, r.lists16), so that the host's wait
// for their count and the allocations come while the device runs.
static int lists_for16(Run &r)
{
	Err e = r.e;
	Dev &d0 = r.d0();
	const int n = (int)r.n, npad = (int)r.npad;
	if (r.v.count != 1 || r.rw)
		return list_in_edges_all<int>(e, r.v, n, r.inf_dev, 2, &r.derive16);
	int sure = 0;
	const int rc = lists_open(e, n, 2, d0.s, d0.id, &d0.ie, &r.derive16, &sure);
	if (rc || !r.derive16)
		return rc;
	if (!sure)
		return lists_make<int>(e, (const int *)d0.d, n, npad, r.inf_dev, &d0.ie, &r.derive16);
	r.lists16 = [&r, &d0, e, n, npad]() -> int {
		int ok = 0;
		if (lists_make<int>(e, (const int *)d0.d, n, npad, r.inf_dev, &d0.ie, &ok))
			return -1;
		return ok ? 0 : fail(e, "device memory ran short for the lists of edges");
	};
	return 0;
}

// Stage 5: the kernels the run takes: row order, the sparse levels, the
// lists of edges for derived predecessors, float32 as bits (from the
// graph's signs).
static int choose_kernels(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	fwg_timing *t = r.t;
	Devs &v = r.v;
	Dev &d0 = r.d0();
	// Row order (fw_roworder.cuh): one device, in core, dense, as numbered;
	// each band of rows goes to the sink as soon as it is final.
	if (r.by_rows) {
		RowOrder &ro = r.row_order;
		if (ro.open(e, (int)r.nb, d0.id))
			return -1;
		ro.sink = r.sink, ro.ctx = r.ctx, ro.paths = r.paths;
		ro.keep = o->stats != nullptr; // (folded on the device at the end)
		if (r.as_read) {
			ro.feed = o->feed, ro.graph = r.graph, ro.is_int = r.is_int;
			ro.start = d0.ev[1];
		}
		r.rw = &ro;
		t->row_bands = ro.bands;
	}
	int rc = sparse_start(r);
	if (rc == 0 && r.sp) {
		rc = plan_levels(e, d0, *r.sp, (int)r.nb, (int)r.npad, r.B);
		t->levels = r.sp->levels();
	}
	if (rc == 0 && r.paths && r.have16)
		rc = lists_for16(r);
	// float32 with the whole graph on the devices: its signs (SIGN_*).
	// Distances as bits (Elem<uint32_t>) where no entry has its sign bit
	// set; with paths, predecessors derived where no weight is negative,
	// from distances computed without them.
	unsigned long long signs = 0;
	if (rc == 0 && !r.is_int && !r.as_read) {
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(x.scratch, 0, sizeof *x.scratch, x.s));
			if (x.es == 8)
				float_signs<<<1024, 256, 0, x.s>>>((const double *)x.d, x.count(r.B, r.npad),
				                                   (int *)x.scratch);
			else
				float_signs<<<1024, 256, 0, x.s>>>((const float *)x.d, x.count(r.B, r.npad),
				                                   (int *)x.scratch);
			CUDA_TRY(cudaGetLastError());
		}
		if (combine(e, v, 1, false, &signs))
			return -1;
	}
	const bool as_bits = !r.is_int && !r.as_read && !(signs & SIGN_NOT_ORDERED)
	                     && o->float_bits != FWG_FLOAT_BITS_NEVER;
	if (r.v.es == 8) { // (float64 tracks its paths' largest intermediates)
		t->float_bits = as_bits;
		return rc;
	}
	if (rc == 0 && !r.is_int && r.paths && !(signs & SIGN_BELOW_ZERO)
	    && o->derive != FWG_DERIVE_NEVER
	    && (o->derive == FWG_DERIVE_ALWAYS || r.n >= DERIVE_FLOAT_FROM))
		rc = list_in_edges_all<float>(e, v, (int)r.n, __builtin_inff(), 4, &r.derive32);
	t->float_bits = as_bits && (!r.paths || r.derive32);
	return rc;
}

// The lists are made beside what follows, from the weights in d: the
// rounds that overwrite d wait until they have been read.  The 16-bit
// run's rounds do not (try16 waits before its distances go back to d),
// unless they go in row order.
static int weights_read(Run &r)
{
	Err e = r.e;
	Devs &v = r.v;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(v.dev[g].ie.after_read(v.dev[g].s));
	}
	CUDA_TRY(cudaSetDevice(r.d0().id));
	return 0;
}

// What the sink may read (rows in row order reach it from the 16-bit run
// itself): as if the 16-bit run stands, then as it came out.
static void record_choices(Run &r, int lanes)
{
	fwg_timing *t = r.t;
	t->lanes16 = lanes;
	t->derived = (r.derive16 && lanes == 1) || r.derive32;
	t->chains_sure = t->derived && r.is_int && !t->zero_weight;
}

// The 32-bit rounds of kernels c (a Config of dispatch()): round after
// round, or in row order with each band finished as it becomes final.
template <typename C> static int rounds_of(Run &r, C)
{
	Err e = r.e;
	Devs &v = r.v;
	if (v.ck)
		snprintf(v.ck->stage, sizeof v.ck->stage, "B%d,%s%s%s%s", C::B,
		         r.is_int ? "int32" : r.t->float_bits ? "float32-bits" : "float32",
		         C::PACKED ? ",packed" : "", C::PATHS ? ",tracked" : "",
		         r.sp ? ",levels" : "");
	if (!r.rw)
		return run_rounds<typename C::T, C::B, C::R, C::PATHS, C::PACKED>(e, v, r.sp);
	Dev &d0 = r.d0();
	const int B = r.B, n = (int)r.n, npad = (int)r.npad;
	RoundKernels<typename C::T, C::B, C::R, C::PATHS, C::PACKED> k;
	if (k.setup(e, d0.id, npad, nullptr))
		return -1;
	const size_t stride = (size_t)B * npad;
	auto finish_band = [&](int r0, int r1) -> int { // the caller's INF; predecessors
		const size_t count = (size_t)(r1 - r0) * stride;
		if (r.packed)
			finish<int><<<(unsigned)((count + 255) / 256), 256, 0, d0.s>>>(
			        (int *)d0.d + r0 * stride, count, ST_INF_I32, INF_PACKED);
		CUDA_TRY(cudaGetLastError());
		if (r.derive32)
			return derive_rows(e, d0, (const float *)d0.d, d0.p, npad, n, r0 * B,
			                   std::min(n, r1 * B));
		return 0;
	};
	const int rc = row_order_rounds(e, v, k, band_of(v, d0), r.n, *r.rw, finish_band,
	                                [](int, int) { return 0; });
	v.small_ran = k.small_ran;
	return rc;
}

// The float64 rounds of kernels RoundKernels64<MID, BITS>: round after
// round, or in row order (one device; nothing to finish in a band).
template <bool MID, bool BITS> static int rounds64_of(Run &r)
{
	if (!r.rw)
		return run_rounds64<MID, BITS>(r.e, r.v, r.sp);
	RoundKernels64<MID, BITS> k;
	Dev &d0 = r.d0();
	if (k.setup(r.e, d0.id, (int)r.npad, nullptr))
		return -1;
	auto none = [](int, int) { return 0; };
	return row_order_rounds(r.e, r.v, k, band_of(r.v, d0), r.n, *r.rw, none, none);
}

// The float64 rounds: with paths each entry's largest intermediate vertex
// (fw_textbook_preds() makes the predecessors of them), the minima on bits
// where no entry's sign bit is set (choose_kernels).
static int rounds64(Run &r)
{
	Devs &v = r.v;
	const bool bits = r.t->float_bits;
	if (v.ck)
		snprintf(v.ck->stage, sizeof v.ck->stage, "B64,float64%s%s%s", bits ? "-bits" : "",
		         r.paths ? ",intermediates" : "", r.sp ? ",levels" : "");
	return r.paths ? bits ? rounds64_of<true, true>(r) : rounds64_of<true, false>(r)
	       : bits  ? rounds64_of<false, true>(r)
	               : rounds64_of<false, false>(r);
}

// Stage 6: the rounds: in 16-bit lanes where tried, else (or where their
// result is rejected) on 32 bits; then the predecessors derived from
// float32 distances.  1 where the caller must start again (row order).
static int run_kernels(Run &r)
{
	Err e = r.e;
	Devs &v = r.v;
	Dev &d0 = r.d0();
	const bool tries16 = r.have16 && (!r.paths || r.derive16);
	int rc = 0;
	record_choices(r, tries16 && r.rw ? 1 : 0);
	if (tries16 && r.rw) // (16-bit rounds in row order)
		rc = weights_read(r);
	if (rc == 0 && tries16)
		rc = try16(e, v, (int)r.n, r.inf_dev, r.sp, r.derive16, r.rw, &r.done, r.lists16,
		           r.in_place16 ? &r.in16 : nullptr);
	if (rc == 0) // (the 32-bit rounds, if they come)
		rc = weights_read(r);
	if (rc == 0 && r.rw && r.rw->restart)
		return 1;
	if (r.rw && r.rw->not16) // from the first band again, on 32 bits
		r.rw->reset();
	record_choices(r, r.done);
	r.t->lanes16_in_place = r.in_place16 && r.done != 0;
	if (rc == 0 && r.done == -1 && r.in_place16)
		rc = arcs_again(r);
	if (rc == 0 && r.done == -1)
		rc = sparse_start(r);
	if (rc == 0 && r.done == -1 && r.rw) { // from the weights again, on 32 bits, the rounds' way
		r.sunk = r.rw->sunk;
		r.rw = nullptr;
		cudaEvent_t again[2] = {nullptr, nullptr};
		if (upload_rows(e, r.graph, d0, r.n, r.npad, r.B, again, nullptr)
		    || prepare_rows(e, v, d0, r.n, r.is_int, r.packed))
			return -1;
	}
	auto rounds = [&r](auto c) { return rounds_of(r, c); };
	if (rc == 0 && r.done != 1 && v.es == 8)
		rc = rounds64(r);
	else if (rc == 0 && r.done != 1)
		rc = r.is_int          ? dispatch<int>(e, r.B, r.paths, r.packed, rounds)
		     : r.t->float_bits ? dispatch<uint32_t>(e, r.B, false, false, rounds)
		                       : dispatch<float>(e, r.B, r.paths && !r.derive32, r.packed, rounds);
	if (rc == 0 && r.rw && r.rw->restart)
		return 1;
	for (int g = v.first; g < v.last && rc == 0 && r.derive32 && !r.rw; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		rc = derive<float>(e, v, x, x.base<float>(x.d, r.B, (int)r.npad), (int)r.n);
	}
	return rc;
}

// Stage 7: the results to the caller's sink (another process's to process
// 0), and the run's times and choices.
static int collect_results(Run &r)
{
	Err e = r.e;
	const fwg_opts *o = r.o;
	fwg_timing *t = r.t;
	Devs &v = r.v;
	Dev &d0 = r.d0();
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		if (!r.rw) // (row order records it after its last band)
			CUDA_TRY(cudaEventRecord(x.ev[2], x.s));
		if (r.packed && !r.rw && finish_rows(e, v, x))
			return -1;
	}
	if (sync_all(e, v))
		return -1;
	CUDA_TRY(cudaSetDevice(d0.id));
	const double t_down = lib_now();
	if (r.sp) {
		unsigned long long updates = 0;
		CUDA_TRY(cudaMemcpy(&updates, r.sp->updates, sizeof updates, cudaMemcpyDeviceToHost));
		t->tiles_skipped = t->tiles - updates;
	}
	if (o->stats && r.ranks) { // where the distances are, passed from process to process
		if (stats_ranks(e, v, r.n, o->type, o->potential, o->rank == 0 ? o->stats : nullptr))
			return -1;
		t->stats_on_device = 1;
		t->download_ms = (lib_now() - t_down) * 1e3;
	} else if (o->stats) { // the statistics where the distances are
		if (stats_run(e, v, r.n, o->type, r.in_place16 && r.in16.keep && r.done == 1, r.ro,
		              o->potential, o->stats))
			return -1;
		t->stats_on_device = 1;
		t->download_ms = (lib_now() - t_down) * 1e3;
	} else if (o->own_rows) { // each process its own rows, to its own sink
		const Dev &x = r.d0();
		if (download_panels(e, v, r.n, r.paths, nullptr, nullptr, r.sink, r.ctx,
		                    x.first_row(r.B), x.end_row(r.B, r.n)))
			return -1;
		t->download_ms = (lib_now() - t_down) * 1e3;
	} else if (r.ranks && o->rank != 0) {
		if (relay_down(e, v, r.n, r.paths))
			return -1;
	} else if (r.rw) { // in row order: from the first band final to the last panel taken
		t->download_ms = (r.rw->last_s - r.rw->first_s) * 1e3;
	} else if (download_panels(e, v, r.n, r.paths, r.ro, nullptr, r.sink, r.ctx, r.sunk)) {
		return -1;
	} else {
		t->download_ms = (lib_now() - t_down) * 1e3;
	}
	for (int g = v.first; g < v.last; g++) {
		float up, ker;
		CUDA_TRY(cudaEventElapsedTime(&up, v.dev[g].ev[0], v.dev[g].ev[1]));
		CUDA_TRY(cudaEventElapsedTime(&ker, v.dev[g].ev[1], v.dev[g].ev[2]));
		t->upload_ms = up > t->upload_ms ? up : t->upload_ms;
		t->kernel_ms = ker > t->kernel_ms ? ker : t->kernel_ms;
	}
	t->phase1 = v.phase1_ran;
	t->lookahead = v.ahead_ran;
	t->small = v.small_ran;
	CUDA_TRY(cudaSetDevice(d0.id));
	return 0;
}

extern "C" int fwg_solve_panels(const struct fwg_opts *o, uint64_t n, const void *graph,
                                fwg_sink *sink, void *ctx, struct fwg_timing *t, char *errbuf,
                                size_t errlen)
{
	Err e{errbuf, errlen};
	memset(t, 0, sizeof *t);
	t->phase1 = FWG_PHASE1_APART;
	const int B = o->block ? o->block : fwg_choose_block(n, o->type, o->paths, o->lanes16, o->skip);
	t->block = B;
	t->gpus = 1;
	if (B != 16 && B != 32 && B != 64 && B != 128)
		return fail(e, "blocking factor %d not supported (16, 32, 64 or 128)", B);
	if (n == 0)
		return 0;
	Run r(e, o, n, graph, sink, ctx, t);
	r.B = B;
	if (plan_run(r) || fit_run(r))
		return -1;
	if (o->checkpoint && r.ranks && !o->own_rows)
		return fail(e, "checkpoints over several processes need each its own rows");
	if (open_devices(r) || open_checkpoints(r))
		return -1;
	if (o->feed && o->feed->take) {
		const int rc = r.direct ? take_onto(e, r.v, n, o->type == ST_INT32, *o->feed)
		                        : 1; // (nothing read)
		if (rc)
			return rc;
		if (r.gpus > 1 && join_group(e, o->device, r.gpus))
			return -1;
		for (int g = r.v.first; g < r.v.last && r.gpus > 1; g++)
			r.v.dev[g].comm = group.comm[g - r.v.first];
	} else if (o->feed && !r.as_read
	           && (o->feed->rows(o->feed->ctx, n) < n || !o->feed->verdict(o->feed->ctx))) {
		return 1;
	}
	t->streamed = r.as_read;
	int rc;
	if (r.ooc) {
		rc = solve_out_of_core(e, r.v, r.oc, o->type, r.paths, n, graph, sink, ctx, t);
	} else {
		rc = upload_and_prepare(r) ? -1 : choose_kernels(r);
		if (rc == 0)
			rc = run_kernels(r);
		if (rc == 0)
			rc = collect_results(r);
	}
	t->resumed_from = r.ck.resumed;
	t->checkpoints = r.ck.saved;
	return rc;
}
