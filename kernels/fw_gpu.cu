// fw_gpu.cu - the engine behind fw_gpu.h: initialisation, the choices made by
// n, and fwg_solve_panels(), which sets up the devices of a run
// (fw_devs.cuh), moves the matrices (fw_transfer.cuh) and runs the rounds
// (fw_rounds.cuh) that launch the tile kernels of fw_tiles.cuh.
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <chrono>
#include <functional>
#include <thread>
#include <vector>

#include "fw_gpu.h"
#include "fw_devs.cuh"
#include "fw_rounds.cuh"
#include "fw_transfer.cuh"
#include "fw_roworder.cuh"
#include "fw_lanes16.cuh"
#include "fw_outcore.cuh"
#include "stream.h"

extern "C" int fwg_device_count(char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	int count = 0;
	cudaError_t rc = cudaGetDeviceCount(&count);
	if (rc != cudaSuccess)
		return fail(e, "no usable CUDA driver or device: %s", cudaGetErrorString(rc));
	return count;
}

// The staging buffers, once.  Page-locking is the slow part of a small run
// after its context: cudaHostAlloc took 13 to 16 ms for 32 MiB and 67 to 77
// ms for 128 MiB on the H100 machine, where memory already faulted in with
// huge pages (2 to 12 ms, done here while the contexts are made) was then
// registered in 2 to 5 and 12 ms (bench/pipeline.md).  So the host memory is
// made ready beside the contexts and only registered after them; where
// either step fails, cudaHostAlloc as before.  Portable: every device of
// the run copies through them.
static size_t staging_size(uint64_t staging_bytes)
{
	const size_t cap = staging_bytes >= STAGING_LARGE_FROM ? STAGING_BYTES_LARGE : STAGING_BYTES;
	return staging_bytes && staging_bytes < cap ? (size_t)staging_bytes : cap;
}

struct StagingPrep {
	void *mem[2] = {nullptr, nullptr};
	size_t bytes = 0;
	std::thread t;

	void start(uint64_t staging_bytes)
	{
		if (staging.buf[0])
			return;
		bytes = staging_size(staging_bytes);
		t = std::thread([this] {
			for (int i = 0; i < 2; i++) {
				void *m = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
				               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				if (m == MAP_FAILED)
					continue;
#ifdef MADV_HUGEPAGE
				madvise(m, bytes, MADV_HUGEPAGE);
#endif
				for (size_t o = 0; o < bytes; o += 4096)
					((volatile char *)m)[o] = 0;
				mem[i] = m;
			}
		});
	}
	// Joins the thread; whatever was not registered goes back.
	~StagingPrep()
	{
		if (t.joinable())
			t.join();
		for (int i = 0; i < 2; i++)
			if (mem[i])
				munmap(mem[i], bytes);
	}
	// The buffers registered, or allocated page-locked where they could not be.
	int finish(Err e)
	{
		if (staging.buf[0])
			return 0;
		if (t.joinable())
			t.join();
		for (int i = 0; i < 2; i++) {
			if (mem[i] && cudaHostRegister(mem[i], bytes, cudaHostRegisterPortable) == cudaSuccess) {
				staging.buf[i] = mem[i];
				mem[i] = nullptr;
			} else {
				cudaGetLastError(); // a refused registration is not the run's error
				CUDA_TRY(cudaHostAlloc(&staging.buf[i], bytes, cudaHostAllocPortable));
			}
		}
		staging.bytes = bytes;
		return 0;
	}
};

extern "C" int fwg_max_gpus(void)
{
#ifdef APSP_NCCL
	return MAX_GPUS;
#else
	return 1;
#endif
}

extern "C" int fwg_init(int device, int gpus, uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	if (gpus < 1)
		gpus = 1;
	const int count = fwg_device_count(errbuf, errlen);
	if (count < 0)
		return -1;
	if (count == 0)
		return fail(e, "no CUDA device found");
	if (gpus > 1 && (device < 0 || device + gpus > count))
		return fail(e, "%d GPUs from device %d asked for: %d device%s found", gpus, device,
		            count, count == 1 ? "" : "s");
	if (device < 0 || device >= count)
		return fail(e, "device %d does not exist (%d device%s found)", device, count,
		            count == 1 ? "" : "s");
	if (gpus > MAX_GPUS)
		return fail(e, "at most %d GPUs", MAX_GPUS);
#ifndef APSP_NCCL
	if (gpus > 1)
		return fail(e, "%d GPUs asked for: this build has no NCCL, so it uses one GPU "
		               "(build with NCCL, see README)", gpus);
#endif
	StagingPrep prep;
	prep.start(staging_bytes);
	// The contexts are made side by side: each takes a few hundred ms.
	std::vector<std::thread> th;
	cudaError_t made[MAX_GPUS] = {};
	for (int g = 0; g < gpus; g++)
		th.emplace_back([g, device, &made] {
			made[g] = cudaSetDevice(device + g);
			if (made[g] == cudaSuccess)
				made[g] = cudaFree(0); // creates the context
		});
	for (auto &t : th)
		t.join();
	for (int g = 0; g < gpus; g++)
		if (made[g] != cudaSuccess)
			return fail(e, "device %d: %s", device + g, cudaGetErrorString(made[g]));
	CUDA_TRY(cudaSetDevice(device));
#ifdef APSP_NCCL
	if (gpus > 1 && (group.first != device || group.count != gpus)) {
		for (int g = 0; g < group.count; g++)
			ncclCommDestroy(group.comm[g]);
		group.count = 0;
		int list[MAX_GPUS];
		for (int g = 0; g < gpus; g++)
			list[g] = device + g;
		NCCL_TRY(ncclCommInitAll(group.comm, gpus, list));
		group.first = device;
		group.count = gpus;
		// NCCL connects its devices at the first collective (40 ms on two
		// H200s): do that here, while the caller reads its input.
		void *one[MAX_GPUS] = {};
		for (int g = 0; g < gpus; g++) {
			CUDA_TRY(cudaSetDevice(device + g));
			CUDA_TRY(cudaMalloc(&one[g], 4));
		}
		NCCL_TRY(ncclGroupStart());
		for (int g = 0; g < gpus; g++)
			NCCL_TRY(ncclBroadcast(one[g], one[g], 1, ncclInt32, 0, group.comm[g], 0));
		NCCL_TRY(ncclGroupEnd());
		for (int g = 0; g < gpus; g++) {
			CUDA_TRY(cudaSetDevice(device + g));
			CUDA_TRY(cudaDeviceSynchronize());
			cudaFree(one[g]);
		}
		CUDA_TRY(cudaSetDevice(device));
	}
#endif
	return prep.finish(e);
}

extern "C" int fwg_unique_id(void *id, size_t len, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
#ifdef APSP_NCCL
	static_assert(sizeof(ncclUniqueId) <= FWG_ID_BYTES, "FWG_ID_BYTES too small");
	if (len < sizeof(ncclUniqueId))
		return fail(e, "an NCCL id needs %zu bytes", sizeof(ncclUniqueId));
	ncclUniqueId u;
	NCCL_TRY(ncclGetUniqueId(&u));
	memcpy(id, &u, sizeof u);
	return 0;
#else
	return fail(e, "several processes need a build with NCCL");
#endif
}

extern "C" int fwg_init_rank(int device, int rank, int ranks, const void *id,
                             uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
#ifdef APSP_NCCL
	const int count = fwg_device_count(errbuf, errlen);
	if (count < 0)
		return -1;
	if (device < 0 || device >= count)
		return fail(e, "process %d of %d: device %d does not exist (%d device%s found)", rank,
		            ranks, device, count, count == 1 ? "" : "s");
	if (ranks > MAX_GPUS)
		return fail(e, "at most %d processes", MAX_GPUS);
	StagingPrep prep;
	prep.start(staging_bytes);
	CUDA_TRY(cudaSetDevice(device));
	CUDA_TRY(cudaFree(0)); // creates the context
	ncclUniqueId u;
	memcpy(&u, id, sizeof u);
	NCCL_TRY(ncclCommInitRank(&group.comm[0], ranks, u, rank));
	group.first = device;
	group.count = 1;
	group.rank = rank;
	group.ranks = ranks;
	// NCCL connects at the first collective: here, while process 0 reads.
	int *one = nullptr;
	CUDA_TRY(cudaMalloc(&one, 4));
	NCCL_TRY(ncclAllReduce(one, one, 1, ncclInt32, ncclSum, group.comm[0], 0));
	CUDA_TRY(cudaDeviceSynchronize());
	cudaFree(one);
	return prep.finish(e);
#else
	return fail(e, "several processes need a build with NCCL");
#endif
}

// Whether int32 distances are tried in 16-bit lanes.  By default from n =
// 2000 for distances alone, from 1500 with paths (H100, with lookahead,
// bench/gpu.md): at n = 1500 the 16-bit run took 0.89 ms against 0.81 on 32
// bits (converting the matrix and checking the result), at 2000 1.22
// against 1.26; with paths derived from them (their lists made beside the
// rounds) 0.99 ms at 1500 against 1.08 for packed paths on 32 bits, 1.37
// against 1.57 at 2000, 0.63 to 0.78 against 0.72 at 1000.
static bool use_lanes16(uint64_t n, int lanes16, bool paths)
{
	return lanes16 == FWG_LANES16_ALWAYS
	       || (lanes16 == FWG_LANES16_AUTO && n >= (paths ? 1500u : 2000u));
}

// float32 with paths: predecessors derived from the distances (no weight
// negative) from this n, tracked through the rounds below it: at n = 2000
// 1.78 to 1.84 ms against 2.33, at 1000 0.82 to 0.86 against 0.75 (H100).
static const uint64_t DERIVE_FLOAT_FROM = 2000;

// Measured on the H100 (bench/gpu.md, kernel times at n = 1000 .. 20000,
// B = 32, 64, 128): per round, B = 64 pays less for phases 1 and 2 than
// B = 128, which wins only where phase 3 dominates and its larger tiles
// reuse more: 16-bit lanes above n = 16000 (20000: 324 against 334 ms), int32
// paths above about 11000 (12000: 165 against 169; 8000: 60 against 55) and
// float32 paths above 16000 (a tie there).  32-bit distances, int32 and
// float32, were fastest at B = 64 at every n from 1000 to 20000; int32 paths
// at B = 32 up to n = 2048 (2000: 2.38 against 2.56 ms).
//
// A run that skips blocks (fwg_opts.skip) never takes 128: coarser blocks
// skip less and cost more per round.  Grids, H100: n = 65536, 16-bit lanes,
// 231 ms at B = 64 against 292 at 32 (32-bit) and 278 at 128; with paths
// 502 at 64, 540 at 32, 652 at 128; n = 16384 with paths 23.4 ms at 64,
// 23.8 at 32, 51.5 at 128 (bench/sparse-gpu.md).
extern "C" int fwg_choose_block(uint64_t n, int type, int paths, int lanes16, int skip)
{
	const bool is_int = type == ST_INT32;
	if (skip)
		return paths && is_int && n <= 2048 && !use_lanes16(n, lanes16, paths) ? 32 : 64;
	if (is_int && use_lanes16(n, lanes16, paths)) // paths derived from 16-bit distances too
		return n <= 16000 ? 64 : 128;
	if (paths && !is_int && n >= DERIVE_FLOAT_FROM) // derived (unless a weight is negative)
		return 64;
	if (paths)
		return is_int ? (n <= 2048 ? 32 : n <= 11000 ? 64 : 128) : (n <= 16000 ? 64 : 128);
	return 64;
}

// Block rows of device g of gpus: as even a share of nb as can be.
static void band(uint64_t nb, int gpus, int g, int *row0, int *rows)
{
	*row0 = (int)(nb * g / gpus);
	*rows = (int)(nb * (g + 1) / gpus) - *row0;
}

extern "C" uint64_t fwg_memory_needed(uint64_t n, int block, int paths, int gpus)
{
	if (block == 0)
		block = 128; /* the most that any choice pads and stages */
	if (gpus < 1)
		gpus = 1;
	const uint64_t npad = (n + block - 1) / block * block, nb = npad / block;
	const uint64_t rows = (nb + gpus - 1) / gpus * block; // the largest band
	return rows * npad * 4 * (paths ? 2 : 1) + (2 + (gpus > 1 && paths)) * (uint64_t)block * npad * 4;
}

// The largest n below limit whose matrices fit in bytes on each of gpus
// devices (fwg_memory_needed grows with n).
static uint64_t largest_n(uint64_t bytes, int block, bool paths, int gpus, uint64_t limit)
{
	uint64_t lo = 0, hi = limit;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2;
		if (fwg_memory_needed(mid, block, paths, gpus) <= bytes)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

// The largest n below limit that runs on one device with bytes free, in
// its memory or out of core.
static uint64_t largest_n_ooc(uint64_t bytes, int block, bool paths, uint64_t limit)
{
	uint64_t lo = 0, hi = limit;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2, npad = (mid + block - 1) / block * block;
		OocPlan pl;
		if (fwg_memory_needed(mid, block, paths, 1) <= bytes
		    || plan_out_of_core(npad, block, paths, bytes, &pl))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

// The largest n below limit that runs on one device with bytes free and, out
// of core, host bytes for the bands not resident.
static uint64_t largest_n_host(uint64_t bytes, uint64_t host, int block, bool paths, uint64_t limit)
{
	uint64_t lo = 0, hi = limit;
	while (lo < hi) {
		const uint64_t mid = lo + (hi - lo + 1) / 2, npad = (mid + block - 1) / block * block;
		OocPlan pl;
		if (fwg_memory_needed(mid, block, paths, 1) <= bytes
		    || (plan_out_of_core(npad, block, paths, bytes, &pl) && pl.host_bytes <= host))
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

extern "C" int fwg_solve(const struct fwg_opts *o, uint64_t n, const void *graph, void *dist,
                         int32_t *pred, struct fwg_timing *t, char *errbuf, size_t errlen)
{
	Into into{dist, pred, n};
	// Row order only where asked for: copying into memory is quick, and a
	// 16-bit run rejected in row order starts again from the weights.
	struct fwg_opts oo = *o;
	if (o->schedule != FWG_SCHEDULE_ROWS || dist == graph)
		oo.schedule = FWG_SCHEDULE_ROUNDS;
	return fwg_solve_panels(&oo, n, graph, copy_into, &into, t, errbuf, errlen);
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
	const uint64_t npad = (n + B - 1) / B * B;
	if (npad > (uint64_t)INT32_MAX / 2)
		return fail(e, "%llu vertices is more than this engine handles", (unsigned long long)n);
	const bool is_int = o->type == ST_INT32;
	const bool paths = o->paths != 0;
	// int32 paths where 16-bit lanes are tried: distances in them, then
	// predecessors derived from the distances and the edges into each vertex.
	const int lanes16 = paths && o->derive == FWG_DERIVE_ALWAYS ? FWG_LANES16_ALWAYS : o->lanes16;
	const bool may16 = is_int && use_lanes16(n, lanes16, paths) && (B == 64 || B == 128)
	                   && (!paths || o->derive != FWG_DERIVE_NEVER);
	const uint64_t nb = npad / B;

	// Several GPUs for dense runs only, each with a block row at least.
	const bool ranks = o->ranks > 1;
	int gpus = ranks ? o->ranks : o->gpus > 1 && !o->order && !o->skip ? o->gpus : 1;
	if (ranks) {
		if (o->order || o->skip)
			return fail(e, "a sparse run (skipped blocks, an order) takes one process");
		if ((uint64_t)gpus > nb)
			return fail(e, "n = %llu has %llu block rows of %d: too few for %d processes",
			            (unsigned long long)n, (unsigned long long)nb, B, gpus);
		if (group.ranks != o->ranks || group.rank != o->rank)
			return fail(e, "process %d of %d: fwg_init_rank() first", o->rank, o->ranks);
		if (relay_rows(npad, paths) == 0)
			return fail(e, "n = %llu is too large for several processes", (unsigned long long)n);
		if ((o->rank == 0) != (graph != nullptr))
			return fail(e, "process %d of %d: the graph belongs to process 0 alone", o->rank,
			            o->ranks);
	}
	if ((uint64_t)gpus > nb)
		gpus = (int)nb;
	if (gpus > MAX_GPUS)
		return fail(e, "at most %d GPUs", MAX_GPUS);
	if (!ranks && gpus > 1 && (group.first != o->device || group.count != gpus)
	    && fwg_init(o->device, gpus, 0, errbuf, errlen) < 0)
		return -1;
	t->gpus = gpus;
	Devs v;
	v.count = gpus;
	v.first = ranks ? o->rank : 0;
	v.last = ranks ? o->rank + 1 : gpus;
	v.B = B;
	v.npad = (int)npad;
	v.phase1 = o->phase1;
	for (int g = 0; g < gpus; g++)
		band(nb, gpus, g, &v.dev[g].row0, &v.dev[g].rows);

	CUDA_TRY(cudaSetDevice(o->device));
	cudaDeviceProp prop;
	CUDA_TRY(cudaGetDeviceProperties(&prop, o->device));
	if (ranks)
		snprintf(t->device_name, sizeof t->device_name, "%d processes x %.100s", gpus, prop.name);
	else if (gpus > 1)
		snprintf(t->device_name, sizeof t->device_name, "%d x %.100s", gpus, prop.name);
	else
		snprintf(t->device_name, sizeof t->device_name, "%.*s", (int)sizeof t->device_name - 1,
		         prop.name);
	const size_t pbytes = (size_t)B * npad * 4;
	// What each device needs: its band of the matrices, the panels, and the
	// extras of the run.  Where that is more than a device has free, the run
	// goes out of core on the first device (fw_outcore.cuh), dense and in
	// the caller's order, unless it spans processes.
	size_t free_of[MAX_GPUS] = {}, total_of[MAX_GPUS] = {};
	uint64_t extra = 0;
	if (ranks && o->rank == 0) // the relay
		extra += 2 * staging.bytes;
	if (o->order) // renumbering: the order both ways, two staging-sized buffers
		extra += 8 * n + 2 * staging.bytes;
	if (o->skip) // the map of live blocks, its locks, a level's lists (and panels)
		extra += 5 * nb * nb + 8 * nb * LEVEL_MAX + 64;
	auto need_of = [&](const Dev &x) {
		return x.count(B, npad) * 4 * (paths ? 2 : 1) + 2 * pbytes
		     + (gpus > 1 && paths ? pbytes : 0) + extra;
	};
	int short_of = -1;
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(o->device + g - v.first));
		CUDA_TRY(cudaMemGetInfo(&free_of[g], &total_of[g]));
		if (o->memory_cap && free_of[g] > o->memory_cap)
			free_of[g] = o->memory_cap;
		if (short_of < 0 && need_of(v.dev[g]) > free_of[g])
			short_of = g;
	}
	OutOfCore oc;
	bool ooc = false;
	if (short_of >= 0) {
		const uint64_t free_b = free_of[v.first], total_b = total_of[v.first];
		if (!ranks && plan_out_of_core(npad, B, paths, free_b, &oc.pl)) {
			// Host memory for the bands not resident, if the caller counts it.
			if (o->host_memory && oc.pl.host_bytes > o->host_memory)
				return fail(e, "n = %llu does not fit in device memory (%.1f MiB free) and out of "
				               "core needs %.1f MiB of host memory beside the graph; %.1f MiB are "
				               "available: at most n = %llu fits",
				            (unsigned long long)n, free_b / 1048576.0,
				            oc.pl.host_bytes / 1048576.0, o->host_memory / 1048576.0,
				            (unsigned long long)largest_n_host(free_b, o->host_memory, B, paths, n));
			ooc = true;
			gpus = 1;
			v.count = 1, v.first = 0, v.last = 1;
			v.dev[0].row0 = 0;
			v.dev[0].rows = oc.pl.resident * oc.pl.S;
			t->gpus = 1;
			snprintf(t->device_name, sizeof t->device_name, "%.*s", (int)sizeof t->device_name - 1,
			         prop.name);
		} else {
			// what would fit beside the same extras, with and without paths
			const Dev &x = v.dev[short_of];
			const size_t need = need_of(x), fb = free_of[short_of], tb = total_of[short_of];
			const uint64_t room = fb > extra ? fb - extra : 0;
			char fits[128];
			if (ranks) {
				const int k = snprintf(fits, sizeof fits, ": at most n = %llu fits",
				                       (unsigned long long)largest_n(room, B, paths, gpus, n));
				if (paths)
					snprintf(fits + k, sizeof fits - k, " (%llu without paths)",
					         (unsigned long long)largest_n(room, B, false, gpus, n));
				return fail(e, "n = %llu on %d processes needs %.1f MiB of memory on GPU %d of a "
				               "process (%s); %.1f MiB of %.1f MiB are free%s",
				            (unsigned long long)n, gpus, need / 1048576.0, x.id,
				            paths ? "distances and predecessors" : "distances",
				            fb / 1048576.0, tb / 1048576.0, fits);
			}
			const int k = snprintf(fits, sizeof fits, ": at most n = %llu fits, out of core",
			                       (unsigned long long)largest_n_ooc(free_b, B, paths, n));
			if (paths)
				snprintf(fits + k, sizeof fits - k, " (%llu without paths)",
				         (unsigned long long)largest_n_ooc(free_b, B, false, n));
			return fail(e, "n = %llu needs %.1f MiB of device memory (%s), at least %.1f MiB out "
			               "of core; %.1f MiB of %.1f MiB are free%s",
			            (unsigned long long)n, need / 1048576.0,
			            paths ? "distances and predecessors" : "distances",
			            ooc_minimum(npad, B, paths) / 1048576.0, free_b / 1048576.0,
			            total_b / 1048576.0, fits);
		}
	}
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		x.id = o->device + g - v.first;
#ifdef APSP_NCCL
		if (gpus > 1)
			x.comm = group.comm[g - v.first];
#endif
		const size_t mbytes = x.count(B, npad) * 4;
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaStreamCreateWithFlags(&x.s, cudaStreamNonBlocking));
		for (auto &ev : x.ev)
			CUDA_TRY(cudaEventCreate(&ev));
		for (auto &ev : x.done)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		if (mbytes)
			CUDA_TRY(cudaMalloc(&x.d, mbytes));
		if (paths && mbytes)
			CUDA_TRY(cudaMalloc(&x.p, mbytes));
		if (gpus > 1 && paths)
			CUDA_TRY(cudaMalloc(&x.prow, pbytes));
		CUDA_TRY(cudaMalloc(&x.colT, pbytes));
		CUDA_TRY(cudaMalloc(&x.rowP, pbytes));
		CUDA_TRY(cudaMalloc(&x.scratch, 4 * sizeof *x.scratch));
		if (ranks && o->rank == 0)
			for (auto &r : x.relay)
				CUDA_TRY(cudaMalloc(&r, staging.bytes));
	}
	const bool by_rows = gpus == 1 && !ranks && !o->skip && !o->order && nb > 1 && !ooc
	                       && o->schedule != FWG_SCHEDULE_ROUNDS
	                       && (o->schedule == FWG_SCHEDULE_ROWS || n >= FWG_ROW_ORDER_FROM);
	// The 16-bit matrix where the lanes will be tried (and fit, with 64 MiB
	// to spare), allocated with the rest: without it (have16) they are not.
	bool have16 = false;
	if (may16 && !ooc && alloc16(e, v, &have16))
		return -1;
	// One device in core, every block every round, round after round: the
	// rounds with lookahead (fw_rounds.cuh), where the second pair of panels
	// fits.
	if (gpus == 1 && !ranks && !ooc && !o->skip && !by_rows
	    && o->lookahead != FWG_LOOKAHEAD_NEVER && nb > 2) {
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
	const bool as_read = o->feed && by_rows && !paths;
	if (o->feed && !as_read
	    && (o->feed->rows(o->feed->ctx, n) < n || !o->feed->verdict(o->feed->ctx)))
		return 1;
	t->streamed = as_read;
	if (ooc)
		return solve_out_of_core(e, v, oc, o->type, paths, n, graph, sink, ctx, t);
	Dev &d0 = v.dev[v.first];
	CUDA_TRY(cudaSetDevice(d0.id));

	Reorder reorder, *ro = nullptr;
	if (o->order) {
		ro = &reorder;
		ro->host = o->order;
		std::vector<int32_t> pos(n);
		for (uint64_t k = 0; k < n; k++)
			pos[o->order[k]] = (int32_t)k;
		CUDA_TRY(cudaMalloc(&ro->order, n * 4));
		CUDA_TRY(cudaMalloc(&ro->pos, n * 4));
		CUDA_TRY(cudaMemcpy(ro->order, o->order, n * 4, cudaMemcpyHostToDevice));
		CUDA_TRY(cudaMemcpy(ro->pos, pos.data(), n * 4, cudaMemcpyHostToDevice));
		for (auto &x : ro->tmp)
			CUDA_TRY(cudaMalloc(&x, staging.bytes));
	}
	Sparse *sp = nullptr;
	if (o->skip && nb > 1) {
		sp = &d0.sparse;
		CUDA_TRY(cudaMalloc(&sp->live, nb * nb));
		CUDA_TRY(cudaMalloc(&sp->updates, sizeof *sp->updates));
		sp->sms = prop.multiProcessorCount;
	}

	cudaEvent_t guard[2] = {nullptr, nullptr};
	for (int g = v.first; g < v.last; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[0], v.dev[g].s));
		if (graph && !as_read && upload_rows(e, graph, v.dev[g], n, npad, B, guard, ro))
			return -1;
	}
#ifdef APSP_NCCL
	for (int g = 1; g < gpus && ranks; g++) // other processes' bands, through process 0
		if ((o->rank == 0 || g == o->rank) && relay_up(e, v, graph, g, n, guard))
			return -1;
#endif
	// int32: the sum of each vertex's largest weight bounds every simple
	// path; below INF_PACKED, tracked paths can take the packed form.  And
	// where no edge weighs 0, every derived chain ends at its source.  Both
	// matter only with paths.
	bool packed = false;
	if (is_int && paths) {
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(x.scratch, 0, 2 * sizeof *x.scratch, x.s));
			if (facts_of_rows(e, v, x, n))
				return -1;
		}
		unsigned long long facts[2];
		if (combine(e, v, 2, true, facts))
			return -1;
		t->zero_weight = facts[1] != 0;
		packed = facts[0] < (unsigned long long)INF_PACKED;
	}
	t->packed = packed;
	for (int g = v.first; g < v.last && !as_read; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		if (prepare_rows(e, v, v.dev[g], n, is_int, packed))
			return -1;
	}
	// The kernels' time runs from when every device is ready (rows still
	// arriving: from when the first band is).
	if (gpus > 1 && sync_all(e, v))
		return -1;
	for (int g = v.first; g < v.last && !as_read; g++) {
		CUDA_TRY(cudaSetDevice(v.dev[g].id));
		CUDA_TRY(cudaEventRecord(v.dev[g].ev[1], v.dev[g].s));
	}
	CUDA_TRY(cudaSetDevice(d0.id));

	// A sparse run (one GPU) starts from the blocks that hold a finite entry
	// (again before a 32-bit run that follows a rejected 16-bit one).
	auto sparse_start = [&]() -> int {
		if (!sp)
			return 0;
		CUDA_TRY(cudaMemsetAsync(sp->updates, 0, sizeof *sp->updates, d0.s));
		const dim3 g((unsigned)nb, (unsigned)nb);
		if (is_int)
			live_init<int><<<g, 256, 0, d0.s>>>((const int *)d0.d, (int)npad, B,
			                                    packed ? INF_PACKED : ST_INF_I32, sp->live);
		else
			live_init<float><<<g, 256, 0, d0.s>>>((const float *)d0.d, (int)npad, B,
			                                      __builtin_inff(), sp->live);
		CUDA_TRY(cudaGetLastError());
		return 0;
	};
	t->tiles = nb > 1 ? nb * (2 * (nb - 1) + (nb - 1) * (nb - 1)) : 0;
	// Row order (fw_roworder.cuh): one device, in core, dense, as numbered;
	// each band of rows goes to the sink as soon as it is final.
	RowOrder row_order, *rw = nullptr;
	if (by_rows) {
		if (row_order.open(e, (int)nb, d0.id))
			return -1;
		row_order.sink = sink, row_order.ctx = ctx, row_order.paths = paths;
		if (as_read) {
			row_order.feed = o->feed, row_order.graph = graph, row_order.is_int = is_int;
			row_order.start = d0.ev[1];
		}
		rw = &row_order;
		t->row_bands = row_order.bands;
	}
	int done = 0;
	int rc = sparse_start();
	if (rc == 0 && sp) {
		rc = plan_levels(e, d0, *sp, (int)nb, (int)npad, B);
		t->levels = sp->levels();
	}
	const int inf_dev = packed ? INF_PACKED : ST_INF_I32;
	int derive16 = 0, derive32 = 0;
	// The lists of edges for predecessors derived from 16-bit distances: on
	// one device in the rounds' order, made once the 16-bit rounds are
	// queued (where memory is sure to hold them), so that the host's wait
	// for their count and the allocations come while the device runs.
	std::function<int()> lists16;
	if (rc == 0 && paths && have16 && v.count == 1 && !rw) {
		int sure = 0;
		rc = lists_open(e, (int)n, 2, d0.s, d0.id, &d0.ie, &derive16, &sure);
		if (rc == 0 && derive16 && sure)
			lists16 = [&]() -> int {
				int ok = 0;
				if (lists_make<int>(e, (const int *)d0.d, (int)n, (int)npad, inf_dev, &d0.ie, &ok))
					return -1;
				return ok ? 0 : fail(e, "device memory ran short for the lists of edges");
			};
		else if (rc == 0 && derive16)
			rc = lists_make<int>(e, (const int *)d0.d, (int)n, (int)npad, inf_dev, &d0.ie,
			                     &derive16);
	} else if (rc == 0 && paths && have16) {
		rc = list_in_edges_all<int>(e, v, (int)n, inf_dev, 2, &derive16);
	}
	// float32 with the whole graph on the devices: its signs (SIGN_*).
	// Distances as bits (Elem<uint32_t>) where no entry has its sign bit
	// set; with paths, predecessors derived where no weight is negative,
	// from distances computed without them.
	unsigned long long signs = 0;
	if (rc == 0 && !is_int && !as_read) {
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(x.scratch, 0, sizeof *x.scratch, x.s));
			float_signs<<<1024, 256, 0, x.s>>>((const float *)x.d, x.count(B, npad),
			                                   (int *)x.scratch);
			CUDA_TRY(cudaGetLastError());
		}
		if (combine(e, v, 1, false, &signs))
			return -1;
	}
	const bool as_bits = !is_int && !as_read && !(signs & SIGN_NOT_ORDERED)
	                     && o->float_bits != FWG_FLOAT_BITS_NEVER;
	if (rc == 0 && !is_int && paths && !(signs & SIGN_BELOW_ZERO) && o->derive != FWG_DERIVE_NEVER
	    && (o->derive == FWG_DERIVE_ALWAYS || n >= DERIVE_FLOAT_FROM))
		rc = list_in_edges_all<float>(e, v, (int)n, __builtin_inff(), 4, &derive32);
	// The lists are made beside what follows, from the weights in d: the
	// rounds that overwrite d wait until they have been read.  The 16-bit
	// run's rounds do not (try16 waits before its distances go back to d),
	// unless they go in row order.
	auto weights_read = [&]() -> int {
		for (int g = v.first; g < v.last; g++) {
			CUDA_TRY(cudaSetDevice(v.dev[g].id));
			CUDA_TRY(v.dev[g].ie.after_read(v.dev[g].s));
		}
		CUDA_TRY(cudaSetDevice(d0.id));
		return 0;
	};
	t->float_bits = as_bits && (!paths || derive32);
	// What the sink may read (rows in row order reach it from the 16-bit
	// run itself): as if the 16-bit run stands, then as it came out.
	auto choices = [&](int lanes) {
		t->lanes16 = lanes;
		t->derived = (derive16 && lanes == 1) || derive32;
		t->chains_sure = t->derived && is_int && !t->zero_weight;
	};
	const bool tries16 = have16 && (!paths || derive16);
	choices(tries16 && rw ? 1 : 0);
	if (rc == 0 && tries16 && rw) // (16-bit rounds in row order)
		rc = weights_read();
	if (rc == 0 && tries16)
		rc = try16(e, v, (int)n, inf_dev, sp, derive16, rw, &done, lists16);
	if (rc == 0) // (the 32-bit rounds, if they come)
		rc = weights_read();
	if (rc == 0 && rw && rw->restart)
		return 1;
	if (rw && rw->not16) // from the first band again, on 32 bits
		rw->reset();
	choices(done);
	if (rc == 0 && done == -1)
		rc = sparse_start();
	uint64_t sunk = 0; // rows the sink has taken
	if (rc == 0 && done == -1 && rw) { // from the weights again, on 32 bits, the rounds' way
		sunk = rw->sunk;
		rw = nullptr;
		cudaEvent_t again[2] = {nullptr, nullptr};
		if (upload_rows(e, graph, d0, n, npad, B, again, nullptr)
		    || prepare_rows(e, v, d0, n, is_int, packed))
			return -1;
	}
	auto rounds = [&](auto c) {
		using C = decltype(c);
		if (!rw)
			return run_rounds<typename C::T, C::B, C::R, C::PATHS, C::PACKED>(e, v, sp);
		RoundKernels<typename C::T, C::B, C::R, C::PATHS, C::PACKED> k;
		if (k.setup(e, d0.id, (int)npad, nullptr))
			return -1;
		const size_t stride = (size_t)B * npad;
		auto finish_band = [&](int r0, int r1) -> int { // the caller's INF; predecessors
			const size_t count = (size_t)(r1 - r0) * stride;
			if (packed)
				finish<int><<<(unsigned)((count + 255) / 256), 256, 0, d0.s>>>(
				        (int *)d0.d + r0 * stride, count, ST_INF_I32, INF_PACKED);
			CUDA_TRY(cudaGetLastError());
			if (derive32)
				return derive_rows(e, d0, (const float *)d0.d, d0.p, (int)npad, (int)n, r0 * B,
				                   std::min((int)n, r1 * B));
			return 0;
		};
		const int rc = row_order_rounds(e, v, k, band_of(v, d0), n, *rw, finish_band,
		                                [](int, int) { return 0; });
		v.small_ran = k.small_ran;
		return rc;
	};
	if (rc == 0 && done != 1)
		rc = is_int           ? dispatch<int>(e, B, paths, packed, rounds)
		     : t->float_bits ? dispatch<uint32_t>(e, B, false, false, rounds)
		                      : dispatch<float>(e, B, paths && !derive32, packed, rounds);
	if (rc == 0 && rw && rw->restart)
		return 1;
	for (int g = v.first; g < v.last && rc == 0 && derive32 && !rw; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		rc = derive<float>(e, v, x, x.base<float>(x.d, B, (int)npad), (int)n);
	}
	if (rc)
		return rc;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		CUDA_TRY(cudaSetDevice(x.id));
		if (!rw) // (row order records it after its last band)
			CUDA_TRY(cudaEventRecord(x.ev[2], x.s));
		if (packed && !rw && finish_rows(e, v, x))
			return -1;
	}
	if (sync_all(e, v))
		return -1;
	CUDA_TRY(cudaSetDevice(d0.id));
	auto t_down = std::chrono::steady_clock::now();
	if (sp) {
		unsigned long long updates = 0;
		CUDA_TRY(cudaMemcpy(&updates, sp->updates, sizeof updates, cudaMemcpyDeviceToHost));
		t->tiles_skipped = t->tiles - updates;
	}
#ifdef APSP_NCCL
	if (ranks && o->rank != 0) {
		if (relay_down(e, v, n, paths))
			return -1;
	} else
#endif
	if (rw) // in row order: from the first band final to the last panel taken
		t->download_ms = (rw->last_s - rw->first_s) * 1e3;
	else if (download_panels(e, v, n, paths, ro, nullptr, sink, ctx, sunk))
		return -1;
	else
		t->download_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_down).count();
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
