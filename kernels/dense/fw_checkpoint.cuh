// fw_checkpoint.cuh - the rounds' state to the caller's checkpoints and back
// (fwg_opts.checkpoint; included by fw_rounds.cuh).  Between two steps
// every device's band is gathered through the staging buffers into one host
// matrix (entries of the distances' width; 16-bit lanes as they are,
// widened to 32-bit words as the caller takes them) and handed to the caller on a thread of its own while the
// devices go on; a resumed run puts it back before its first step.  Where
// the host has no room for that matrix (direct), the caller takes the state
// straight from the devices, and puts it back there, while they wait.
#ifndef APSP_FW_CHECKPOINT_CUH
#define APSP_FW_CHECKPOINT_CUH

#include <stdlib.h>
#include <string.h>

#include <functional>
#include <thread>

#include "fw_devs.cuh"
#include "fw_gpu.h"
#include "fw_transfer.cuh"
extern "C" {
#include "common.h" // lib_huge_alloc
}

namespace {

struct Checkpoints {
	const fw_checkpoint *cb = nullptr;
	uint64_t side = 0;                  // npad
	// The state on the host (16-bit lanes: d as shorts), on huge pages where
	// the system has them, so that the staging copies' threads fault it in
	// 2 MiB at a time.  (Copied straight into fresh memory, the state of
	// n = 40000 held the devices 4.6 s at a run's first checkpoint and 1.1 s
	// at the next ones; bench/checkpoint.md.)
	char *d = nullptr;
	int32_t *p = nullptr;
	size_t es = 4;                      // bytes of a distance in the state (v.es)
	char stage[96] = "";                // set before each stage's steps
	uint64_t steps = 0;                 // ... and their steps
	bool tracked = false;               // ... and whether predecessors are in the state
	std::thread writer;
	cudaEvent_t ended[MAX_GPUS] = {}; // the last step's end on each device
	int ids[MAX_GPUS] = {};
	int saved = 0, resumed = 0;
	// One process of several (MPI): its band alone on the host, from entry
	// base of the state, and the state handed over on the calling thread
	// (the caller's processes write it together).
	bool ranks = false;
	size_t base = 0, entries = 0;
	// A sparse run: its map of live blocks made again from a state loaded.
	std::function<int(bool lanes16)> relive;
	// No host copy: the state between the devices and the caller, the
	// devices waiting.  lanes16: the state is the 16-bit matrix.
	bool direct = false, lanes16 = false;
	const Devs *devs = nullptr;

	~Checkpoints()
	{
		wait();
		free(d);
		free(p);
		for (int g = 0; g < MAX_GPUS; g++)
			if (ended[g]) {
				cudaSetDevice(ids[g]);
				cudaEventDestroy(ended[g]);
			}
	}
	void wait()
	{
		if (writer.joinable())
			writer.join();
	}

	// In core, the host matrix of distances (the predecessors' when first
	// needed); out of core the state stays where it is.
	int open(Err e, const fw_checkpoint *c, Devs &v, bool in_core)
	{
		cb = c;
		devs = &v;
		in_core = in_core && !direct;
		side = (uint64_t)v.npad;
		es = (size_t)v.es;
		ranks = v.last - v.first < v.count;
		base = ranks ? (size_t)v.dev[v.first].row0 * v.B * side : 0;
		entries = ranks ? v.dev[v.first].count(v.B, (int)side) : side * side;
		d = in_core ? (char *)lib_huge_alloc(entries * es + 4) : nullptr;
		if (in_core && !d)
			return fail(e, "no host memory for checkpoints (%.1f GiB)",
			            (double)(entries * es) / (1 << 30));
		for (int g = v.first; g < v.last; g++) {
			ids[g] = v.dev[g].id;
			CUDA_TRY(cudaSetDevice(ids[g]));
			CUDA_TRY(cudaEventCreateWithFlags(&ended[g], cudaEventDisableTiming));
		}
		CUDA_TRY(cudaSetDevice(v.dev[v.first].id));
		return 0;
	}
	int room_for_paths(Err e)
	{
		if (!p && !(p = (int32_t *)lib_huge_alloc(entries * 4 + 4)))
			return fail(e, "no host memory for the predecessors' checkpoints (%.1f GiB)",
			            (double)(entries * 4) / (1 << 30));
		return 0;
	}

	// A step queued on every device: its end marked.
	int step_ended(Err e, Devs &v)
	{
		for (int g = v.first; g < v.last; g++) {
			if (v.count > 1)
				CUDA_TRY(cudaSetDevice(v.dev[g].id));
			CUDA_TRY(cudaEventRecord(ended[g], v.dev[g].s));
		}
		return 0;
	}
	// Before the step that may be the last before a checkpoint is queued:
	// the one before done (so that the host's clock keeps up with the
	// devices'), then whether one is due (where the last is still being
	// written, it is waited for: checkpoints as often as asked).  1, 0 or -1.
	int due(Err e, Devs &v)
	{
		for (int g = v.first; g < v.last; g++)
			CUDA_TRY(cudaEventSynchronize(ended[g]));
		return asks() ? 1 : 0;
	}
	// The caller's word on whether one is due now.
	bool asks() const { return cb->due(cb->ctx, side * side * (es + (tracked ? 4 : 0))) != 0; }

	// Every device's rows of the state to (up) or from the host through the
	// staging buffers, the 16-bit matrix as it is (the devices idle first:
	// the buffers free).
	int move(Err e, Devs &v, bool lanes16, bool up)
	{
		if (sync_devices(e, v))
			return -1;
		const size_t chunk = (size_t)v.B * v.npad, w = lanes16 ? 2 : es;
		for (int g = v.first; g < v.last; g++) {
			Dev &x = v.dev[g];
			const size_t at = (size_t)x.row0 * chunk - base, count = x.count(v.B, v.npad);
			cudaEvent_t guard[2] = {nullptr, nullptr};
			auto copy = [&](void *dev, void *host, size_t bytes) {
				return up ? stage_up(e, (char *)dev, (const char *)host, bytes, x.s, x.done, guard)
				          : stage_down(e, (char *)host, (const char *)dev, bytes, x.s, x.done,
				                       guard);
			};
			CUDA_TRY(cudaSetDevice(x.id));
			if (tracked && count && copy(x.p, p + at, count * 4))
				return -1;
			if (count && copy(lanes16 ? (void *)x.d16 : (void *)x.d, d + at * w, count * w))
				return -1;
			CUDA_TRY(cudaStreamSynchronize(x.s));
		}
		CUDA_TRY(cudaSetDevice(v.dev[v.first].id));
		return 0;
	}

	// The host's copy of the state, to the caller and from it.
	// 16-bit lanes widened and narrowed value for value, as the rounds
	// read them.
	// The bytes of an entry of the state as the caller sees it.
	size_t unit(int pred) const { return pred || lanes16 ? 4 : es; }
	static int host_get(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
	{
		const Checkpoints *c = (const Checkpoints *)ctx;
		const size_t u = c->unit(pred), at = offset / u - c->base, count = bytes / u;
		if ((offset | bytes) % u)
			return -1;
		const short *s = (const short *)c->d + at;
		int32_t *w = (int32_t *)buf;
		if (c->lanes16 && !pred)
			for (size_t i = 0; i < count; i++)
				w[i] = s[i];
		else
			memcpy(w, pred ? (const char *)(c->p + at) : c->d + at * u, bytes);
		return 0;
	}
	static int host_put(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
	{
		Checkpoints *c = (Checkpoints *)ctx;
		const size_t u = c->unit(pred), at = offset / u - c->base, count = bytes / u;
		if ((offset | bytes) % u)
			return -1;
		short *s = (short *)c->d + at;
		const int32_t *w = (const int32_t *)buf;
		if (c->lanes16 && !pred)
			for (size_t i = 0; i < count; i++)
				s[i] = (short)w[i];
		else
			memcpy(pred ? (char *)(c->p + at) : c->d + at * u, w, bytes);
		return 0;
	}

	// Every device idle, its own streams and the default one; the first
	// device current again.
	static int sync_devices(Err e, Devs &v)
	{
		for (int g = v.first; g < v.last; g++) {
			CUDA_TRY(cudaSetDevice(v.dev[g].id));
			CUDA_TRY(cudaDeviceSynchronize());
		}
		CUDA_TRY(cudaSetDevice(v.dev[v.first].id));
		return 0;
	}

	// Direct: bytes of the state from offset, device by device (a range may
	// span two bands), between the devices and buf; 16-bit lanes widened or
	// narrowed on the host, value for value.
	static int dev_move(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes, bool up)
	{
		const Checkpoints *c = (const Checkpoints *)ctx;
		const Devs &v = *c->devs;
		const bool narrow = c->lanes16 && !pred;
		const size_t u = c->unit(pred);
		for (uint64_t at = offset / u, left = bytes / u; left;) {
			int g = v.first;
			while (g + 1 < v.last && at >= v.dev[g + 1].first_row(v.B) * (uint64_t)v.npad)
				g++;
			const Dev &x = v.dev[g];
			const uint64_t x0 = x.first_row(v.B) * (uint64_t)v.npad, k = at - x0;
			const uint64_t take = std::min<uint64_t>(left, x.count(v.B, v.npad) - k);
			int32_t *h = (int32_t *)((char *)buf + (at - offset / u) * u);
			if (cudaSetDevice(x.id) != cudaSuccess)
				return -1;
			cudaError_t st = cudaSuccess;
			if (!narrow) {
				char *dev = (char *)(pred ? (void *)x.p : x.d) + k * u;
				st = up ? cudaMemcpy(dev, h, take * u, cudaMemcpyHostToDevice)
				        : cudaMemcpy(h, dev, take * u, cudaMemcpyDeviceToHost);
			} else if (up) {
				short *tmp = (short *)malloc(take * 2 + 2);
				if (!tmp)
					return -1;
				for (uint64_t i = 0; i < take; i++)
					tmp[i] = (short)h[i];
				st = cudaMemcpy(x.d16 + k, tmp, take * 2, cudaMemcpyHostToDevice);
				free(tmp);
			} else { // into the second half of h, then widened forwards
				short *s = (short *)(h + take) - take;
				st = cudaMemcpy(s, x.d16 + k, take * 2, cudaMemcpyDeviceToHost);
				for (uint64_t i = 0; st == cudaSuccess && i < take; i++)
					h[i] = s[i];
			}
			if (st != cudaSuccess)
				return -1;
			at += take, left -= take;
		}
		return 0;
	}
	static int dev_get(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
	{
		return dev_move(ctx, pred, offset, buf, bytes, false);
	}
	static int dev_put(void *ctx, int pred, uint64_t offset, void *buf, uint64_t bytes)
	{
		return dev_move(ctx, pred, offset, buf, bytes, true);
	}

	// The state after step steps to the caller, on the writer's thread
	// (direct: on this one, from the devices).
	int save(Err e, Devs &v, bool lanes16, uint64_t step)
	{
		if (sync_devices(e, v))
			return -1;
		wait();
		this->lanes16 = lanes16;
		if (direct) {
			saved++;
			hand(step, dev_get, this);
			return sync_devices(e, v);
		}
		if ((tracked && room_for_paths(e)) || move(e, v, lanes16, false))
			return -1;
		saved++;
		if (ranks) // (the processes write it together, on their callers' threads)
			hand(step, host_get, this);
		else
			writer = std::thread([this, step]() { hand(step, host_get, this); });
		return 0;
	}
	// The state after step steps to the caller, at once, through get (out of
	// core: from where it lives).
	void save_now(uint64_t step, fw_state_fn *get, void *gctx)
	{
		saved++;
		hand(step, get, gctx);
	}
	void hand(uint64_t step, fw_state_fn *get, void *gctx) const
	{
		cb->save(cb->ctx, stage, step, steps, side, tracked, get, gctx);
	}

	// Before a stage's first step, the state put through put: the step to go
	// on from in *first, 0 where the stage begins; 2 where the checkpoint is
	// of another stage (nothing put).
	int load_now(Err e, fw_state_fn *put, void *pctx, uint64_t *first)
	{
		*first = 0;
		const int64_t at = cb->load(cb->ctx, stage, steps, side, tracked, put, pctx);
		if (at == FW_CHECKPOINT_OTHER)
			return 2;
		if (at < 0 || (uint64_t)at >= steps)
			return fail(e, "checkpoint not loaded");
		*first = (uint64_t)at;
		resumed = (int)at;
		return 0;
	}
	// The same in core: through the host's copy, then onto the devices.
	int load(Err e, Devs &v, bool lanes16, uint64_t *first)
	{
		wait();
		this->lanes16 = lanes16;
		if (direct) { // (the copies on the default stream: the devices' own streams
			          // done before, and the copies done before the rounds)
			if (sync_devices(e, v))
				return -1;
			const int rc = load_now(e, dev_put, this, first);
			if (sync_devices(e, v))
				return -1;
			if (rc || *first == 0)
				return rc;
			return relive && relive(lanes16) ? -1 : 0;
		}
		if (tracked && room_for_paths(e))
			return -1;
		const int rc = load_now(e, host_put, this, first);
		if (rc || *first == 0)
			return rc;
		return move(e, v, lanes16, true) || (relive && relive(lanes16)) ? -1 : 0;
	}
};

} // namespace
#endif
