// fw_outcore.cuh - out of core (included by fw_gpu.cu): one device, matrices
// larger than its memory.
//
// The rows are cut into bands of S block rows.  The first bands stay on the
// device ("resident"); the others live in host memory and pass through two
// slots on the device, one being computed while the band of the other goes
// back and the next comes up (a copy stream beside the compute stream, the
// staging buffers between them and host memory).
//
// Super-round K takes the rounds of band K's block rows, in order.  Band K
// runs them first as one GPU would (phase 1, the pivot row's phase 2, phase 3
// of its own rows), leaving each round's finished pivot row panel, and the
// predecessors' pivot rows, in a stack of snapshots; then every other band
// runs the same rounds from the snapshots (its part of the pivot column, then
// phase 3 of its rows).  Every block sees the same updates with the same
// operands in the same order as in a run that fits, so the results are the
// same bytes; only the order in which bands take their turn differs.
//
// A band not resident goes up and down once per super-round; the pivot band
// of the next super-round is taken last, so it stays in its slot.  Work per
// super-round grows with S, traffic does not: the bands are made as large as
// a sixth of the device allows.
#ifndef APSP_FW_OUTCORE_CUH
#define APSP_FW_OUTCORE_CUH

#include <stdlib.h>
#include <string.h>

#include <vector>

#include "fw_checkpoint.cuh"
#include "fw_rounds.cuh"
#include "fw_transfer.cuh"

namespace {

// How a run of npad rows (blocking factor B) is cut: bands of S block rows,
// the first resident of them on the device.
struct OocPlan {
	int S = 0, bands = 0, resident = 0;
	uint64_t device_bytes = 0; // resident bands, two slots, the snapshots, the panels
	uint64_t host_bytes = 0;   // the bands in host memory
};

// Device memory beside the bands: the two panels (colT; rowP, unused) and
// the facts' scratch.  es: bytes of a distance (4, or 8 for float64).
inline uint64_t ooc_fixed(uint64_t npad, int B, uint64_t es)
{
	return 2 * (uint64_t)B * npad * es + 4096;
}

// The bands fill the device but for a 64th of what is free: room for the
// runtime's own allocations and for each allocation's rounding up.
inline uint64_t ooc_usable(uint64_t device_free) { return device_free - device_free / 64; }

// The least free device memory a run out of core takes: three bands of one
// block row (two slots and the snapshots) beside the panels, and the room.
inline uint64_t ooc_minimum(uint64_t npad, int B, uint64_t es, bool paths)
{
	const uint64_t m = ooc_fixed(npad, B, es) + 3 * (uint64_t)B * npad * (es + (paths ? 4 : 0));
	return m + (m + 62) / 63;
}

// The cut for device_free bytes; false where less than ooc_minimum() is free.
bool plan_out_of_core(uint64_t npad, int B, uint64_t es, bool paths, uint64_t device_free,
                      OocPlan *pl)
{
	const uint64_t nb = npad / B, row = npad * (es + (paths ? 4 : 0));
	const uint64_t fixed = ooc_fixed(npad, B, es), usable = ooc_usable(device_free);
	if (usable <= fixed || nb < 2)
		return false;
	const uint64_t rows = (usable - fixed) / row; // rows the device can hold
	uint64_t S = rows / 6 / B;
	if (S < 1)
		S = rows / 3 / B;
	if (S < 1)
		return false;
	if (S > nb / 2)
		S = nb / 2;
	uint64_t bands = (nb + S - 1) / S;
	S = (nb + bands - 1) / bands; // as even as can be
	bands = (nb + S - 1) / S;
	uint64_t resident = rows / (S * B) >= 3 ? rows / (S * B) - 3 : 0;
	if (resident > bands - 1)
		resident = bands - 1;
	pl->S = (int)S;
	pl->bands = (int)bands;
	pl->resident = (int)resident;
	pl->device_bytes = fixed + (resident + 3) * S * B * row;
	pl->host_bytes = (npad - resident * S * B) * row;
	return true;
}

struct OutOfCore {
	OocPlan pl;
	int id = -1;
	size_t es = 4;            // bytes of a distance
	char *host_d = nullptr;   // rows from resident * S * B on, stride npad
	int32_t *host_p = nullptr;
	void *slot_d[2] = {nullptr, nullptr};
	int32_t *slot_p[2] = {nullptr, nullptr};
	void *snap_row = nullptr; // S * B rows: each round's pivot row panel
	int32_t *snap_pred = nullptr;
	cudaStream_t xs = nullptr; // copies
	cudaEvent_t loaded[2] = {}, computed[2] = {}, done[2] = {};
	bool used[2] = {false, false};
	bool small_ran = false; // phase 2 with twice the registers (RoundKernels::small)
	~OutOfCore()
	{
		free(host_d);
		free(host_p);
		if (id < 0)
			return;
		cudaSetDevice(id);
		for (int i = 0; i < 2; i++) {
			cudaFree(slot_d[i]);
			cudaFree(slot_p[i]);
			for (auto ev : {loaded[i], computed[i], done[i]})
				if (ev)
					cudaEventDestroy(ev);
		}
		cudaFree(snap_row);
		cudaFree(snap_pred);
		if (xs)
			cudaStreamDestroy(xs);
	}
};

// Band b's first row and row count (of npad).
inline uint64_t band_row0(const OocPlan &pl, int B, int b) { return (uint64_t)b * pl.S * B; }
inline uint64_t band_rows(const OocPlan &pl, int B, uint64_t npad, int b)
{
	const uint64_t r0 = band_row0(pl, B, b), end = r0 + (uint64_t)pl.S * B;
	return (end < npad ? end : npad) - r0;
}

// Device memory for the slots and snapshots, host memory for the bands not
// resident (x: the device, holding the resident rows already).
int ooc_alloc(Err e, OutOfCore &oc, const Dev &x, uint64_t npad, int B, bool paths)
{
	const size_t cells = (size_t)oc.pl.S * B * npad, band = cells * x.es;
	const size_t hcells = (npad - band_row0(oc.pl, B, oc.pl.resident)) * npad;
	oc.id = x.id;
	oc.es = x.es;
	CUDA_TRY(cudaSetDevice(x.id));
	CUDA_TRY(cudaStreamCreateWithFlags(&oc.xs, cudaStreamNonBlocking));
	for (int i = 0; i < 2; i++) {
		CUDA_TRY(cudaMalloc(&oc.slot_d[i], band));
		if (paths)
			CUDA_TRY(cudaMalloc(&oc.slot_p[i], cells * 4));
		CUDA_TRY(cudaEventCreateWithFlags(&oc.loaded[i], cudaEventDisableTiming));
		CUDA_TRY(cudaEventCreateWithFlags(&oc.computed[i], cudaEventDisableTiming));
		CUDA_TRY(cudaEventCreateWithFlags(&oc.done[i], cudaEventDisableTiming));
	}
	CUDA_TRY(cudaMalloc(&oc.snap_row, band));
	if (paths)
		CUDA_TRY(cudaMalloc(&oc.snap_pred, cells * 4));
	oc.host_d = (char *)malloc(hcells * x.es);
	oc.host_p = paths ? (int32_t *)malloc(hcells * 4) : nullptr;
	if (!oc.host_d || (paths && !oc.host_p))
		return fail(e, "out of host memory for %.1f GiB of matrices out of core",
		            hcells * (x.es + (paths ? 4 : 0)) / 1073741824.0);
	return 0;
}

// Band b (not resident) into slot sl, on the copy stream: from the caller's
// graph (stride n, as it is) or from host memory; the compute stream then
// waits for it.
int ooc_load(Err e, OutOfCore &oc, Dev &x, int b, int sl, const void *graph, uint64_t n,
             uint64_t npad, int B, cudaEvent_t guard[2])
{
	const uint64_t r0 = band_row0(oc.pl, B, b), rows = band_rows(oc.pl, B, npad, b);
	if (oc.used[sl]) // what was computed there is done (and went down: same stream)
		CUDA_TRY(cudaStreamWaitEvent(oc.xs, oc.computed[sl], 0));
	oc.used[sl] = true;
	if (graph) {
		const uint64_t end = r0 + rows < n ? r0 + rows : n;
		if (upload_to(e, graph, (char *)oc.slot_d[sl], r0, end, n, npad, oc.es, oc.xs, oc.done,
		              guard, nullptr))
			return -1;
	} else {
		// the band's rows in host memory, stride npad as on the device
		const uint64_t at = r0 - band_row0(oc.pl, B, oc.pl.resident);
		if (upload_to(e, oc.host_d + at * npad * oc.es, (char *)oc.slot_d[sl], 0, rows, npad,
		              npad, oc.es, oc.xs, oc.done, guard, nullptr)
		    || (oc.host_p && upload_to(e, oc.host_p + at * npad, (char *)oc.slot_p[sl], 0, rows,
		                               npad, npad, 4, oc.xs, oc.done, guard, nullptr)))
			return -1;
	}
	CUDA_TRY(cudaEventRecord(oc.loaded[sl], oc.xs));
	CUDA_TRY(cudaStreamWaitEvent(x.s, oc.loaded[sl], 0));
	return 0;
}

// Band b from slot sl back to host memory, once computed[sl] is reached.
int ooc_store(Err e, OutOfCore &oc, int b, int sl, uint64_t npad, int B, cudaEvent_t guard[2])
{
	const uint64_t at = band_row0(oc.pl, B, b) - band_row0(oc.pl, B, oc.pl.resident);
	const size_t cells = band_rows(oc.pl, B, npad, b) * npad;
	CUDA_TRY(cudaStreamWaitEvent(oc.xs, oc.computed[sl], 0));
	if (stage_down(e, oc.host_d + at * npad * oc.es, (const char *)oc.slot_d[sl], cells * oc.es,
	               oc.xs, oc.done, guard)
	    || (oc.host_p && stage_down(e, (char *)(oc.host_p + at * npad), (const char *)oc.slot_p[sl],
	                                cells * 4, oc.xs, oc.done, guard)))
		return -1;
	return 0;
}

// The two facts of an int32 graph (int_facts) over the bands not resident,
// added into x.scratch[0..1] (the resident rows' are there already).
int ooc_facts(Err e, OutOfCore &oc, Dev &x, const void *graph, uint64_t n, uint64_t npad, int B,
              cudaEvent_t guard[2])
{
	for (int b = oc.pl.resident, sl = 0; b < oc.pl.bands; b++, sl ^= 1) {
		const uint64_t r0 = band_row0(oc.pl, B, b), rows = band_rows(oc.pl, B, npad, b);
		const uint64_t end = r0 + rows < n ? r0 + rows : n;
		if (r0 >= end)
			break;
		if (ooc_load(e, oc, x, b, sl, graph, n, npad, B, guard))
			return -1;
		const int k = (int)(end - r0);
		int_facts<<<k < 16384 ? (unsigned)k : 16384u, 256, 0, x.s>>>(
		        (const int *)oc.slot_d[sl] - r0 * npad, (int)n, (int)npad, &x.scratch[0],
		        (int *)&x.scratch[1], (int)r0, (int)end);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(oc.computed[sl], x.s));
	}
	return 0;
}

// The state between super-rounds (checkpoints): rows of npad entries, the
// resident ones on the device, the others in host memory; a copy of bytes
// from offset out of it (get) or into it.
struct OocState {
	OutOfCore *oc;
	Dev *x;
	uint64_t resident_cells; // entries of the resident rows
	template <bool GET> static int copy(void *ctx, int pred, uint64_t offset, void *buf,
	                                    uint64_t bytes)
	{
		const OocState *st = (const OocState *)ctx;
		char *dev = pred ? (char *)st->x->p : (char *)st->x->d;
		char *host = pred ? (char *)st->oc->host_p : st->oc->host_d;
		char *b = (char *)buf;
		const uint64_t resident_bytes = st->resident_cells * (pred ? 4 : st->oc->es);
		if (offset < resident_bytes) { // (from the writer's threads too)
			const uint64_t k = std::min(bytes, resident_bytes - offset);
			if (cudaSetDevice(st->x->id) != cudaSuccess
			    || cudaMemcpy(GET ? b : dev + offset, GET ? dev + offset : b, k,
			                  GET ? cudaMemcpyDeviceToHost : cudaMemcpyHostToDevice)
			               != cudaSuccess)
				return -1;
			offset += k, b += k, bytes -= k;
		}
		if (bytes) {
			char *h = host + (offset - resident_bytes);
			memcpy(GET ? b : h, GET ? h : b, bytes);
		}
		return 0;
	}
};

// Band b's rows in slot sl as the caller prepares the resident ones
// (prepare_rows).
template <typename T>
int ooc_prepare(Err e, OutOfCore &oc, Dev &x, int b, int sl, uint64_t n, uint64_t npad, int B,
                T inf, T inf_dev)
{
	const size_t count = band_rows(oc.pl, B, npad, b) * npad;
	const bool mid = std::is_same<T, double>::value; // (float64: largest intermediates)
	prepare<T><<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>(
	        (T *)oc.slot_d[sl], mid ? nullptr : oc.slot_p[sl], (int)n, (int)npad, inf, inf_dev,
	        (int)band_row0(oc.pl, B, b), (int)band_rows(oc.pl, B, npad, b));
	CUDA_TRY(cudaGetLastError());
	if (mid && oc.slot_p[sl])
		CUDA_TRY(cudaMemsetAsync(oc.slot_p[sl], 0xff, count * 4, x.s));
	return 0;
}

// The super-rounds with kernels k (RoundKernels, RoundKernels64: not set up
// yet) on entries T, form naming them in the checkpoints' stage.  x holds
// the resident bands (prepared); the others come from graph in the first
// super-round.  The last one finishes each band (packed INF back to the
// caller's INF) before it goes down; the resident ones are finished by the
// caller.  With checkpoints (ck), the state goes to the caller after a
// super-round where one is due, and a resumed run goes on from the
// super-round after the one it holds.
template <typename T, int B, bool PATHS, bool PACKED, typename Kernels>
int ooc_rounds_with(Err e, Kernels &k, const char *form, OutOfCore &oc, Dev &x, const void *graph,
                    uint64_t n, uint64_t npad, T inf, T inf_dev, cudaEvent_t guard[2],
                    Checkpoints *ck)
{
	const int nb = (int)(npad / B), S = oc.pl.S, bands = oc.pl.bands, resident = oc.pl.resident;
	OocState state{&oc, &x, band_row0(oc.pl, B, resident) * npad};
	uint64_t from = 0;
	if (ck) {
		snprintf(ck->stage, sizeof ck->stage, "B%d,%s,out-of-core:%dx%d,resident:%d", B, form,
		         bands, S, resident);
		ck->steps = (uint64_t)bands;
		ck->tracked = PATHS;
		CUDA_TRY(cudaStreamSynchronize(x.s)); // (the resident rows prepared, then replaced)
		if (ck->load_now(e, OocState::copy<false>, &state, &from) < 0) // (another stage: begin)
			return -1;
		CUDA_TRY(cudaDeviceSynchronize());
	}
	const size_t panel = (size_t)B * npad;
	if (k.setup(e, x.id, (int)npad, nullptr))
		return -1;
	// band b, its first row at d (and p)
	auto band_at = [&](int b, void *d, int32_t *p) {
		const int row0 = b * S, rows = nb - row0 < S ? nb - row0 : S;
		return Band{(T *)d - (size_t)row0 * panel, p ? p - (size_t)row0 * panel : nullptr, x.colT,
		            nullptr, row0, rows, x.s};
	};
	auto run_band = [&](Band bd, int K) -> int {
		const int k0 = K * S, k1 = k0 + S < nb ? k0 + S : nb;
		const bool pivot = bd.holds(k0);
		for (int r = k0; r < k1; r++) {
			bd.rowP = (T *)oc.snap_row + (size_t)(r - k0) * panel;
			int32_t *snap = PATHS ? oc.snap_pred + (size_t)(r - k0) * panel : nullptr;
			if (k.before(e, bd, r))
				return -1;
			if (pivot && PATHS)
				CUDA_TRY(cudaMemcpyAsync(snap, bd.p + (size_t)r * panel, panel * 4,
				                         cudaMemcpyDeviceToDevice, x.s));
			if (k.after(e, bd, r, pivot ? bd.p + (size_t)r * panel : snap))
				return -1;
		}
		return 0;
	};
	int prev = -1, prev_sl = 1; // the band computed last in a slot, not yet gone down
	std::vector<int> order;
	for (int K = (int)from; K < bands; K++) {
		const bool first = K == 0, last = K == bands - 1;
		// band K, the resident ones, the others; K + 1 last if it is not resident
		const int stay = K + 1 >= resident && K + 1 < bands ? K + 1 : -1;
		order.assign(1, K);
		for (int b = 0; b < bands; b++)
			if (b != K && b != stay)
				order.push_back(b);
		if (stay >= 0)
			order.push_back(stay);
		for (int b : order) {
			if (b < resident) {
				const size_t at = (size_t)b * S * panel;
				if (run_band(band_at(b, (T *)x.d + at, PATHS ? x.p + at : nullptr), K))
					return -1;
				continue;
			}
			int sl = prev_sl ^ 1;
			if (b == prev) { // still up from the super-round before
				sl = prev_sl;
				prev = -1;
			} else if (ooc_load(e, oc, x, b, sl, first ? graph : nullptr, n, npad, B, guard)) {
				return -1;
			} else if (first && ooc_prepare<T>(e, oc, x, b, sl, n, npad, B, inf, inf_dev)) {
				return -1;
			}
			if (run_band(band_at(b, oc.slot_d[sl], oc.slot_p[sl]), K))
				return -1;
			if (last && PACKED) {
				const size_t count = band_rows(oc.pl, B, npad, b) * npad;
				finish<int><<<(unsigned)((count + 255) / 256), 256, 0, x.s>>>(
				        (int *)oc.slot_d[sl], count, ST_INF_I32, INF_PACKED);
				CUDA_TRY(cudaGetLastError());
			}
			CUDA_TRY(cudaEventRecord(oc.computed[sl], x.s));
			if (prev >= 0 && ooc_store(e, oc, prev, prev_sl, npad, B, guard))
				return -1;
			prev = b, prev_sl = sl;
		}
		if (ck && !last) { // a checkpoint: every band back where it lives
			CUDA_TRY(cudaStreamSynchronize(x.s));
			if (ck->asks()) {
				if (prev >= 0 && ooc_store(e, oc, prev, prev_sl, npad, B, guard))
					return -1;
				prev = -1;
				CUDA_TRY(cudaStreamSynchronize(oc.xs));
				ck->save_now((uint64_t)K + 1, OocState::copy<true>, &state);
				CUDA_TRY(cudaSetDevice(x.id));
			}
		}
	}
	if (prev >= 0 && ooc_store(e, oc, prev, prev_sl, npad, B, guard))
		return -1;
	CUDA_TRY(cudaStreamSynchronize(oc.xs));
	oc.small_ran = k.small_ran;
	return 0;
}

// ... on 32-bit entries (the stage as it always was).
template <typename T, int B, int R, bool PATHS, bool PACKED>
int ooc_rounds(Err e, OutOfCore &oc, Dev &x, const void *graph, uint64_t n, uint64_t npad,
               T inf, T inf_dev, cudaEvent_t guard[2], Checkpoints *ck)
{
	char form[48];
	snprintf(form, sizeof form, "%s%s%s", std::is_same<T, int>::value ? "int32" : "float32",
	         PACKED ? ",packed" : "", PATHS ? ",tracked" : "");
	RoundKernels<T, B, R, PATHS, PACKED> k;
	return ooc_rounds_with<T, B, PATHS, PACKED>(e, k, form, oc, x, graph, n, npad, inf, inf_dev,
	                                            guard, ck);
}

// ... on float64 (with paths, the largest intermediates), its minima with
// fmin() and every tie compared (no clean sums: the signs of the bands not
// held are not looked at).
template <bool MID>
int ooc_rounds64(Err e, OutOfCore &oc, Dev &x, const void *graph, uint64_t n, uint64_t npad,
                 cudaEvent_t guard[2], Checkpoints *ck)
{
	RoundKernels64<MID, false> k;
	k.alone = false; // (the pivot row to the other bands: the snapshots)
	const double inf = __builtin_inf();
	return ooc_rounds_with<double, f64::B, MID, false>(e, k, MID ? "float64,intermediates"
	                                                             : "float64",
	                                                   oc, x, graph, n, npad, inf, inf, guard, ck);
}

// A run out of core; x = v.dev[0] holds the resident rows (allocated
// already): the upload, the facts of an int32 graph, the super-rounds, and
// the results to the sink.
int solve_out_of_core(Err e, Devs &v, OutOfCore &oc, int type, bool paths, uint64_t n,
                      const void *graph, fwg_sink *sink, void *ctx, fwg_timing *t)
{
	Dev &x = v.dev[0];
	const int B = v.B;
	const uint64_t npad = (uint64_t)v.npad, nb = npad / B;
	const bool is_int = type == ST_INT32;
	cudaEvent_t guard[2] = {nullptr, nullptr};
	if (ooc_alloc(e, oc, x, npad, B, paths))
		return -1;
	t->bands = oc.pl.bands;
	t->band_rows = oc.pl.S * B;
	t->resident = oc.pl.resident;
	CUDA_TRY(cudaSetDevice(x.id));
	CUDA_TRY(cudaEventRecord(x.ev[0], x.s));
	if (upload_rows(e, graph, x, n, npad, B, guard, nullptr))
		return -1;
	bool packed = false;
	if (is_int && paths // as fwg_solve_panels(), over every band
	    && int32_facts(e, v, n, t, &packed, [&](Dev &d) {
		       return ooc_facts(e, oc, d, graph, n, npad, B, guard);
	       }))
		return -1;
	t->packed = packed;
	if (prepare_rows(e, v, x, n, is_int, packed))
		return -1;
	CUDA_TRY(cudaEventRecord(x.ev[1], x.s));
	auto rounds = [&](auto c) {
		using C = decltype(c);
		using T = typename C::T;
		T inf, inf_dev; // the caller's INF, the device's (fwg_solve_panels)
		if constexpr (std::is_same<T, int>::value)
			inf = ST_INF_I32, inf_dev = C::PACKED ? INF_PACKED : ST_INF_I32;
		else
			inf = inf_dev = __builtin_inff();
		return ooc_rounds<T, C::B, C::R, C::PATHS, C::PACKED>(e, oc, x, graph, n, npad, inf,
		                                                      inf_dev, guard, v.ck);
	};
	const int rc = v.es == 8 ? paths ? ooc_rounds64<true>(e, oc, x, graph, n, npad, guard, v.ck)
	                                 : ooc_rounds64<false>(e, oc, x, graph, n, npad, guard, v.ck)
	               : is_int ? dispatch<int>(e, B, paths, packed, rounds)
	                        : dispatch<float>(e, B, paths, false, rounds);
	if (rc)
		return rc;
	t->small = oc.small_ran;
	CUDA_TRY(cudaEventRecord(x.ev[2], x.s));
	if (packed && finish_rows(e, v, x))
		return -1;
	CUDA_TRY(cudaStreamSynchronize(x.s));
	t->tiles = nb * (2 * (nb - 1) + (nb - 1) * (nb - 1));
	const double t_down = lib_now();
	const HostRows hr{band_row0(oc.pl, B, oc.pl.resident), oc.host_d, oc.host_p};
	if (download_panels(e, v, n, paths, nullptr, &hr, sink, ctx))
		return -1;
	t->download_ms = (lib_now() - t_down) * 1e3;
	float up = 0, ker = 0;
	CUDA_TRY(cudaEventElapsedTime(&up, x.ev[0], x.ev[1]));
	CUDA_TRY(cudaEventElapsedTime(&ker, x.ev[1], x.ev[2]));
	t->upload_ms = up;
	t->kernel_ms = ker;
	return 0;
}

} // namespace
#endif
