// fw_roworder.cuh - the row-order scheduler (included by fw_gpu.cu): on one
// device, the same block updates as run_rounds makes, in an order that
// finishes the block rows from the top in bands, so that each band's results
// go to the host (and the caller's sink) while the device works on the next.
//
// Every block gets rounds 0 .. nb - 1 in order, each with the pivot row and
// column it gets from run_rounds; only the order across block rows changes:
//   1. Rounds 0 .. nb - 1 on the rows from the pivot row down: round k is
//      phase 1 and the pivot row's phase 2 on row k, the pivot column's
//      blocks and phase 3 on the rows below it.  Row k then stays as round k
//      left it until step 2 comes to it.
//   2. Band by band from the top: the band's rows above k get round k, for
//      k from the band's first row + 1 to nb - 1, with pivot row k as step 1
//      left it (no row below the band has been touched since).  After that
//      the band is final; its conversions run, and it goes to the host on a
//      stream of its own while the next band's rounds run.
// The results are the same bytes as run_rounds'.  The rounds of step 2 take
// bands of at least 16 block rows (32 bands at most) so that each launch
// still fills the device.
//
// Where the caller is still reading the graph (fwg_opts.feed), step 1 goes
// band by band too, each band as soon as its rows are in: rounds 0 .. k on
// its rows, with the pivot rows of the bands above as their step 1 left them
// and its own as the band's rounds make them.  A block gets the same rounds
// with the same operands as in step 1 over the whole matrix, so the results
// are again the same bytes.  Step 2 waits for the caller's verdict on the
// whole graph.
#ifndef APSP_FW_ROWORDER_CUH
#define APSP_FW_ROWORDER_CUH

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "fw_rounds.cuh"
#include "fw_transfer.cuh"

namespace {

// Where results come out in row order: the bands, the events that say each
// is final, and what the thread that takes them to the sink has done.
struct RowOrder {
	int nb = 0, band = 0, bands = 0; // block rows; per band; bands
	fwg_sink *sink = nullptr;
	void *ctx = nullptr;
	bool paths = false;
	bool keep = false;              // the bands stay on the device (statistics)
	// 16-bit lanes: each band's largest finite distance (max_below), to
	// check against the largest weight before it is handed on
	bool lanes16 = false;
	int wmax = 0;
	int *dmax = nullptr, *dmax_host = nullptr;
	std::vector<cudaEvent_t> fin;
	cudaStream_t cs = nullptr;
	std::mutex m;
	std::condition_variable cv;
	int recorded = 0;               // fin[0 .. recorded - 1] are recorded
	std::atomic<bool> stop{false};  // either side gave up
	bool rejected = false;          // a band's 16-bit distances came too close to INF16
	uint64_t sunk = 0;              // rows the sink has taken
	double first_s = 0, last_s = 0; // when the first band was final; the last panel taken
	int rc = 0;
	char msg[512] = "";
	// Rows still arriving (feed): each band goes up on cs once it is in
	// the caller's graph and is prepared there (up[i]); in counts the
	// block rows on the device.  dmax[bands + i]: band i's largest weight.
	const fwg_feed *feed = nullptr;
	const void *graph = nullptr;
	bool is_int = true;
	int in = 0;
	bool asked = false;   // the verdict was asked for (once per solve)
	bool restart = false; // the input failed or the verdict was 0
	bool not16 = false;   // a band's weights do not fit 16-bit lanes
	std::vector<cudaEvent_t> up;
	cudaEvent_t updone[2] = {nullptr, nullptr}, upguard[2] = {nullptr, nullptr};
	cudaEvent_t start = nullptr; // recorded on the device's stream once the first band is in

	int open(Err e, int nb_, int device)
	{
		nb = nb_;
		band = std::max(16, (nb + 31) / 32);
		bands = (nb + band - 1) / band;
		fin.assign(bands, nullptr);
		up.assign(bands, nullptr);
		for (auto &ev : fin)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		for (auto &ev : up)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		for (auto &ev : updone)
			CUDA_TRY(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
		CUDA_TRY(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
		CUDA_TRY(cudaMalloc(&dmax, 2 * bands * sizeof *dmax));
		CUDA_TRY(cudaMallocHost(&dmax_host, 2 * bands * sizeof *dmax_host));
		return 0;
	}
	// For the 32-bit run after a 16-bit one stopped in step 1 (not16): what
	// the taker and the bands' checks keep (the rows on the device stay).
	void reset()
	{
		stop = false, rejected = false, not16 = false, lanes16 = false;
		recorded = 0, rc = 0, msg[0] = 0, sunk = 0, first_s = last_s = 0, wmax = 0;
	}
	~RowOrder()
	{
		for (auto ev : fin)
			if (ev)
				cudaEventDestroy(ev);
		for (auto ev : up)
			if (ev)
				cudaEventDestroy(ev);
		for (auto ev : updone)
			if (ev)
				cudaEventDestroy(ev);
		if (cs)
			cudaStreamDestroy(cs);
		cudaFree(dmax);
		cudaFreeHost(dmax_host);
	}
	void give_up()
	{
		std::lock_guard<std::mutex> l(m);
		stop = true;
		cv.notify_all();
	}
};

// The thread that hands the bands to the sink as they become final.
void take_bands(RowOrder *w, Devs *v, uint64_t n)
{
	Err e{w->msg, sizeof w->msg};
	const Dev &x = v->dev[v->first];
	if (cudaSetDevice(x.id) != cudaSuccess) {
		w->rc = fail(e, "cudaSetDevice: %s", cudaGetErrorString(cudaGetLastError()));
		w->give_up();
		return;
	}
	for (int i = 0; i < w->bands; i++) {
		{
			std::unique_lock<std::mutex> l(w->m);
			w->cv.wait(l, [&] { return w->recorded > i || w->stop; });
			if (w->recorded <= i)
				return;
		}
		cudaError_t st = cudaEventSynchronize(w->fin[i]);
		if (st != cudaSuccess) {
			w->rc = fail(e, "band %d of the rows: %s", i, cudaGetErrorString(st));
			w->give_up();
			return;
		}
		if (i == 0)
			w->first_s = lib_now();
		if (w->lanes16 && w->dmax_host[i] + w->wmax >= INF16) {
			w->rejected = true;
			w->give_up();
			return;
		}
		const uint64_t r0 = (uint64_t)i * w->band * v->B;
		const uint64_t r1 = std::min(n, (uint64_t)(i + 1) * w->band * v->B);
		if (!w->keep
		    && download_panels(e, *v, n, w->paths, nullptr, nullptr, w->sink, w->ctx, r0, r1, w->cs)) {
			w->rc = -1;
			w->give_up();
			return;
		}
		w->sunk = r1;
		w->last_s = lib_now();
	}
}

// Rows still arriving: block rows r0 .. r1 - 1 of the caller's graph, once
// they are in, up to the device on w.cs and prepared there as the rounds
// take them, with the diagonal sv_prepare() gives them.  0, -1, or 1: the
// input failed (w.restart).
int take_in(Err e, Devs &v, Dev &x, RowOrder &w, uint64_t n, int r0, int r1)
{
	const uint64_t first = (uint64_t)r0 * v.B, end = std::min(n, (uint64_t)r1 * v.B);
	if (w.feed->rows(w.feed->ctx, end) < end) {
		w.restart = true;
		return 1;
	}
	const size_t at = first * v.npad, count = (size_t)(r1 - r0) * v.B * v.npad;
	if (upload_to(e, w.graph, (char *)x.d + at * x.es, first, end, n, v.npad, x.es, w.cs,
	              w.updone, w.upguard, nullptr))
		return -1;
	const unsigned grid = (unsigned)((count + 255) / 256), dg = (unsigned)((end - first + 255) / 256);
	auto ready = [&](auto *d, auto inf) {
		using T = decltype(inf);
		prepare<T><<<grid, 256, 0, w.cs>>>(d + at, nullptr, (int)n, v.npad, inf, inf, (int)first,
		                                   (r1 - r0) * v.B);
		zero_diagonal<T><<<dg, 256, 0, w.cs>>>(d + at, v.npad, (int)first, (int)end);
	};
	if (w.is_int)
		ready((int *)x.d, (int)ST_INF_I32);
	else
		ready((float *)x.d, __builtin_inff());
	CUDA_TRY(cudaGetLastError());
	return 0;
}

// Step 1 as the rows arrive (w.feed): band by band, each taken in, made
// ready for k by arrive(first, end) (block rows; on w.cs: 0, -1, or 1 the
// band does not suit k: w.not16), then rounds 0 .. end - 1 on its rows; then
// the caller's verdict.  0 or -1.
template <typename K, typename Arrive>
int step1_as_read(Err e, Devs &v, K &k, Band whole, uint64_t n, RowOrder &w, Arrive arrive)
{
	Dev &x = v.dev[v.first];
	const size_t pstride = (size_t)v.B * v.npad;
	for (int i = 0; i < w.bands && !w.stop; i++) {
		const int r0 = i * w.band, r1 = std::min(w.nb, r0 + w.band);
		int a = w.in < r1 ? take_in(e, v, x, w, n, r0, r1) : 0;
		if (a == 0)
			a = arrive(r0, r1);
		if (a > 0 && !w.restart)
			w.not16 = true;
		if (a)
			return a < 0 ? -1 : 0;
		w.in = std::max(w.in, r1);
		CUDA_TRY(cudaEventRecord(w.up[i], w.cs));
		CUDA_TRY(cudaStreamWaitEvent(x.s, w.up[i], 0));
		if (i == 0 && w.start)
			CUDA_TRY(cudaEventRecord(w.start, x.s));
		for (int round = 0; round < r1; round++) {
			Band b = whole;
			b.row0 = std::max(round, r0), b.rows = r1 - b.row0, b.pivot_done = round < r0;
			if (k.before(e, b, round)
			    || k.after(e, b, round, whole.p ? whole.p + round * pstride : nullptr))
				return -1;
		}
	}
	if (!w.stop && !w.asked) {
		w.asked = true;
		w.restart = !w.feed->verdict(w.feed->ctx);
	}
	return 0;
}

// The rounds in row order on the first device of v with kernels k (set up
// there), each band finished by finish(first, end) (block rows; queued on the
// device's stream) and handed to the sink by a thread of its own; the
// device's ev[2] marks the end of the last band's work.  Rows still arriving
// are taken in by step1_as_read() with arrive.  0, or -1 (an error, or a
// 16-bit band rejected: w.rejected, w.sunk rows taken); 0 also where the
// rows stopped short (w.not16, w.restart), with nothing handed over.
template <typename K, typename Finish, typename Arrive>
int row_order_rounds(Err e, Devs &v, K &k, Band whole, uint64_t n, RowOrder &w, Finish finish,
                     Arrive arrive)
{
	Dev &x = v.dev[v.first];
	const int nb = w.nb;
	const size_t pstride = (size_t)v.B * v.npad;
	auto prow = [&](int round) { return whole.p ? whole.p + round * pstride : nullptr; };
	std::thread taker(take_bands, &w, &v, n);
	int rc = 0;
	if (w.feed)
		rc = step1_as_read(e, v, k, whole, n, w, arrive);
	else
		for (int round = 0; round < nb && rc == 0 && !w.stop; round++) { // step 1
			Band b = whole;
			b.row0 = round, b.rows = nb - round;
			rc = k.before(e, b, round) || k.after(e, b, round, prow(round)) ? -1 : 0;
		}
	const bool short_of_rows = w.not16 || w.restart;
	for (int i = 0; i < w.bands && rc == 0 && !w.stop && !short_of_rows; i++) { // step 2
		const int r0 = i * w.band, r1 = std::min(nb, r0 + w.band);
		for (int round = r0 + 1; round < nb && rc == 0; round++) {
			Band b = whole;
			b.row0 = r0, b.rows = std::min(round, r1) - r0, b.pivot_done = true;
			rc = k.before(e, b, round) || k.after(e, b, round, prow(round)) ? -1 : 0;
		}
		if (rc == 0)
			rc = finish(r0, r1);
		if (rc == 0 && cudaEventRecord(w.fin[i], x.s) != cudaSuccess)
			rc = fail(e, "cudaEventRecord: %s", cudaGetErrorString(cudaGetLastError()));
		std::lock_guard<std::mutex> l(w.m);
		w.recorded = rc == 0 ? i + 1 : w.recorded;
		w.cv.notify_all();
	}
	if (rc == 0 && !short_of_rows && cudaEventRecord(x.ev[2], x.s) != cudaSuccess)
		rc = fail(e, "cudaEventRecord: %s", cudaGetErrorString(cudaGetLastError()));
	if (rc || short_of_rows)
		w.give_up();
	taker.join();
	if (rc == 0 && w.rc)
		rc = fail(e, "%s", w.msg);
	if (rc == 0 && w.rejected)
		rc = -1;
	return rc;
}

} // namespace
#endif
