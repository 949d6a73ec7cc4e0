// fw_smallgraphs.cu - fwsg_solve (fw_smallgraphs.h): many small graphs in
// one call.  The rooms go up in chunks through two pinned buffers (the host
// copies the next chunk in and the last one out while the device works),
// each chunk's graphs are sorted by size into classes, and each class runs
// its kernel: a group of threads a graph of up to FWSG_SHARED_MAX vertices,
// its rows in registers (kernels/batch/fw_smallgraph_rounds.cuh), or a
// block a larger graph in device memory.  The kernels of each element type
// are built in a file of their own (fw_smallgraphs_TYPE.cu), in parallel.
#include <cstdint>
#include <cstring>
#include <mutex>

#include "fw_base.cuh"
#include "fw_smallgraph_rounds.cuh"
#include "fw_smallgraphs.h"

extern "C" {
#include "fw.h"
}

namespace {

using sg::CLASSES;
static_assert(sg::ROOMS[CLASSES - 2] == FWSG_SHARED_MAX, "the largest register room");
static_assert((int)sg::IN_INT64 == (int)FWSG_INT64, "numpy's integers");

// The class of a graph of size vertices: the smallest register room that
// holds it, or the last (device memory).
int class_of(uint64_t size)
{
	for (int c = 0; c < CLASSES - 1; c++)
		if (size <= (uint64_t)sg::ROOMS[c])
			return c;
	return CLASSES - 1;
}

// A chunk's room in one pinned block and one device block: the rooms'
// distances, their predecessors, the graphs' sizes, each class's list of
// graphs, the cycles.
struct Slot {
	cudaStream_t stream = nullptr;
	cudaEvent_t start = nullptr, stop = nullptr;
	char *host = nullptr, *dev = nullptr;
	uint64_t first = 0, count = 0; // the chunk in it (count 0: none)
};

struct Layout {
	uint64_t in, dist, pred, sizes, list, cycle, first, arcs, weights, bytes; // offsets
};

// graphs a chunk; lists: a job of lists of arcs (each chunk's offsets of
// its graphs' arcs, even where it has none), the most arcs of a chunk.
Layout layout(uint64_t graphs, uint64_t in_bytes, uint64_t room_bytes, uint64_t pred_bytes,
              bool lists, uint64_t arcs)
{
	Layout l;
	auto up = [](uint64_t x) { return (x + 255) / 256 * 256; };
	l.in = 0;
	l.dist = up(graphs * in_bytes);
	l.pred = l.dist + up(graphs * room_bytes);
	l.sizes = l.pred + up(graphs * pred_bytes);
	l.list = l.sizes + up(graphs * 4);
	l.cycle = l.list + up(graphs * 4);
	l.first = l.cycle + up(graphs * 8);
	l.arcs = l.first + up(lists ? (graphs + 1) * 8 : 0);
	l.weights = l.arcs + up(arcs * 4);
	l.bytes = l.weights + up(arcs * 8);
	return l;
}

// What the process keeps between calls: the device's slots.
struct Kept {
	int device = -1;
	uint64_t bytes = 0;
	Slot slot[2];
};
Kept kept;
std::mutex solving;
double last_kernel_ms, last_total_ms;

int release(Err e)
{
	for (Slot &s : kept.slot) {
		if (s.stream)
			CUDA_TRY(cudaStreamDestroy(s.stream));
		if (s.start)
			CUDA_TRY(cudaEventDestroy(s.start));
		if (s.stop)
			CUDA_TRY(cudaEventDestroy(s.stop));
		if (s.host)
			CUDA_TRY(cudaFreeHost(s.host));
		if (s.dev)
			CUDA_TRY(cudaFree(s.dev));
		s = Slot();
	}
	kept.bytes = 0;
	return 0;
}

// Two slots of at least bytes each on device.
int make_slots(int device, uint64_t bytes, Err e)
{
	if (kept.device == device && kept.bytes >= bytes)
		return 0;
	CUDA_TRY(cudaSetDevice(device));
	if (kept.device >= 0 && release(e) < 0)
		return -1;
	kept.device = device;
	for (Slot &s : kept.slot) {
		CUDA_TRY(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
		CUDA_TRY(cudaEventCreate(&s.start));
		CUDA_TRY(cudaEventCreate(&s.stop));
		CUDA_TRY(cudaMallocHost(&s.host, bytes));
		CUDA_TRY(cudaMalloc(&s.dev, bytes));
	}
	kept.bytes = bytes;
	return 0;
}

// memcpy on every core, in pieces of a few MiB.
void copy(void *dst, const void *src, uint64_t bytes)
{
	constexpr uint64_t PIECE = 4u << 20;
	const int64_t pieces = (int64_t)((bytes + PIECE - 1) / PIECE);
#pragma omp parallel for schedule(static) if (pieces > 1)
	for (int64_t p = 0; p < pieces; p++) {
		const uint64_t at = (uint64_t)p * PIECE;
		memcpy((char *)dst + at, (const char *)src + at, bytes - at < PIECE ? bytes - at : PIECE);
	}
}

// What one call is asked: the rooms in place, or (flags DENSE) read from
// in and written to dist.
struct Job {
	uint32_t semiring, type;
	uint64_t count, n, room_bytes, pred_bytes, in_bytes;
	const uint32_t *sizes;
	char *dist;
	int32_t *pred;
	int64_t *cycle;
	const char *in;
	uint32_t in_type, flags;
	const uint64_t *first_arc; // or lists of arcs: graph g's first_arc[g] ..
	const uint16_t *arcs;      // first_arc[g + 1] - 1, (u, v) pairs, weights
	const double *weights;
	uint64_t arcs_max;         // the most arcs of a chunk
	double unreachable;
	int32_t no_pred;
	Layout l;
};

// Chunk [first, first + count) into slot s's pinned block, its classes'
// lists made, up, solved and back down, nothing waited for.
template <typename T>
int start_chunk(const Job &j, Slot &s, uint64_t first, uint64_t count, Err e)
{
	const bool dense = j.flags & sg::DENSE;
	const uint64_t up = dense ? j.l.in : j.l.dist, up_bytes = dense ? j.in_bytes : j.room_bytes;
	if (!j.first_arc) // (the rooms of lists of arcs are made on the device)
		copy(s.host + up, (dense ? j.in : j.dist) + first * up_bytes, count * up_bytes);
	uint32_t *sizes = (uint32_t *)(s.host + j.l.sizes), *list = (uint32_t *)(s.host + j.l.list);
	uint64_t at[CLASSES + 1] = {0};
	for (uint64_t g = 0; g < count; g++) {
		sizes[g] = j.sizes ? j.sizes[first + g] : (uint32_t)j.n;
		at[class_of(sizes[g]) + 1]++;
	}
	for (int c = 0; c < CLASSES; c++)
		at[c + 1] += at[c];
	uint64_t put[CLASSES];
	memcpy(put, at, sizeof put);
	for (uint64_t g = 0; g < count; g++)
		list[put[class_of(sizes[g])]++] = (uint32_t)g;
	if (j.first_arc) { // the chunk's arcs, numbered from its first
		const uint64_t a0 = j.first_arc[first], a1 = j.first_arc[first + count];
		uint64_t *f = (uint64_t *)(s.host + j.l.first);
		for (uint64_t g = 0; g <= count; g++)
			f[g] = j.first_arc[first + g] - a0;
		copy(s.host + j.l.arcs, j.arcs + 2 * a0, (a1 - a0) * 4);
		copy(s.host + j.l.weights, j.weights + a0, (a1 - a0) * 8);
		CUDA_TRY(cudaMemcpyAsync(s.dev + j.l.first, s.host + j.l.first,
		                         j.l.arcs - j.l.first + (a1 - a0) * 4, cudaMemcpyHostToDevice,
		                         s.stream));
		CUDA_TRY(cudaMemcpyAsync(s.dev + j.l.weights, s.host + j.l.weights, (a1 - a0) * 8,
		                         cudaMemcpyHostToDevice, s.stream));
	}
	if (!j.first_arc)
		CUDA_TRY(cudaMemcpyAsync(s.dev + up, s.host + up, count * up_bytes,
		                         cudaMemcpyHostToDevice, s.stream));
	CUDA_TRY(cudaMemcpyAsync(s.dev + j.l.sizes, s.host + j.l.sizes, j.l.list - j.l.sizes + count * 4,
	                         cudaMemcpyHostToDevice, s.stream)); // the sizes and the lists
	CUDA_TRY(cudaEventRecord(s.start, s.stream));
	if (j.first_arc)
		sg::scatter_arcs<<<(unsigned)count, 256, 0, s.stream>>>(
			(double *)(s.dev + j.l.dist), (uint32_t)j.n, (const uint32_t *)(s.dev + j.l.sizes),
			(const uint64_t *)(s.dev + j.l.first), (const uint16_t *)(s.dev + j.l.arcs),
			(const double *)(s.dev + j.l.weights));
	for (int c = 0; c < CLASSES; c++) {
		sg::Rooms<T> r;
		r.dist = (T *)(s.dev + j.l.dist);
		r.pred = j.pred ? (int32_t *)(s.dev + j.l.pred) : nullptr;
		r.size = (const uint32_t *)(s.dev + j.l.sizes);
		r.list = (const uint32_t *)(s.dev + j.l.list) + at[c];
		r.cycle = (int64_t *)(s.dev + j.l.cycle);
		r.count = at[c + 1] - at[c];
		r.n = (uint32_t)j.n;
		r.flags = j.flags;
		r.in = s.dev + j.l.in;
		r.in_type = j.in_type;
		r.unreachable = (T)j.unreachable;
		r.no_pred = j.no_pred;
		CUDA_TRY(sg::launch<T>(j.semiring, c, r, j.pred != nullptr, s.stream));
	}
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(s.stop, s.stream));
	CUDA_TRY(cudaMemcpyAsync(s.host + j.l.dist, s.dev + j.l.dist, count * j.room_bytes,
	                         cudaMemcpyDeviceToHost, s.stream));
	if (j.pred)
		CUDA_TRY(cudaMemcpyAsync(s.host + j.l.pred, s.dev + j.l.pred, count * j.pred_bytes,
		                         cudaMemcpyDeviceToHost, s.stream));
	CUDA_TRY(cudaMemcpyAsync(s.host + j.l.cycle, s.dev + j.l.cycle, count * 8,
	                         cudaMemcpyDeviceToHost, s.stream));
	s.first = first, s.count = count;
	return 0;
}

// Slot s's chunk waited for and copied out; the number of its graphs with
// a negative cycle, or -1.
int64_t finish_chunk(const Job &j, Slot &s, double *kernel_ms, Err e)
{
	if (!s.count)
		return 0;
	CUDA_TRY(cudaStreamSynchronize(s.stream));
	float ms = 0;
	CUDA_TRY(cudaEventElapsedTime(&ms, s.start, s.stop));
	*kernel_ms += ms;
	copy(j.dist + s.first * j.room_bytes, s.host + j.l.dist, s.count * j.room_bytes);
	if (j.pred)
		copy((char *)j.pred + s.first * j.pred_bytes, s.host + j.l.pred, s.count * j.pred_bytes);
	const int64_t *cyc = (const int64_t *)(s.host + j.l.cycle);
	int64_t cycles = 0;
	for (uint64_t g = 0; g < s.count; g++)
		j.cycle[s.first + g] = cyc[g], cycles += cyc[g] >= 0;
	s.count = 0;
	return cycles;
}

// The chunks through the two slots in turn.
template <typename T>
int64_t run(Job &j, int device, Err e)
{
	constexpr uint64_t CHUNK = 128u << 20; // bytes of rooms a slot (a few chunks in flight)
	const uint64_t each = j.in_bytes + j.room_bytes + j.pred_bytes;
	const uint64_t graphs = j.count < (CHUNK / each ? CHUNK / each : 1) ? j.count
	                        : (CHUNK / each ? CHUNK / each : 1);
	if (j.first_arc) // the most arcs of a chunk
		for (uint64_t first = 0; first < j.count; first += graphs) {
			const uint64_t last = j.count - first < graphs ? j.count : first + graphs;
			const uint64_t a = j.first_arc[last] - j.first_arc[first];
			j.arcs_max = a > j.arcs_max ? a : j.arcs_max;
		}
	j.l = layout(graphs, j.in_bytes, j.room_bytes, j.pred_bytes, j.first_arc != nullptr,
	             j.arcs_max);
	CUDA_TRY(cudaSetDevice(device));
	if (make_slots(device, j.l.bytes, e) < 0)
		return -1;
	int64_t cycles = 0;
	double kernel_ms = 0;
	int k = 0;
	for (uint64_t first = 0; first < j.count; first += graphs, k ^= 1) {
		const int64_t c = finish_chunk(j, kept.slot[k], &kernel_ms, e);
		if (c < 0)
			return -1;
		cycles += c;
		const uint64_t count = j.count - first < graphs ? j.count - first : graphs;
		if (start_chunk<T>(j, kept.slot[k], first, count, e) < 0)
			return -1;
	}
	for (int t = 0; t < 2; t++, k ^= 1) {
		const int64_t c = finish_chunk(j, kept.slot[k], &kernel_ms, e);
		if (c < 0)
			return -1;
		cycles += c;
	}
	last_kernel_ms = kernel_ms;
	return cycles;
}

} // namespace

extern "C" void fwsg_times(double *kernel_ms, double *total_ms)
{
	*kernel_ms = last_kernel_ms, *total_ms = last_total_ms;
}

// The chunks run for the job's type; the slots made again after an error
// (a chunk left half done leaves its slot busy).
static int64_t run_job(Job &j, int device, Err e)
{
	int64_t rc;
	if (j.type == ST_INT32)
		rc = run<int32_t>(j, device, e);
	else if (j.type == ST_FLOAT32)
		rc = run<float>(j, device, e);
	else
		rc = run<double>(j, device, e);
	if (rc < 0) {
		char keep[256];
		snprintf(keep, sizeof keep, "%s", e.buf ? e.buf : "");
		release(Err{nullptr, 0});
		kept.device = -1;
		return fail(e, "%s", keep);
	}
	return rc;
}

static Job job(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
               const uint32_t *sizes, void *dist, int32_t *pred, int64_t *cycle)
{
	Job j;
	memset(&j, 0, sizeof j);
	j.semiring = semiring, j.type = type, j.count = count, j.n = n, j.sizes = sizes;
	j.room_bytes = n * n * ST_TYPE_SIZE(type);
	j.pred_bytes = pred ? n * n * sizeof(int32_t) : 0;
	j.dist = (char *)dist, j.pred = pred, j.cycle = cycle;
	j.no_pred = -1;
	return j;
}

extern "C" int64_t fwsg_solve(uint32_t semiring, uint32_t type, uint64_t count, uint64_t n,
                              const uint32_t *sizes, void *dist, int32_t *pred, int device,
                              int64_t *cycle, char *err, size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	Err e{err, errlen};
	const double t0 = lib_now();
	last_kernel_ms = last_total_ms = 0;
	st_error se;
	if (fw_batch_check(semiring, type, count, n, sizes, dist, 0, &se) < 0)
		return fail(e, "%s", se.msg);
	if (n > FWSG_DENSE_MAX_N)
		return fail(e, "rooms of %llu vertices: too large", (unsigned long long)n);
	if (count == 0 || n == 0)
		return 0;
	Job j = job(semiring, type, count, n, sizes, dist, pred, cycle);
	const int64_t rc = run_job(j, device, e);
	last_total_ms = (lib_now() - t0) * 1e3;
	return rc;
}

extern "C" int64_t fwsg_solve_dense(uint32_t semiring, uint32_t in_type, uint64_t count,
                                    uint64_t n, const void *graphs, uint32_t flags,
                                    double unreachable, int32_t no_pred, double *dist,
                                    int32_t *pred, int device, int64_t *cycle, char *err,
                                    size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	Err e{err, errlen};
	const double t0 = lib_now();
	last_kernel_ms = last_total_ms = 0;
	if (semiring != FW_MINPLUS && semiring != FW_WIDEST)
		return fail(e, "semiring %u: the batch takes FW_MINPLUS or FW_WIDEST", semiring);
	const uint64_t in_es = in_type == ST_INT32 || in_type == ST_FLOAT32 ? 4
	                       : in_type == ST_FLOAT64 || in_type == FWSG_INT64 ? 8 : 0;
	if (!in_es)
		return fail(e, "unknown element type %u of the arrays", in_type);
	if (flags & ~(uint32_t)(FWSG_UNDIRECTED | FWSG_UNWEIGHTED))
		return fail(e, "unknown flags 0x%x", flags);
	if (n > FWSG_DENSE_MAX_N || (n && count > UINT64_MAX / (n * n * 8)))
		return fail(e, "%llu graphs of %llu vertices: too large", (unsigned long long)count,
		            (unsigned long long)n);
	if (count == 0 || n == 0)
		return 0;
	Job j = job(semiring, ST_FLOAT64, count, n, nullptr, dist, pred, cycle);
	j.in = (const char *)graphs, j.in_type = in_type, j.in_bytes = n * n * in_es;
	j.flags = sg::DENSE | sg::WHOLE | (flags & FWSG_UNDIRECTED ? sg::UNDIRECTED : 0)
	          | (flags & FWSG_UNWEIGHTED ? sg::UNWEIGHTED : 0);
	j.unreachable = unreachable, j.no_pred = no_pred;
	const int64_t rc = run_job(j, device, e);
	last_total_ms = (lib_now() - t0) * 1e3;
	return rc;
}

extern "C" int64_t fwsg_solve_arcs(uint64_t count, uint64_t n, const uint32_t *sizes,
                                   const uint64_t *first_arc, const uint16_t *arcs,
                                   const double *weights, double unreachable, int32_t no_pred,
                                   double *dist, int32_t *pred, int device, int64_t *cycle,
                                   char *err, size_t errlen)
{
	std::lock_guard<std::mutex> hold(solving);
	Err e{err, errlen};
	const double t0 = lib_now();
	last_kernel_ms = last_total_ms = 0;
	if (n > FWSG_DENSE_MAX_N || (n && count > UINT64_MAX / (n * n * 8)))
		return fail(e, "%llu graphs of %llu vertices: too large", (unsigned long long)count,
		            (unsigned long long)n);
	if (!first_arc)
		return fail(e, "no offsets of the graphs' arcs (first_arc)");
	if (first_arc[0] != 0)
		return fail(e, "the first graph's arcs must begin at 0");
	if (first_arc[count] > first_arc[0] && (!arcs || !weights))
		return fail(e, "%llu arcs but no list of them", (unsigned long long)first_arc[count]);
	for (uint64_t g = 0; g < count; g++) {
		const uint64_t k = sizes ? sizes[g] : n;
		if (k > n)
			return fail(e, "graph %llu: %llu vertices, more than its room's %llu",
			            (unsigned long long)g, (unsigned long long)k, (unsigned long long)n);
		if (first_arc[g + 1] < first_arc[g])
			return fail(e, "graph %llu: its arcs end before they begin", (unsigned long long)g);
		for (uint64_t a = first_arc[g]; a < first_arc[g + 1]; a++)
			if (arcs[2 * a] >= k || arcs[2 * a + 1] >= k || arcs[2 * a] == arcs[2 * a + 1]
			    || !(weights[a] > -INFINITY && weights[a] < INFINITY))
				return fail(e, "graph %llu, arc %llu: %s", (unsigned long long)g,
				            (unsigned long long)a,
				            arcs[2 * a] == arcs[2 * a + 1] && arcs[2 * a] < k ? "a loop"
				            : arcs[2 * a] >= k || arcs[2 * a + 1] >= k ? "a vertex beyond the graph"
				            : "a weight not finite");
	}
	if (count == 0 || n == 0)
		return 0;
	Job j = job(FW_MINPLUS, ST_FLOAT64, count, n, sizes, dist, pred, cycle);
	j.first_arc = first_arc, j.arcs = arcs, j.weights = weights;
	j.flags = sg::WHOLE;
	j.unreachable = unreachable, j.no_pred = no_pred;
	const int64_t rc = run_job(j, device, e);
	last_total_ms = (lib_now() - t0) * 1e3;
	return rc;
}
