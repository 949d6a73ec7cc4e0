// fw_sparse.cu - the sparse engine on one GPU or several (see fw_sparse.h): the
// factor (lib/sparse/elim.h) and its plan for the down sweep (made on the
// host beside the devices' start: fws_plan_make) to each device once, then
// a batch of sources at a time through the kernels of
// fw_sweeps.cuh, each batch folded into the statistics where the sweeps
// left it (the additions of the dense engine's kernels, fw_stats_fold.cuh,
// in the same order) or made in the vertices' numbering and copied out.
#include "fw_base.cuh"
#include "fw_sweeps.cuh"

#include <math.h>
#include <string.h>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "fw_sparse.h"

namespace {

// Device memory of a run, freed on every way out.
struct Mem {
	std::vector<void *> p;
	void *host = nullptr;
	cudaEvent_t ev[5] = {};
	cudaStream_t s = nullptr; // the run's work on the device (not the legacy stream: below)
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
		if (s)
			cudaStreamDestroy(s);
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
	std::vector<uint16_t> slot; // entry k: its upper neighbour's slot in its group
};

// The mark of an entry read from d, not from a slot.
constexpr uint16_t SLOT_GLOBAL = 0xffff;

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

// DevFactor's lists (meta, span, at, inner, weight) from the plan: a
// member's entries in slots first, their offsets in bytes from a thread's
// first slot (the top's: a slot 32 sources; the parts': SWEEP_R sources a
// slot, sweep_threads_of(es) threads apart).
struct Lists {
	std::vector<int4> meta;
	std::vector<int2> span;
	std::vector<int> at, inner;
	std::vector<char> weight;
};

void plan_lists(const el_factor *f, const Plan &pl, size_t es, Lists &ls)
{
	const char *down = (const char *)f->down;
	const int64_t members = (int64_t)pl.members.size(), groups = (int64_t)pl.mfirst.size() - 1;
	ls.meta.resize(members), ls.span.resize(members), ls.inner.assign(members, 0);
	ls.at.resize(f->first[f->n]), ls.weight.resize(f->first[f->n] * es);
	std::vector<int> start(members + 1, 0); // member i's entries from start[i]
	for (int64_t i = 0; i < members; i++)
		start[i + 1] = start[i] + (int)(f->first[pl.members[i] + 1] - f->first[pl.members[i]]);
#pragma omp parallel for schedule(dynamic, 64)
	for (int64_t g = 0; g < groups; g++) {
		const bool top = g < pl.pfirst[1];
		const size_t stride = top ? 32 * es : (size_t)SWEEP_R * sweep_threads_of(es) * es;
		for (int i = pl.mfirst[g]; i < pl.mfirst[g + 1]; i++) {
			const int p = pl.members[i];
			const int high = pl.members[pl.mfirst[g] + (i - pl.mfirst[g]) / TOP_CHUNK * TOP_CHUNK];
			int at = start[i];
			auto add = [&](uint64_t k, int where) {
				ls.at[at] = where;
				memcpy(&ls.weight[(size_t)at * es], down + k * es, es);
				at++;
			};
			int4 &m = ls.meta[i];
			m.x = p, m.y = at;
			for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++)
				if (pl.slot[k] != SLOT_GLOBAL) {
					add(k, (int)(pl.slot[k] * stride));
					ls.inner[i] += top && f->upper[k] <= high; // (a member of the chunk)
				}
			m.z = at;
			for (uint64_t k = f->first[p]; k < f->first[p + 1]; k++)
				if (pl.slot[k] == SLOT_GLOBAL)
					add(k, f->upper[k]);
			m.w = at;
			ls.span[i] = make_int2(pl.low[p], pl.post[p]);
		}
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
// CTA's slots take at most 96 KiB, or half that where the widest position
// (its entries) fits a quarter of them: the CTAs that share an SM twice
// as many, its separators' groups still whole (one H200, road-like: n =
// 126,025, widest 173, sweeps 111.5 -> 103.5 ms; n = 264,196, widest 232,
// 520 ms against 593 with half) (APSP_SPARSE_SHAPE=slots,group,parts,top
// slots,top group: benchmarks).
void sweep_shape(const el_factor *f, Plan &pl, int *parts, size_t es)
{
	int top = (int)(96 * 1024 / (32 * es));
	if (4 * f->widest <= (uint64_t)top)
		top /= 2;
	pl.slots[1] = 16, pl.group[1] = 4, *parts = 64;
	pl.slots[0] = top, pl.group[0] = top * 2 / 3;
	const char *s = getenv("APSP_SPARSE_SHAPE");
	int a, b, c, x, y;
	if (s && sscanf(s, "%d,%d,%d,%d,%d", &a, &b, &c, &x, &y) == 5 && b >= 1 && a > b && c >= 1
	    && y >= 1 && x > y && (size_t)(x + TOP_CHUNK) * 32 * es <= 200 * 1024
	    && (size_t)a * SWEEP_R * 128 * es <= 200 * 1024)
		pl.slots[1] = a, pl.group[1] = b, *parts = c, pl.slots[0] = x, pl.group[0] = y;
}

} // namespace

// The factor's plan and lists, the host's part of the device's setup
// (fws_plan_make: beside the device's start).
struct fws_plan {
	Plan pl;
	Lists ls;
};

namespace {

int plan_make(Err e, const el_factor *f, fws_plan &p)
{
	const uint64_t E = f->first[f->n], es = ST_TYPE_SIZE(f->type);
	if (E > (uint64_t)INT32_MAX)
		return fail(e, "the factor's %llu entries: the down sweep's lists take at most %d",
		            (unsigned long long)E, INT32_MAX);
	int parts;
	sweep_shape(f, p.pl, &parts, es);
	plan_postorder(f, p.pl);
	plan_groups(f, p.pl, plan_parts(f, p.pl, parts));
	plan_lists(f, p.pl, es, p.ls);
	return 0;
}

int factor_up(Err e, Mem &m, const el_factor *f, const fws_plan &p, DevFactor &df, int slots[2])
{
	const uint64_t n = f->n, E = f->first[n], es = ST_TYPE_SIZE(f->type);
	const Plan &pl = p.pl;
	const Lists &ls = p.ls;
	const std::vector<long long> first(f->first, f->first + n + 1);
	df.parts = (int)pl.pfirst.size() - 2;
	slots[0] = pl.slots[0], slots[1] = pl.slots[1];
	if (upload(e, m, &df.first, first.data(), n + 1) || upload(e, m, &df.upper, f->upper, E)
	    || upload(e, m, &df.pos, f->pos, n) || upload(e, m, &df.parent, f->parent, n)
	    || upload(e, m, (char **)&df.up, (const char *)f->up, E * es)
	    || upload(e, m, &df.post, pl.post.data(), n)
	    || upload(e, m, &df.mfirst, pl.mfirst.data(), pl.mfirst.size())
	    || upload(e, m, &df.outside, pl.outside.data(), pl.outside.size())
	    || upload(e, m, &df.ofirst, pl.ofirst.data(), pl.ofirst.size())
	    || upload(e, m, &df.pfirst, pl.pfirst.data(), pl.pfirst.size())
	    || upload(e, m, &df.meta, ls.meta.data(), ls.meta.size())
	    || upload(e, m, &df.span, ls.span.data(), ls.span.size())
	    || upload(e, m, &df.at, ls.at.data(), ls.at.size())
	    || upload(e, m, &df.inner, ls.inner.data(), ls.inner.size())
	    || upload(e, m, (char **)&df.weight, ls.weight.data(), ls.weight.size()))
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

// One process of several (fws_ranks): the figures through the host, packed
// (reach, sum, ecc, and harm for the in figures) in the pinned buffer.
struct RankPass {
	const fws_ranks *r = nullptr;
	char *host = nullptr;
	uint64_t batches = 0;
};

template <typename S> size_t figures_bytes(uint64_t n, int dir)
{
	return n * (8 + 2 * sizeof(S) + (dir == GS_IN ? 8 : 0));
}

// Figures dir of g to the packed buffer h (out) or from it, queued on q.
template <typename S>
int figures_move(Err e, const DevFigures<S> &g, int dir, uint64_t n, char *h, bool out,
                 cudaStream_t q)
{
	void *dev[4] = {g.reach[dir], g.sum[dir], g.ecc[dir], g.harm};
	const size_t len[4] = {n * 8, n * sizeof(S), n * sizeof(S), n * 8};
	for (int k = 0; k < (dir == GS_IN ? 4 : 3); h += len[k], k++)
		CUDA_TRY(out ? cudaMemcpyAsync(h, dev[k], len[k], cudaMemcpyDeviceToHost, q)
		             : cudaMemcpyAsync(dev[k], h, len[k], cudaMemcpyHostToDevice, q));
	return 0;
}

// Packed figures dir (figures_move's) into st: the out figures added to
// those there (each process's sources' alone: the others' are zero, so the
// sums are exact), the in figures as they are.
template <typename T, typename S>
void figures_unpack(const char *h, int dir, uint64_t n, gs_stats *st)
{
	const unsigned long long *reach = (const unsigned long long *)h;
	const S *sum = (const S *)(h + n * 8), *ecc = sum + n;
	for (uint64_t u = 0; u < n; u++) {
		S *to = (S *)st->sum[dir] + u;
		T *most = (T *)st->ecc[dir] + u;
		const T x = (T)ecc[u];
		if (dir == GS_OUT)
			st->reach[dir][u] += reach[u], *to += sum[u], *most = std::max(*most, x);
		else
			st->reach[dir][u] = reach[u], *to = sum[u], *most = x;
	}
	if (dir == GS_IN)
		memcpy(st->harmonic, ecc + n, n * 8);
}

// Sources a batch: d (and the rows, cols entries each, for the host; 0:
// none) fit in 80% of what the device has free and in SPARSE_BATCH_BYTES;
// the rows for the host at most 1 GiB.
constexpr double SPARSE_BATCH_BYTES = 16.0 * (1ull << 30);
uint64_t batch_size(uint64_t n, uint64_t es, size_t free_bytes, uint64_t cols)
{
	// 16 GiB, or a twentieth of the dense matrix where that is more (n =
	// 1e6: a batch of 4288 sources in 16 GiB left the sweeps at a third
	// of their speed), at most 80% of the free memory
	const double dense = (double)n * (double)n * (double)es;
	const double room = std::min((double)free_bytes * 0.8, std::max(SPARSE_BATCH_BYTES, dense / 20));
	double s = room / ((double)(n + cols) * (double)es);
	if (cols)
		s = std::min(s, (double)(1u << 30) / ((double)cols * (double)es));
	s = std::min(s, (double)(1 << 20));
	const uint64_t rounded = (uint64_t)std::max(s, 0.0) / 32 * 32;
	return std::min(rounded, (n + 31) / 32 * 32);
}

// One device's part of a run: the factor, the figures (its sources' out
// figures; the in figures as they pass through it), a batch's distances
// (and rows for the host), events: 0 .. 4 around a batch's kernels, 5 its
// in figures folded.
template <typename T> struct DevRun {
	using S = typename StatsElem<T>::Sum;
	int id = -1;
	Mem m;
	DevFactor df;
	int slots[2] = {};
	size_t top_smem = 0, smem = 0;
	DevFigures<S> g;
	T *d = nullptr, *rows = nullptr;
	OutPart *out = nullptr; // int32 statistics: the sweeps' out figures, a part a row of S
	const int *spos = nullptr; // the sources' positions in the run's order (df.pos: every vertex)
	const int *cpos = nullptr; // the columns' positions (df.pos: every vertex), for the host
	cudaEvent_t folded = nullptr;
	~DevRun()
	{
		if (id >= 0)
			cudaSetDevice(id); // (m's memory freed on its own device)
		if (folded)
			cudaEventDestroy(folded);
	}
};

// Device x made ready: its events, the factor, the kernels' shared memory,
// zeroed figures (st: statistics asked).
template <typename T>
int dev_setup(Err e, DevRun<T> &x, const el_factor *f, const fws_plan &p, bool st)
{
	const uint64_t n = f->n, es = sizeof(T);
	CUDA_TRY(cudaSetDevice(x.id));
	for (auto &ev : x.m.ev)
		CUDA_TRY(cudaEventCreate(&ev));
	CUDA_TRY(cudaEventCreateWithFlags(&x.folded, cudaEventDisableTiming));
	// A stream of its own: a peer copy in a device's legacy stream waits for
	// the other device's legacy stream too, so the in figures' copy held the
	// next batch's sweeps on the other device until this device's sweeps
	// were done (two H200: the GPUs' sweeps in turn, n = 1e6 25.7 s
	// against 28.5 s on one)
	CUDA_TRY(cudaStreamCreateWithFlags(&x.m.s, cudaStreamNonBlocking));
	if (factor_up(e, x.m, f, p, x.df, x.slots))
		return -1;
	x.top_smem = (size_t)(x.slots[0] + TOP_CHUNK) * 32 * es;
	x.smem = (size_t)x.slots[1] * SWEEP_R * sweep_threads<T>() * es;
	for (auto k : {(const void *)sweep_top<T, true>, (const void *)sweep_top<T, false>})
		CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)x.top_smem));
	for (auto k : {(const void *)sweep_down<T, true>, (const void *)sweep_down<T, false>})
		CUDA_TRY(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                              (int)x.smem));
	if (st && figures_zeroed(e, x.m, n, x.g))
		return -1;
	CUDA_TRY(cudaDeviceSynchronize());
	return 0;
}

// The batch of sources s0 .. s0 + count - 1 of the run (rows s0 .. of its
// list, where it has one) on device x, queued: the
// sweeps; then the sources' own figures and, once prev (the device of the
// batch before; nullptr: none) has folded its in figures, those figures
// copied here and this batch's added (the columns' additions in the order
// of the sources, whichever device holds them); or the rows to the host.
template <typename T>
int batch_queue(Err e, DevRun<T> &x, const DevRun<T> *prev, const el_factor *f, bool st,
                bool check, uint64_t s0, int count, uint64_t S_, uint64_t cols,
                const RankPass *rp = nullptr)
{
	using S = typename StatsElem<T>::Sum;
	const uint64_t n = f->n, es = sizeof(T);
	const DevFactor &df = x.df;
	T *d = x.d;
	const cudaStream_t q = x.m.s;
	CUDA_TRY(cudaSetDevice(x.id));
	CUDA_TRY(cudaEventRecord(x.m.ev[0], q));
	const int *spos = x.spos + s0;
	sweep_up<T><<<(count + 31) / 32, dim3(32, UP_WARPS), 0, q>>>(
	        spos, count, (int)S_, df.first, df.upper, (const T *)df.up, df.parent, d);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(x.m.ev[1], q));
	// the top, then the parts below it at once
	const unsigned tiles = (unsigned)(count + 31) / 32;
	OutPart *out = st ? x.out : nullptr;
	if (check)
		sweep_top<T, true><<<tiles, 32 * TOP_WARPS, x.top_smem, q>>>(spos, count, (int)S_, df, d,
		                                                         out);
	else
		sweep_top<T, false><<<tiles, 32 * TOP_WARPS, x.top_smem, q>>>(spos, count, (int)S_, df, d,
		                                                          out);
	CUDA_TRY(cudaGetLastError());
	const int th = sweep_threads<T>();
	const dim3 grid((count + SWEEP_R * th - 1) / (SWEEP_R * th), df.parts);
	if (grid.y > 0 && check)
		sweep_down<T, true><<<grid, th, x.smem, q>>>(spos, count, (int)S_, df, 1, d, out);
	else if (grid.y > 0)
		sweep_down<T, false><<<grid, th, x.smem, q>>>(spos, count, (int)S_, df, 1, d, out);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(x.m.ev[2], q));
	const DevFigures<S> &g = x.g;
	if (st) { // folded where the sweeps left the distances (int32: by the sweeps themselves)
		if (out)
			fold_out_parts<<<(count + 127) / 128, 128, 0, q>>>(
			        out, df.parts + 1, (int)S_, (int)s0, count, g.reach[GS_OUT],
			        (long long *)g.sum[GS_OUT], (long long *)g.ecc[GS_OUT]);
		else
			fold_out<T><<<(count + 127) / 128, 128, 0, q>>>(d, (int)n, (int)S_, (int)s0, count, df.pos,
			                                        g.reach[GS_OUT], g.sum[GS_OUT],
			                                        g.ecc[GS_OUT]);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(x.m.ev[3], q));
		if (prev && prev != &x) { // the in figures so far, from the batch before's device
			CUDA_TRY(cudaStreamWaitEvent(q, prev->folded, 0));
			const DevFigures<S> &h = prev->g;
			CUDA_TRY(cudaMemcpyPeerAsync(g.reach[GS_IN], x.id, h.reach[GS_IN], prev->id, n * 8, q));
			CUDA_TRY(cudaMemcpyPeerAsync(g.sum[GS_IN], x.id, h.sum[GS_IN], prev->id,
			                             n * sizeof(S), q));
			CUDA_TRY(cudaMemcpyPeerAsync(g.ecc[GS_IN], x.id, h.ecc[GS_IN], prev->id,
			                             n * sizeof(S), q));
			CUDA_TRY(cudaMemcpyPeerAsync(g.harm, x.id, h.harm, prev->id, n * 8, q));
		}
		const uint64_t b = s0 / S_;
		if (rp && b > 0) { // ... or from the process of the batch before
			if (rp->r->recv(rp->r->ctx, rp->host, figures_bytes<S>(n, GS_IN),
			                (int)((b - 1) % rp->r->ranks)))
				return fail(e, "batch %llu: the in figures from process %d did not come",
				            (unsigned long long)b, (int)((b - 1) % rp->r->ranks));
			if (figures_move(e, g, GS_IN, n, rp->host, false, q))
				return -1;
		}
		constexpr int fw = 32 * fold_in_warps<T>();
		fold_in<T><<<(unsigned)((n + fw - 1) / fw), fw, 0, q>>>(d, (int)n, (int)S_, (int)s0, count,
		                                                df.pos, g.reach[GS_IN], g.sum[GS_IN],
		                                                g.ecc[GS_IN], g.harm);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaEventRecord(x.folded, q));
		if (rp && b + 1 < rp->batches) { // to the process of the batch after
			CUDA_TRY(cudaEventRecord(x.m.ev[4], q));
			if (figures_move(e, g, GS_IN, n, rp->host, true, q))
				return -1;
			CUDA_TRY(cudaStreamSynchronize(q));
			const int to = (int)((b + 1) % rp->r->ranks);
			if (rp->r->send(rp->r->ctx, rp->host, figures_bytes<S>(n, GS_IN), to))
				return fail(e, "batch %llu: the in figures not sent to process %d",
				            (unsigned long long)b, to);
			return 0;
		}
	} else {
		CUDA_TRY(cudaEventRecord(x.m.ev[3], q));
		to_rows<T><<<dim3((unsigned)((cols + 31) / 32), (unsigned)((count + 31) / 32)),
		             dim3(32, 8), 0, q>>>((int)cols, count, (int)S_, x.cpos, d, x.rows);
		CUDA_TRY(cudaGetLastError());
		CUDA_TRY(cudaMemcpyAsync(x.m.host, x.rows, (size_t)count * cols * es,
		                         cudaMemcpyDeviceToHost, q));
	}
	CUDA_TRY(cudaEventRecord(x.m.ev[4], q));
	return 0;
}

// The batch queued on x finished: its times into t, its rows (no
// statistics) to take.
template <typename T>
int batch_done(Err e, DevRun<T> &x, bool st, fws_rows_fn *take, void *ctx, uint64_t s0, int count,
               fws_timing *t)
{
	CUDA_TRY(cudaSetDevice(x.id));
	CUDA_TRY(cudaEventSynchronize(x.m.ev[4]));
	float ms[4];
	for (int k = 0; k < 4; k++)
		CUDA_TRY(cudaEventElapsedTime(&ms[k], x.m.ev[k], x.m.ev[k + 1]));
	t->up_ms += ms[0], t->kernel_ms += ms[0] + ms[1];
	t->swept += (uint64_t)count;
	t->fold_out_ms += ms[2], t->fold_ms += ms[2] + ms[3];
	if (!st && take(ctx, s0, (uint64_t)count, x.m.host))
		return fail(e, "the rows' writer stopped");
	return 0;
}

// The figures of the run's devices into st: the out figures of each
// device's sources (zero elsewhere: added up), the in figures as the last
// batch's device left them.
template <typename T>
int figures_all(Err e, std::vector<DevRun<T>> &runs, const DevRun<T> &last, uint64_t n,
                gs_stats *st)
{
	using S = typename StatsElem<T>::Sum;
	std::vector<S> v(n), sum(n, 0), ecc(n, 0);
	std::vector<unsigned long long> r(n), reach(n, 0);
	for (auto &x : runs) {
		CUDA_TRY(cudaSetDevice(x.id));
		CUDA_TRY(cudaMemcpy(r.data(), x.g.reach[GS_OUT], n * 8, cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			reach[u] += r[u];
		CUDA_TRY(cudaMemcpy(v.data(), x.g.sum[GS_OUT], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			sum[u] += v[u];
		CUDA_TRY(cudaMemcpy(v.data(), x.g.ecc[GS_OUT], n * sizeof(S), cudaMemcpyDeviceToHost));
		for (uint64_t u = 0; u < n; u++)
			ecc[u] = std::max(ecc[u], v[u]);
	}
	for (uint64_t u = 0; u < n; u++) {
		st->reach[GS_OUT][u] = reach[u];
		((S *)st->sum[GS_OUT])[u] = sum[u]; // (int64_t or double)
		((T *)st->ecc[GS_OUT])[u] = (T)ecc[u];
	}
	CUDA_TRY(cudaSetDevice(last.id));
	CUDA_TRY(cudaMemcpy(st->reach[GS_IN], last.g.reach[GS_IN], n * 8, cudaMemcpyDeviceToHost));
	CUDA_TRY(cudaMemcpy(v.data(), last.g.sum[GS_IN], n * sizeof(S), cudaMemcpyDeviceToHost));
	for (uint64_t u = 0; u < n; u++)
		((S *)st->sum[GS_IN])[u] = v[u];
	CUDA_TRY(cudaMemcpy(v.data(), last.g.ecc[GS_IN], n * sizeof(S), cudaMemcpyDeviceToHost));
	for (uint64_t u = 0; u < n; u++)
		((T *)st->ecc[GS_IN])[u] = (T)v[u];
	CUDA_TRY(cudaMemcpy(st->harmonic, last.g.harm, n * 8, cudaMemcpyDeviceToHost));
	return 0;
}

// One process of several: every process's out figures to process 0, and
// the in figures from the last batch's process, into st there.
template <typename T>
int figures_ranks(Err e, std::vector<DevRun<T>> &runs, const RankPass &rp, uint64_t n,
                  gs_stats *st)
{
	using S = typename StatsElem<T>::Sum;
	DevRun<T> &x = runs[0];
	const fws_ranks *r = rp.r;
	const int last = (int)((rp.batches - 1) % r->ranks);
	const size_t ob = figures_bytes<S>(n, GS_OUT), ib = figures_bytes<S>(n, GS_IN);
	CUDA_TRY(cudaSetDevice(x.id));
	if (r->rank != 0) {
		for (int dir : {GS_OUT, GS_IN}) {
			if (dir == GS_IN && r->rank != last)
				break;
			if (figures_move(e, x.g, dir, n, rp.host, true, x.m.s))
				return -1;
			CUDA_TRY(cudaStreamSynchronize(x.m.s));
			if (r->send(r->ctx, rp.host, dir == GS_OUT ? ob : ib, 0))
				return fail(e, "the figures not sent to process 0");
		}
		return 0;
	}
	if (figures_all(e, runs, x, n, st))
		return -1;
	for (int q = 1; q < r->ranks; q++)
		for (int dir : {GS_OUT, GS_IN}) {
			if (dir == GS_IN && q != last)
				break;
			if (r->recv(r->ctx, rp.host, dir == GS_OUT ? ob : ib, q))
				return fail(e, "the figures of process %d did not come", q);
			figures_unpack<T, S>(rp.host, dir, n, st);
		}
	return 0;
}

// Each device of the run able to reach the others' memory (where the
// machine allows it), so that the in figures passed from batch to batch go
// from device to device directly.
inline int peers_enabled(Err e, const int *ids, int G)
{
	for (int a = 0; a < G; a++)
		for (int b = 0; b < G; b++) {
			int can = 0;
			if (ids[a] == ids[b])
				continue;
			CUDA_TRY(cudaDeviceCanAccessPeer(&can, ids[a], ids[b]));
			if (!can)
				continue;
			CUDA_TRY(cudaSetDevice(ids[a]));
			const cudaError_t rc = cudaDeviceEnablePeerAccess(ids[b], 0);
			if (rc == cudaErrorPeerAccessAlreadyEnabled)
				(void)cudaGetLastError(); // (enabled already: as wanted)
			else
				CUDA_TRY(rc);
		}
	return 0;
}

template <typename T>
int solve_typed(Err e, const int *ids, int G, const el_factor *f, const fws_plan &p,
                const el_rowset &which, gs_stats *st, fws_rows_fn *take, void *ctx,
                uint64_t most, const fws_ranks *ranks, fws_timing *t)
{
	const uint32_t *src = which.src, *dst = which.dst;
	const uint64_t n = f->n, E = f->first[n], es = sizeof(T), R = src ? which.sources : n;
	const uint64_t C = st ? 0 : dst ? which.cols : n; // entries a row for the host
	std::vector<int> listed(src ? R : 0), targets(dst ? C : 0); // their positions
	for (uint64_t i = 0; i < listed.size(); i++)
		listed[i] = f->pos[src[i]];
	for (uint64_t j = 0; j < targets.size(); j++)
		targets[j] = f->pos[dst[j]];
	std::vector<DevRun<T>> runs(G);
	double t0 = lib_now();
	uint64_t S_ = UINT64_MAX;
	double taken = 0;
	for (int k = 0; k < G; k++) {
		DevRun<T> &x = runs[k];
		x.id = ids[k];
		if (dev_setup(e, x, f, p, st != nullptr))
			return -1;
		x.spos = x.cpos = x.df.pos;
		int *p;
		if (src) {
			if (upload(e, x.m, &p, listed.data(), R))
				return -1;
			x.spos = p;
		}
		if (dst && C) {
			if (upload(e, x.m, &p, targets.data(), C))
				return -1;
			x.cpos = p;
		}
		if (k == 0) {
			cudaDeviceProp prop;
			CUDA_TRY(cudaGetDeviceProperties(&prop, x.id));
			snprintf(t->device_name, sizeof t->device_name, "%s", prop.name);
		}
		size_t free_b, total_b;
		CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
		S_ = std::min(S_, batch_size(n, es, free_b, C));
		taken += (double)(total_b - free_b);
	}
	if (peers_enabled(e, ids, G))
		return -1;
	t->upload_ms = (lib_now() - t0) * 1e3;
	if (most && S_ > most)
		S_ = most;
	if (ranks && ranks->least(ranks->ctx, &S_)) // (every process's batches alike)
		return fail(e, "the batch's size not agreed between the processes");
	if (S_ > (R + 31) / 32 * 32) // (a few rows asked: a batch for them alone)
		S_ = std::max<uint64_t>((R + 31) / 32 * 32, 32);
	if (S_ == 0)
		return fail(e, "n = %llu: the sparse engine's batch of 32 sources needs %.1f GiB of device "
		            "memory, too much for device %d", (unsigned long long)n,
		            32.0 * (double)(n + C) * es / 1073741824.0, ids[0]);
	for (auto &x : runs) {
		CUDA_TRY(cudaSetDevice(x.id));
		if (alloc(e, x.m, &x.d, n * S_ * es) || (!st && alloc(e, x.m, &x.rows, C * S_ * es + 1))
		    || (st && folds_out<T>()
		        && alloc(e, x.m, &x.out, (x.df.parts + 1) * S_ * sizeof(OutPart))))
			return -1;
		if (!st || ranks)
			CUDA_TRY(cudaMallocHost(&x.m.host, ranks ? figures_bytes<typename StatsElem<T>::Sum>(
			                                                   n, GS_IN)
			                                         : C * S_ * es + 1));
	}
	t->batch = S_;
	t->device_bytes = taken + G * (double)((n + C) * S_ * es)
	                  + (st && folds_out<T>() ? G * (double)((runs[0].df.parts + 1) * S_)
	                                                    * sizeof(OutPart)
	                                          : 0.0);
	// The finite arcs; int32 with a negative one: sums checked (sweep_down).
	const T *up = (const T *)f->up, *down = (const T *)f->down;
	const T inf = std::is_same<T, int>::value ? (T)ST_INF_I32 : (T)INFINITY;
	bool check = false;
	for (uint64_t k = 0; k < E; k++) {
		t->arcs += (uint64_t)(up[k] < inf) + (uint64_t)(down[k] < inf);
		check |= std::is_same<T, int>::value && (up[k] < 0 || down[k] < 0);
	}
	// Batch b on device b % G, one a device at a time: batch b queued,
	// then batch b - G + 1 (the oldest queued) waited for and taken.
	const uint64_t batches = (R + S_ - 1) / S_;
	auto count_of = [&](uint64_t b) { return (int)std::min(S_, R - b * S_); };
	if (ranks) { // batch b on process b % ranks, one device each
		const RankPass rp{ranks, (char *)runs[0].m.host, batches};
		for (uint64_t b = (uint64_t)ranks->rank; b < batches; b += (uint64_t)ranks->ranks)
			if (batch_queue(e, runs[0], (const DevRun<T> *)nullptr, f, true, check, b * S_,
			                count_of(b), S_, C, &rp)
			    || batch_done(e, runs[0], true, take, ctx, b * S_, count_of(b), t))
				return -1;
		return figures_ranks(e, runs, rp, n, st);
	}
	for (uint64_t b = 0; b < batches + G - 1; b++) {
		if (b < batches
		    && batch_queue(e, runs[b % G], b ? &runs[(b - 1) % G] : nullptr, f, st != nullptr,
		                   check, b * S_, count_of(b), S_, C))
			return -1;
		if (b + 1 >= (uint64_t)G) {
			const uint64_t c = b + 1 - G;
			if (c < batches && batch_done(e, runs[c % G], st != nullptr, take, ctx, c * S_,
			                              count_of(c), t))
				return -1;
		}
	}
	if (st && figures_all(e, runs, runs[(batches - 1) % G], n, st))
		return -1;
	return 0;
}

} // namespace

int fws_device_count(char *err, size_t errlen)
{
	Err e{err, errlen};
	int count = 0;
	CUDA_TRY(cudaGetDeviceCount(&count));
	return count;
}

int fws_start(int device, char *err, size_t errlen)
{
	Err e{err, errlen};
	CUDA_TRY(cudaSetDevice(device));
	CUDA_TRY(cudaFree(nullptr));
	return 0;
}

static int solve(const int *devices, int ndevices, const el_factor *f, const fws_plan *plan,
                 const el_rowset *rows, gs_stats *stats, fws_rows_fn *take,
                 void *ctx, uint64_t most, const struct fws_ranks *ranks, struct fws_timing *t,
                 char *err, size_t errlen)
{
	Err e{err, errlen};
	memset(t, 0, sizeof *t);
	const el_rowset every = {NULL, 0, NULL, 0}, &which = rows ? *rows : every;
	if (!stats && !take)
		return fail(e, "fws_solve: neither statistics nor a taker of rows");
	if (stats && (which.src || which.dst))
		return fail(e, "fws_solve: statistics take every row and column, not a list");
	for (uint64_t i = 0; which.src && i < which.sources; i++)
		if (which.src[i] >= f->n)
			return fail(e, "fws_solve: source %u of n = %llu", which.src[i],
			            (unsigned long long)f->n);
	for (uint64_t j = 0; which.dst && j < which.cols; j++)
		if (which.dst[j] >= f->n)
			return fail(e, "fws_solve: target %u of n = %llu", which.dst[j],
			            (unsigned long long)f->n);
	if (f->n > (uint64_t)INT32_MAX)
		return fail(e, "n = %llu: over the sparse engine's limit on a GPU",
		            (unsigned long long)f->n);
	if (ndevices < 1)
		return fail(e, "fws_solve: no device");
	if (ranks && (ndevices != 1 || !stats || ranks->rank < 0 || ranks->rank >= ranks->ranks))
		return fail(e, "fws_solve_ranks: one device a process, statistics alone");
	if (f->n == 0)
		return 0;
	std::unique_ptr<fws_plan> own; // (none given: made here)
	if (!plan) {
		own.reset(fws_plan_make(f, err, errlen));
		if (!own)
			return -1;
		plan = own.get();
	}
	switch (f->type) {
	case ST_INT32:
		return solve_typed<int>(e, devices, ndevices, f, *plan, which, stats, take, ctx,
		                        most, ranks, t);
	case ST_FLOAT32:
		return solve_typed<float>(e, devices, ndevices, f, *plan, which, stats, take, ctx,
		                          most, ranks, t);
	case ST_FLOAT64:
		return solve_typed<double>(e, devices, ndevices, f, *plan, which, stats, take, ctx,
		                           most, ranks, t);
	}
	return fail(e, "element type %u unknown", f->type);
}

fws_plan *fws_plan_make(const el_factor *f, char *err, size_t errlen)
{
	Err e{err, errlen};
	if (f->type != ST_INT32 && f->type != ST_FLOAT32 && f->type != ST_FLOAT64) {
		fail(e, "element type %u unknown", f->type);
		return nullptr;
	}
	try {
		std::unique_ptr<fws_plan> p(new fws_plan);
		if (plan_make(e, f, *p))
			return nullptr;
		return p.release();
	} catch (const std::bad_alloc &) {
		fail(e, "n = %llu: no host memory for the sparse engine's plan",
		     (unsigned long long)f->n);
		return nullptr;
	}
}

void fws_plan_free(fws_plan *p) { delete p; }

int fws_solve(const int *devices, int ndevices, const el_factor *f, const fws_plan *plan,
              const el_rowset *rows, gs_stats *stats, fws_rows_fn *take,
              void *ctx, uint64_t most, struct fws_timing *t, char *err, size_t errlen)
{
	return solve(devices, ndevices, f, plan, rows, stats, take, ctx, most, NULL, t, err, errlen);
}

int fws_solve_ranks(const int *devices, int ndevices, const el_factor *f, const fws_plan *plan,
                    gs_stats *stats, uint64_t most, const struct fws_ranks *ranks,
                    struct fws_timing *t, char *err, size_t errlen)
{
	if (ranks && ranks->ranks < 2)
		ranks = NULL;
	return solve(devices, ndevices, f, plan, NULL, stats, NULL, NULL, most, ranks, t, err, errlen);
}
