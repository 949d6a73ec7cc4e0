// fw_sparse.cu - the sparse engine on one GPU (see fw_sparse.h): the
// factor (lib/sparse/elim.h) and its plan for the down sweep to the device
// once, then a batch of sources at a time through the kernels of
// fw_sweeps.cuh, each batch folded into the statistics where the sweeps
// left it (the additions of the dense engine's kernels, fw_stats_fold.cuh,
// in the same order) or made in the vertices' numbering and copied out.
#include "fw_base.cuh"
#include "fw_sweeps.cuh"

#include <math.h>
#include <string.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "fw_sparse.h"

namespace {

// Device memory of a run, freed on every way out.
struct Mem {
	std::vector<void *> p;
	void *host = nullptr;
	cudaEvent_t ev[5] = {};
	void *take(void *x)
	{
		p.push_back(x);
		return x;
	}
	~Mem()
	{
		for (void *x : p)
			cudaFree(x);
		cudaFreeHost(host);
		for (auto e : ev)
			if (e)
				cudaEventDestroy(e);
	}
};

template <typename T> int alloc(Err e, Mem &m, T **x, size_t bytes)
{
	CUDA_TRY(cudaMalloc((void **)x, bytes ? bytes : 1));
	m.take(*x);
	return 0;
}

// The factor's plan for the sweeps (DevFactor's host side).  The
// elimination tree in postorder: each subtree an interval, post[p] its
// last, low[p] its first.  Its parts: the subtrees below the top, packed
// into parts of about equal size, which the down sweep takes at once once
// the top (part 0, every position above them) is done.  The down sweep's
// groups: each part's positions from its highest down, a group closed where
// a position more would pass `group` positions or `slots - group` outside
// upper neighbours (a position with more than those alone reads the rest
// from d).  The top (shape 0, sweep_top) has the most upper neighbours a
// position: its groups are large, its slots shared by a CTA's warps, so
// that a separator's rows are read from shared memory; the parts (shape 1,
// sweep_down), many threads, and small groups.
struct Plan {
	int slots[2] = {}, group[2] = {};
	std::vector<int> post, low;
	std::vector<int> members, mfirst; // group g: members[mfirst[g] .. mfirst[g + 1]), highest first
	std::vector<int> outside, ofirst; // group g: outside[ofirst[g] .. ofirst[g + 1])
	std::vector<int> pfirst;          // part r: groups pfirst[r] .. pfirst[r + 1] - 1
	std::vector<uint16_t> slot;
};

void plan_postorder(const el_factor *f, Plan &pl)
{
	const int n = (int)f->n;
	std::vector<int> size(n, 1), next(n);
	pl.post.assign(n, 0), pl.low.assign(n, 0);
	for (int p = 0; p < n; p++) // (a parent is above its children)
		if (f->parent[p] >= 0)
			size[f->parent[p]] += size[p];
	int roots = 0;
	for (int p = n - 1; p >= 0; p--) { // parents before their children
		int &from = f->parent[p] >= 0 ? next[f->parent[p]] : roots;
		pl.low[p] = from, pl.post[p] = from + size[p] - 1;
		next[p] = from, from += size[p];
	}
}

// The positions of each part, highest first: the largest subtree split at
// its root (the root to the top) while it holds more than n / parts
// positions, then the subtrees packed, largest first, each into the part
// that holds the fewest.
std::vector<std::vector<int>> plan_parts(const el_factor *f, const Plan &pl, int parts)
{
	const int n = (int)f->n;
	auto size = [&](int p) { return pl.post[p] - pl.low[p] + 1; };
	std::vector<int> kids(n + 1, 0), kid(n);
	for (int p = 0; p < n; p++)
		if (f->parent[p] >= 0)
			kids[f->parent[p] + 1]++;
	for (int p = 0; p < n; p++)
		kids[p + 1] += kids[p];
	std::vector<int> at(kids.begin(), kids.end() - 1);
	for (int p = 0; p < n; p++)
		if (f->parent[p] >= 0)
			kid[at[f->parent[p]]++] = p;
	std::vector<int> trees, top;
	auto bigger = [&](int a, int b) { return size(a) < size(b); };
	for (int p = 0; p < n; p++)
		if (f->parent[p] < 0)
			trees.push_back(p), std::push_heap(trees.begin(), trees.end(), bigger);
	while (!trees.empty() && (int64_t)size(trees.front()) * parts > n) {
		std::pop_heap(trees.begin(), trees.end(), bigger);
		const int r = trees.back();
		trees.pop_back();
		top.push_back(r);
		for (int k = kids[r]; k < kids[r + 1]; k++)
			trees.push_back(kid[k]), std::push_heap(trees.begin(), trees.end(), bigger);
	}
	std::sort(trees.begin(), trees.end(), [&](int a, int b) { return size(a) > size(b); });
	std::vector<std::vector<int>> part(1 + std::min<size_t>(parts, trees.size()));
	std::vector<int64_t> load(part.size() - 1, 0);
	std::vector<int> home(n, 0); // the part of each subtree's root, then of every position
	for (int r : trees) {
		const size_t b = std::min_element(load.begin(), load.end()) - load.begin();
		load[b] += size(r), home[r] = (int)b + 1;
	}
	for (int p = n - 1; p >= 0; p--) { // (a root's part to its subtree, top down)
		const int up = f->parent[p];
		if (up >= 0 && home[p] == 0)
			home[p] = home[up];
	}
	for (int r : top)
		home[r] = 0;
	for (int p = n - 1; p >= 0; p--)
		part[home[p]].push_back(p);
	return part;
}

void plan_groups(const el_factor *f, Plan &pl, const std::vector<std::vector<int>> &parts)
{
	const int n = (int)f->n;
	std::vector<int> mark(n, -1), index(n), inside(n, -1);
	pl.slot.assign(f->first[n], SLOT_GLOBAL);
	pl.ofirst.assign(1, 0), pl.mfirst.assign(1, 0), pl.pfirst.assign(1, 0);
	auto close = [&]() {
		const int g = (int)pl.mfirst.size() - 1, o0 = pl.ofirst.back(), m0 = pl.mfirst.back();
		const int outside = (int)pl.outside.size() - o0;
		for (int i = m0; i < (int)pl.members.size(); i++) {
			const int p = pl.members[i];
			for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++) {
				const int u = f->upper[k];
				pl.slot[k] = inside[u] == g ? (uint16_t)(outside + index[u])
				             : mark[u] == g ? (uint16_t)index[u] : SLOT_GLOBAL;
			}
		}
		pl.ofirst.push_back((int)pl.outside.size());
		pl.mfirst.push_back((int)pl.members.size());
	};
	for (const std::vector<int> &part : parts) {
		const int shape = &part == &parts[0] ? 0 : 1, most = pl.slots[shape] - pl.group[shape];
		for (int p : part) {
			int g = (int)pl.mfirst.size() - 1, fresh = 0;
			for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++)
				fresh += inside[f->upper[k]] != g && mark[f->upper[k]] != g;
			const int held = (int)pl.outside.size() - pl.ofirst.back();
			const int members = (int)pl.members.size() - pl.mfirst.back();
			if (members > 0 && (members >= pl.group[shape] || held + fresh > most))
				close(), g++;
			for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++) {
				const int u = f->upper[k];
				if (inside[u] != g && mark[u] != g
				    && (int)pl.outside.size() - pl.ofirst.back() < most) {
					mark[u] = g, index[u] = (int)pl.outside.size() - pl.ofirst.back();
					pl.outside.push_back(u);
				}
			}
			inside[p] = g, index[p] = (int)pl.members.size() - pl.mfirst.back();
			pl.members.push_back(p);
		}
		if ((int)pl.members.size() > pl.mfirst.back())
			close();
		pl.pfirst.push_back((int)pl.mfirst.size() - 1);
	}
}

template <typename T> int upload(Err e, Mem &m, T **x, const T *from, size_t count)
{
	CUDA_TRY(cudaMalloc((void **)x, count ? count * sizeof(T) : 1));
	m.take(*x);
	if (count)
		CUDA_TRY(cudaMemcpy(*x, from, count * sizeof(T), cudaMemcpyHostToDevice));
	return 0;
}

// The down sweep's shapes: slots a thread and positions a group of the
// parts, parts below the top, and the top's slots and group, so that a
// CTA's slots take at most 96 KiB (APSP_SPARSE_SHAPE=slots,group,parts,
// top slots,top group: benchmarks).
void sweep_shape(Plan &pl, int *parts, size_t es)
{
	const int top = (int)(96 * 1024 / (32 * es));
	pl.slots[1] = 16, pl.group[1] = 4, *parts = 64;
	pl.slots[0] = top, pl.group[0] = top * 2 / 3;
	const char *s = getenv("APSP_SPARSE_SHAPE");
	int a, b, c, x, y;
	if (s && sscanf(s, "%d,%d,%d,%d,%d", &a, &b, &c, &x, &y) == 5 && b >= 1 && a > b && c >= 1
	    && y >= 1 && x > y && (size_t)(x + TOP_CHUNK) * 32 * es <= 200 * 1024
	    && (size_t)a * SWEEP_R * 128 * es <= 200 * 1024)
		pl.slots[1] = a, pl.group[1] = b, *parts = c, pl.slots[0] = x, pl.group[0] = y;
}

int factor_up(Err e, Mem &m, const el_factor *f, DevFactor &df, int slots[2])
{
	const uint64_t n = f->n, E = f->first[n], es = ST_TYPE_SIZE(f->type);
	std::vector<long long> first(f->first, f->first + n + 1);
	Plan pl;
	int parts;
	sweep_shape(pl, &parts, es);
	plan_postorder(f, pl);
	plan_groups(f, pl, plan_parts(f, pl, parts));
	df.parts = (int)pl.pfirst.size() - 2;
	slots[0] = pl.slots[0], slots[1] = pl.slots[1];
	if (upload(e, m, &df.first, first.data(), n + 1) || upload(e, m, &df.upper, f->upper, E)
	    || upload(e, m, &df.pos, f->pos, n) || upload(e, m, &df.parent, f->parent, n)
	    || upload(e, m, (char **)&df.up, (const char *)f->up, E * es)
	    || upload(e, m, (char **)&df.down, (const char *)f->down, E * es)
	    || upload(e, m, &df.post, pl.post.data(), n) || upload(e, m, &df.low, pl.low.data(), n)
	    || upload(e, m, &df.members, pl.members.data(), pl.members.size())
	    || upload(e, m, &df.mfirst, pl.mfirst.data(), pl.mfirst.size())
	    || upload(e, m, &df.outside, pl.outside.data(), pl.outside.size())
	    || upload(e, m, &df.ofirst, pl.ofirst.data(), pl.ofirst.size())
	    || upload(e, m, &df.pfirst, pl.pfirst.data(), pl.pfirst.size())
	    || upload(e, m, &df.slot, pl.slot.data(), pl.slot.size()))
		return -1;
	return 0;
}

// The statistics' figures on the device, n each.
template <typename S> struct DevFigures {
	unsigned long long *reach[2] = {};
	S *sum[2] = {}, *ecc[2] = {};
	double *harm = nullptr;
};

template <typename S> int figures_zeroed(Err e, Mem &m, uint64_t n, DevFigures<S> &g)
{
	for (int dir = 0; dir < 2; dir++)
		if (alloc(e, m, &g.reach[dir], n * 8) || alloc(e, m, &g.sum[dir], n * sizeof(S))
		    || alloc(e, m, &g.ecc[dir], n * sizeof(S)))
			return -1;
	if (alloc(e, m, &g.harm, n * 8))
		return -1;
	for (int dir = 0; dir < 2; dir++) {
		CUDA_TRY(cudaMemset(g.reach[dir], 0, n * 8));
		CUDA_TRY(cudaMemset(g.sum[dir], 0, n * sizeof(S)));
		CUDA_TRY(cudaMemset(g.ecc[dir], 0, n * sizeof(S)));
	}
	CUDA_TRY(cudaMemset(g.harm, 0, n * 8));
	return 0;
}

// The figures into the caller's statistics (vertices as numbered).
template <typename T, typename S>
int figures_down(Err e, const DevFigures<S> &g, uint64_t n, gs_stats *st)
{
	std::vector<S> v(n);
	for (int dir = 0; dir < 2; dir++) {
		CUDA_TRY(cudaMemcpy(st->reach[dir], g.reach[dir], n * 8, cudaMemcpyDeviceToHost));
		CUDA_TRY(cudaMemcpy(v.data(), g.sum[dir], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			((S *)st->sum[dir])[u] = v[u]; // (int64_t or double)
		CUDA_TRY(cudaMemcpy(v.data(), g.ecc[dir], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			((T *)st->ecc[dir])[u] = (T)v[u];
	}
	CUDA_TRY(cudaMemcpy(st->harmonic, g.harm, n * 8, cudaMemcpyDeviceToHost));
	return 0;
}

// Sources a batch: d (and the rows, for the host) fit in 80% of what the
// device has free and in SPARSE_BATCH_BYTES; the rows for the host at most
// 1 GiB.
constexpr double SPARSE_BATCH_BYTES = 16.0 * (1ull << 30);
uint64_t batch_size(uint64_t n, uint64_t es, size_t free_bytes, bool to_host)
{
	// 16 GiB, or a twentieth of the dense matrix where that is more (n =
	// 1e6: a batch of 4288 sources in 16 GiB left the sweeps at a third
	// of their speed), at most 80% of the free memory
	const double dense = (double)n * (double)n * (double)es;
	const double room = std::min((double)free_bytes * 0.8, std::max(SPARSE_BATCH_BYTES, dense / 20));
	double s = room / ((to_host ? 2.0 : 1.0) * (double)n * (double)es);
	if (to_host)
		s = std::min(s, (double)(1u << 30) / ((double)n * (double)es));
	s = std::min(s, (double)(1 << 20));
	const uint64_t rounded = (uint64_t)std::max(s, 0.0) / 32 * 32;
	return std::min(rounded, (n + 31) / 32 * 32);
}

template <typename T>
int solve_typed(Err e, int device, const el_factor *f, gs_stats *st, fws_rows_fn *take, void *ctx,
                uint64_t most, fws_timing *t)
{
	using S = typename StatsElem<T>::Sum;
	const uint64_t n = f->n, E = f->first[n], es = sizeof(T);
	Mem m;
	CUDA_TRY(cudaSetDevice(device));
	cudaDeviceProp prop;
	CUDA_TRY(cudaGetDeviceProperties(&prop, device));
	snprintf(t->device_name, sizeof t->device_name, "%s", prop.name);
	for (auto &x : m.ev)
		CUDA_TRY(cudaEventCreate(&x));
	double t0 = lib_now();
	DevFactor df;
	int slots[2];
	if (factor_up(e, m, f, df, slots))
		return -1;
	const int th = sweep_threads<T>(); // the parts'
	const size_t top_smem = (size_t)(slots[0] + TOP_CHUNK) * 32 * es;
	const size_t smem = (size_t)slots[1] * SWEEP_R * th * es;
	for (auto k : {(const void *)sweep_top<T, true>, (const void *)sweep_top<T, false>})
		CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)top_smem));
	for (auto k : {(const void *)sweep_down<T, true>, (const void *)sweep_down<T, false>})
		CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
	DevFigures<S> g;
	if (st && figures_zeroed(e, m, n, g))
		return -1;
	CUDA_TRY(cudaDeviceSynchronize());
	t->upload_ms = (lib_now() - t0) * 1e3;
	size_t free_b, total_b;
	CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
	uint64_t S_ = batch_size(n, es, free_b, !st);
	if (most && S_ > most)
		S_ = most;
	if (S_ == 0)
		return fail(e, "n = %llu: the sparse engine's batch of 32 sources needs %.1f GiB of device "
		            "memory, %.1f GiB free", (unsigned long long)n,
		            2.0 * 32 * (double)n * es / 1073741824.0, free_b / 1073741824.0);
	T *d, *rows = nullptr; /* (the rows: for the host only) */
	if (alloc(e, m, &d, n * S_ * es) || (!st && alloc(e, m, &rows, n * S_ * es)))
		return -1;
	if (!st)
		CUDA_TRY(cudaMallocHost(&m.host, n * S_ * es));
	t->batch = S_;
	t->device_bytes = (double)(total_b - free_b) + (st ? 1.0 : 2.0) * (double)(n * S_ * es);
	// The finite arcs; int32 with a negative one: sums checked (sweep_down).
	const T *up = (const T *)f->up, *down = (const T *)f->down;
	const T inf = std::is_same<T, int>::value ? (T)ST_INF_I32 : (T)INFINITY;
	bool check = false;
	for (uint64_t k = 0; k < E; k++) {
		t->arcs += (uint64_t)(up[k] < inf) + (uint64_t)(down[k] < inf);
		check |= std::is_same<T, int>::value && (up[k] < 0 || down[k] < 0);
	}
	for (uint64_t s0 = 0; s0 < n; s0 += S_) {
		const int count = (int)std::min(S_, n - s0);
		CUDA_TRY(cudaEventRecord(m.ev[0]));
		sweep_up<T><<<(count + 127) / 128, 128>>>((int)s0, count, (int)S_, df.first, df.upper,
		                                         (const T *)df.up, df.pos, df.parent, d);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(m.ev[1]));
		// the top, then the parts below it at once
		const unsigned tiles = (unsigned)(count + 31) / 32;
		if (check)
			sweep_top<T, true><<<tiles, 32 * TOP_WARPS, top_smem>>>((int)s0, count, (int)S_, df,
			                                                         (const T *)df.down, d);
		else
			sweep_top<T, false><<<tiles, 32 * TOP_WARPS, top_smem>>>((int)s0, count, (int)S_, df,
			                                                          (const T *)df.down, d);
		CUDA_TRY(cudaGetLastError());
		const dim3 grid((count + SWEEP_R * th - 1) / (SWEEP_R * th), df.parts);
		if (grid.y > 0 && check)
			sweep_down<T, true><<<grid, th, smem>>>((int)s0, count, (int)S_, df, (const T *)df.down,
			                                        1, d);
		else if (grid.y > 0)
			sweep_down<T, false><<<grid, th, smem>>>((int)s0, count, (int)S_, df,
			                                         (const T *)df.down, 1, d);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(m.ev[2]));
		if (st) { // folded where the sweeps left the distances
			if (std::is_same<T, int>::value)
				fold_out_int<<<(count + 31) / 32, 32 * FOLD_WARPS>>>(
				        (const int *)d, (int)n, (int)S_, (int)s0, count, df.pos, g.reach[GS_OUT],
				        (long long *)g.sum[GS_OUT], (long long *)g.ecc[GS_OUT]);
			else
				fold_out<T><<<(count + 127) / 128, 128>>>(d, (int)n, (int)S_, (int)s0, count,
				                                        df.pos, g.reach[GS_OUT], g.sum[GS_OUT],
				                                        g.ecc[GS_OUT]);
			CUDA_TRY(cudaGetLastError());
			CUDA_TRY(cudaEventRecord(m.ev[3]));
			fold_in<T><<<(unsigned)((n + 127) / 128), 128>>>(d, (int)n, (int)S_, (int)s0, count,
			                                                df.pos, g.reach[GS_IN], g.sum[GS_IN],
			                                                g.ecc[GS_IN], g.harm);
			CUDA_TRY(cudaGetLastError());
		} else {
			CUDA_TRY(cudaEventRecord(m.ev[3]));
			to_rows<T><<<dim3((unsigned)((n + 31) / 32), (unsigned)((count + 31) / 32)),
			             dim3(32, 8)>>>((int)n, count, (int)S_, df.pos, d, rows);
			CUDA_TRY(cudaGetLastError());
			CUDA_TRY(cudaMemcpy(m.host, rows, (size_t)count * n * es, cudaMemcpyDeviceToHost));
		}
		CUDA_TRY(cudaEventRecord(m.ev[4]));
		CUDA_TRY(cudaEventSynchronize(m.ev[4]));
		float ms[4];
		for (int x = 0; x < 4; x++)
			CUDA_TRY(cudaEventElapsedTime(&ms[x], m.ev[x], m.ev[x + 1]));
		t->up_ms += ms[0], t->kernel_ms += ms[0] + ms[1];
		t->fold_out_ms += ms[2], t->fold_ms += ms[2] + ms[3];
		if (!st && take(ctx, s0, (uint64_t)count, m.host))
			return fail(e, "the rows' writer stopped");
	}
	if (st && figures_down<T>(e, g, n, st))
		return -1;
	return 0;
}

} // namespace

int fws_start(int device, char *err, size_t errlen)
{
	Err e{err, errlen};
	CUDA_TRY(cudaSetDevice(device));
	CUDA_TRY(cudaFree(nullptr));
	return 0;
}

int fws_solve(int device, const el_factor *f, gs_stats *stats, fws_rows_fn *take, void *ctx,
              uint64_t most, struct fws_timing *t, char *err, size_t errlen)
{
	Err e{err, errlen};
	memset(t, 0, sizeof *t);
	if (!stats && !take)
		return fail(e, "fws_solve: neither statistics nor a taker of rows");
	if (f->n > (uint64_t)INT32_MAX)
		return fail(e, "n = %llu: over the sparse engine's limit on a GPU",
		            (unsigned long long)f->n);
	switch (f->type) {
	case ST_INT32: return solve_typed<int>(e, device, f, stats, take, ctx, most, t);
	case ST_FLOAT32: return solve_typed<float>(e, device, f, stats, take, ctx, most, t);
	case ST_FLOAT64: return solve_typed<double>(e, device, f, stats, take, ctx, most, t);
	}
	return fail(e, "element type %u unknown", f->type);
}
