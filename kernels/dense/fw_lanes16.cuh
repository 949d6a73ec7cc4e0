// fw_lanes16.cuh - the 16-bit attempt (included by fw_gpu.cu): int32
// distances in 16-bit lanes where the weights allow, checked afterwards and
// converted back to 32 bits, with predecessors derived from them where asked;
// in the rounds' order (fw_rounds.cuh) or in row order (fw_roworder.cuh).
#ifndef APSP_FW_LANES16_CUH
#define APSP_FW_LANES16_CUH

#include "fw_rounds.cuh"
#include "fw_roworder.cuh"

#include <functional>

namespace {

// The 16-bit matrices, where every device of the run has room for its own
// with 64 MiB to spare (*ok); allocated with the run's other buffers, before
// the kernels' time starts.
int alloc16(Err e, Devs &v, bool *ok)
{
	bool short_of[MAX_GPUS] = {}, none = false;
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		const size_t bytes = x.count(v.B, v.npad) * 2;
		size_t free_b = 0, total_b = 0;
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
		if (bytes + (64 << 20) > free_b || cudaMalloc(&x.d16, bytes) != cudaSuccess) {
			cudaGetLastError();
			short_of[g] = true;
		}
	}
	if (any_of(e, v, short_of, &none))
		return -1;
	for (int g = v.first; g < v.last && none; g++) {
		cudaSetDevice(v.dev[g].id);
		cudaFree(v.dev[g].d16);
		v.dev[g].d16 = nullptr;
	}
	*ok = !none;
	return 0;
}

// The 16-bit run in the 32-bit matrix's own memory (Dev::d16_in_d), for a
// graph made on the device from its arcs: the largest weight, whether a
// result that stands stays in 16 bits (the statistics fold it there) rather
// than going back to 32.  The matrix is made in 16-bit lanes where that
// weight fits them (made), else the run is on 32 bits.  A result rejected
// leaves d to be made again from the arcs.
struct InPlace16 {
	int wmax = 0;
	bool keep = false;
	bool made() const { return fits16(wmax); }
};

// Try the 16-bit run.  *done: 1 its result stands (the devices' d hold it),
// -1 it was run and rejected, 0 it was not tried.  inf: d's INF.  With
// derive, a result that stands also gets its predecessors, derived into p;
// lists, where given, makes the lists of edges that needs once the rounds
// are queued.
// With rw (one device), the rounds go in row order and each band, checked
// and converted, goes to rw's sink as soon as it is final; a band rejected
// stops the run (*done -1, rw->sunk rows taken; the other bands of d were
// converted or not).  Where rw's rows are still arriving, each band's
// weights are checked as it comes; a band too heavy for 16-bit lanes ends
// the attempt (*done 0, rw->not16), as does a failed input (rw->restart).
// With ip (one device, not in row order), the run is made in place.
int try16(Err e, Devs &v, int n, int inf, const Sparse *sp, bool derive16, RowOrder *rw,
          int *done, const std::function<int()> &lists = nullptr, const InPlace16 *ip = nullptr)
{
	*done = 0;
	const int B = v.B;
	const bool as_read = rw && rw->feed;
	int wmax = 0, rc = 0;
	if (ip) { // (made in the lanes from the arcs, or not tried)
		if (!ip->made())
			return 0;
		wmax = ip->wmax;
	}
	// the weights into 16-bit lanes, and the largest of them
	for (int g = v.first; g < v.last && !as_read && !ip; g++) {
		Dev &x = v.dev[g];
		const size_t count = x.count(B, v.npad);
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemsetAsync(x.scratch, 0, sizeof *x.scratch, x.s));
		if (count)
			to16_max<<<1024, 256, 0, x.s>>>((const int *)x.d, x.d16, count, inf,
			                                (int *)x.scratch);
		CUDA_TRY(cudaGetLastError());
	}
	if (!as_read && !ip) {
		unsigned long long m = 0;
		if (combine(e, v, 1, false, &m))
			return -1;
		wmax = (int)m;
	}
	if (!fits16(wmax))
		return 0;
	if (rw) {
		Dev &x = v.dev[v.first];
		const size_t stride = (size_t)B * v.npad;
		rw->lanes16 = true, rw->wmax = wmax;
		// a band once final: its largest distance to the host, its
		// predecessors, its distances back to 32 bits
		auto finish_band = [&](int r0, int r1) -> int {
			const int i = r0 / rw->band;
			const size_t count = (size_t)(r1 - r0) * stride;
			CUDA_TRY(cudaMemsetAsync(&rw->dmax[i], 0, sizeof *rw->dmax, x.s));
			max_below<short><<<1024, 256, 0, x.s>>>(x.d16 + r0 * stride, count, INF16, &rw->dmax[i]);
			CUDA_TRY(cudaMemcpyAsync(&rw->dmax_host[i], &rw->dmax[i], sizeof *rw->dmax,
			                         cudaMemcpyDeviceToHost, x.s));
			if (derive16 && derive_rows(e, x, (const short *)x.d16, x.p, v.npad, n, r0 * B,
			                            std::min(n, r1 * B)))
				return -1;
			from16<<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>(x.d16 + r0 * stride,
			                                                         (int *)x.d + r0 * stride, count);
			CUDA_TRY(cudaGetLastError());
			return 0;
		};
		// a band as it arrives: its largest weight checked, then its
		// weights into 16-bit lanes (on rw's stream, as the band went up)
		auto arrive_band = [&](int r0, int r1) -> int {
			const int i = r0 / rw->band;
			const size_t count = (size_t)(r1 - r0) * stride;
			int *m = &rw->dmax[rw->bands + i], *mh = &rw->dmax_host[rw->bands + i];
			CUDA_TRY(cudaMemsetAsync(m, 0, sizeof *m, rw->cs));
			max_below<int><<<1024, 256, 0, rw->cs>>>((const int *)x.d + r0 * stride, count, inf, m);
			CUDA_TRY(cudaMemcpyAsync(mh, m, sizeof *m, cudaMemcpyDeviceToHost, rw->cs));
			CUDA_TRY(cudaStreamSynchronize(rw->cs));
			if (!fits16(*mh))
				return 1;
			rw->wmax = std::max(rw->wmax, *mh);
			to16<<<(unsigned)((count + 255) / 256), 256, 0, rw->cs>>>((const int *)x.d + r0 * stride,
			                                                         x.d16 + r0 * stride, count);
			CUDA_TRY(cudaGetLastError());
			return 0;
		};
		auto go = [&](auto k) {
			if (k.setup(e, x.id, v.npad, nullptr))
				return -1;
			return row_order_rounds(e, v, k, band_of(v, x, true), n, *rw, finish_band,
			                        arrive_band);
		};
		rc = B == 64 ? go(RoundKernels16<64>{}) : go(RoundKernels16<128>{});
		if (rw->rejected)
			rc = 0, *done = -1;
		else if (rc == 0 && !rw->not16 && !rw->restart)
			*done = 1;
	} else {
		// the rounds; then, where no distance came within wmax of INF16, the
		// distances back to 32 bits (decided on the device), and the verdict
		if (v.ck)
			snprintf(v.ck->stage, sizeof v.ck->stage, "B%d,16-bit-unsigned%s", B,
			         sp ? ",levels" : "");
		rc = B == 64 ? run_rounds16<64>(e, v, sp) : run_rounds16<128>(e, v, sp);
		if (rc == 2) { // a checkpoint of the 32-bit run that follows: on to that
			*done = -1;
			return sync_all(e, v);
		}
		if (rc == 0 && lists) // (made while the devices run the rounds queued)
			rc = lists();
		for (int g = v.first; g < v.last && rc == 0; g++) {
			Dev &x = v.dev[g];
			const size_t count = x.count(B, v.npad);
			CUDA_TRY(cudaSetDevice(x.id));
			CUDA_TRY(cudaMemsetAsync(&x.scratch[1], 0, sizeof *x.scratch, x.s));
			if (count)
				max_below<short><<<1024, 256, 0, x.s>>>(x.d16, count, INF16,
				                                         (int *)&x.scratch[1]);
			CUDA_TRY(cudaGetLastError());
		}
		if (rc == 0)
			rc = reduce_scratch(e, v, 1, 1, false);
		// (the predecessors derived on the device's verdict too, before the
		// host hears it; the weights overwritten once the lists have them)
		for (int g = v.first; g < v.last && rc == 0; g++) {
			Dev &x = v.dev[g];
			const size_t count = x.count(B, v.npad);
			CUDA_TRY(cudaSetDevice(x.id));
			if (derive16 && derive(e, v, x, x.base<short>(x.d16, B, v.npad), n,
			                       (const int *)&x.scratch[1], wmax))
				return -1;
			CUDA_TRY(x.ie.after_read(x.s));
			if (count && !ip)
				from16_if<<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>(
				        x.d16, (int *)x.d, count, wmax, (const int *)&x.scratch[1]);
			CUDA_TRY(cudaGetLastError());
		}
		unsigned long long dmax = 0;
		Dev &x0 = v.dev[v.first];
		if (rc == 0) {
			CUDA_TRY(cudaSetDevice(x0.id));
			CUDA_TRY(cudaMemcpyAsync(&dmax, &x0.scratch[1], sizeof dmax, cudaMemcpyDeviceToHost,
			                         x0.s));
			rc = sync_all(e, v);
		}
		if (rc == 0 && (int)dmax + wmax < INF16) {
			*done = 1;
			for (int g = v.first; g < v.last && ip && !ip->keep; g++) {
				Dev &x = v.dev[g];
				CUDA_TRY(cudaSetDevice(x.id));
				CUDA_TRY(widen_in_place(x.d, x.count(B, v.npad), x.s));
			}
		} else if (rc == 0) {
			*done = -1;
		}
	}
	for (int g = v.first; g < v.last; g++) {
		Dev &x = v.dev[g];
		cudaSetDevice(x.id);
		cudaError_t st = cudaStreamSynchronize(x.s);
		if (rc == 0 && st != cudaSuccess)
			rc = fail(e, "16-bit run: %s", cudaGetErrorString(st));
	}
	return rc;
}

} // namespace
#endif
