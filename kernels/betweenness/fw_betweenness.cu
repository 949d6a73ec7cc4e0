// fw_betweenness.cu - betweenness on the GPU (see fw_betweenness.h): a warp
// a source, its row, its vertices' states (counts, coefficients,
// in-degrees), dependencies and order each n long, a batch's sources one
// after the other.
#include "fw_base.cuh"

#include <math.h>
#include <string.h>

#include "betweenness_count.h"
#include "fw_betweenness.h"
#include "types.h"


// A vertex's state in a source's search, in one 16-byte load: its path
// count (sg x 2^e; once its dependency is summed, its coefficient
// (1 + delta) / sigma in sg's place, as betweenness.c keeps it) and its
// tight in-arcs not yet passed.
struct __align__(16) vx_t {
	double sg;
	int32_t e;
	uint32_t in;
};

struct fwb {
	int device;
	uint64_t n, m, batch;
	uint64_t *first;   // device: the graph
	uint2 *arcs;       // (head, weight)
	int32_t *d;        // [source][v] distances, and the rest alike
	vx_t *vx;          // [source][v]: counts, coefficients, in-degrees
	double *delta;
	uint32_t *order;
	int32_t *host_rows; // pinned: a batch's rows (fwb_room), then the partials back
	double *partials;   // device: [chunk][v]
	cudaStream_t s;
	cudaEvent_t ev[2];  // the kernels' start (the rows copied over) and end
	uint64_t put;       // the sources of the batch put and not yet taken (0: none)
};

namespace {


// A warp a source: lib/stats/betweenness.c's source_row, its additions in
// the same order.  The lanes share the tight arcs' pass (a vertex each,
// the in-degrees counted with atomics, whose order does not matter); in
// the order and the dependencies they take a vertex's arcs 32 at a time,
// in the arcs' order: the heads that come free join the order in that
// order (a ballot), and a vertex's dependency adds its arcs' shares in that
// order (lane by lane).
__global__ void sources(const uint64_t *__restrict__ first, const uint2 *__restrict__ arcs,
                        const int32_t *__restrict__ d, vx_t *vx, double *delta,
                        uint32_t *order, uint64_t n, uint64_t count, uint64_t s0)
{
	const uint64_t w = (blockIdx.x * (uint64_t)blockDim.x + threadIdx.x) / 32;
	const unsigned lane = threadIdx.x % 32;
	if (w >= count)
		return;
	const uint32_t src = (uint32_t)(s0 + w);
	const int32_t *dr = d + w * n;
	vx_t *V = vx + w * n;
	double *dl = delta + w * n;
	uint32_t *ord = order + w * n;
	int64_t far = 0;
	for (uint64_t v = lane; v < n; v += 32)
		if (dr[v] < ST_INF_I32 && dr[v] > far)
			far = dr[v];
	for (int o = 16; o > 0; o /= 2) {
		const int64_t x = __shfl_xor_sync(0xffffffffu, far, o);
		far = x > far ? x : far;
	}
	for (uint64_t u = lane; u < n; u += 32) { // the tight arcs' heads counted
		const int64_t du = dr[u];
		if (du >= ST_INF_I32)
			continue;
		const int64_t room = far - du;
		for (uint64_t a = first[u]; a < first[u + 1]; a++) {
			const uint2 x = arcs[a];
			if ((int32_t)x.y > room)
				break;
			if (du + (int32_t)x.y == dr[x.x])
				atomicAdd(&V[x.x].in, 1u);
		}
	}
	if (lane == 0)
		ord[0] = src, V[src].sg = 1.0, V[src].e = 0;
	__syncwarp();
	uint64_t len = 1;
	for (uint64_t i = 0; i < len; i++) { // Kahn's order, the counts
		const uint32_t v = ord[i];
		const vx_t xv = V[v];
		const int64_t dv = dr[v], room = far - dv;
		for (uint64_t a0 = first[v]; a0 < first[v + 1]; a0 += 32) {
			const uint64_t a = a0 + lane;
			const uint2 x = a < first[v + 1] ? arcs[a] : make_uint2(0, 0x7fffffff);
			const bool stop = (int32_t)x.y > room;
			const bool tight = !stop && dv + (int32_t)x.y == dr[x.x];
			bool free_now = false;
			if (tight) { // (one arc a head: no two lanes on one u)
				vx_t t = V[x.x];
				if (t.sg == 0)
					t.sg = xv.sg, t.e = xv.e;
				else
					btw_count_add(&t.sg, &t.e, xv.sg, xv.e);
				free_now = --t.in == 0;
				V[x.x] = t;
			}
			const unsigned joined = __ballot_sync(0xffffffffu, free_now);
			if (free_now)
				ord[len + __popc(joined & ((1u << lane) - 1))] = x.x;
			len += __popc(joined);
			__syncwarp();
			if (__any_sync(0xffffffffu, stop))
				break;
		}
	}
	for (uint64_t i = len; i-- > 0;) { // the dependencies
		const uint32_t v = ord[i];
		const vx_t xv = V[v];
		const int64_t dv = dr[v], room = far - dv;
		double acc = 0;
		for (uint64_t a0 = first[v]; a0 < first[v + 1]; a0 += 32) {
			const uint64_t a = a0 + lane;
			const uint2 x = a < first[v + 1] ? arcs[a] : make_uint2(0, 0x7fffffff);
			const bool stop = (int32_t)x.y > room;
			const bool tight = !stop && dv + (int32_t)x.y == dr[x.x];
			double c = 0;
			if (tight) {
				const vx_t xu = V[x.x];
				c = xv.sg * xu.sg;
				if (xv.e != xu.e)
					c = ldexp(c, xv.e - xu.e);
			}
			for (unsigned m = __ballot_sync(0xffffffffu, tight); m; m &= m - 1)
				acc += __shfl_sync(0xffffffffu, c, __ffs(m) - 1);
			if (__any_sync(0xffffffffu, stop))
				break;
		}
		if (lane == 0) {
			dl[v] = v != src ? acc : 0.0;
			V[v].sg = (1.0 + acc) / xv.sg;
		}
		__syncwarp();
	}
	for (uint64_t i = lane; i < len; i += 32) // ready for the next batch
		V[ord[i]] = vx_t{0, 0, 0};
}

// partials[c][v] = the chunk's sources' dependencies at v, summed in order
__global__ void chunk_sums(const double *__restrict__ delta, double *partials, uint64_t n,
                           uint64_t count)
{
	const uint64_t v = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	const uint64_t c = blockIdx.y;
	if (v >= n)
		return;
	const uint64_t s1 = (c + 1) * 64 < count ? (c + 1) * 64 : count;
	double p = 0;
	for (uint64_t s = c * 64; s < s1; s++)
		p += delta[s * n + v];
	partials[c * n + v] = p;
}

int make(fwb *b, const uint64_t *first, const uint32_t *arcs, Err e)
{
	const uint64_t n = b->n, m = b->m, S = b->batch;
	CUDA_TRY(cudaSetDevice(b->device));
	CUDA_TRY(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
	for (int i = 0; i < 2; i++)
		CUDA_TRY(cudaEventCreate(&b->ev[i]));
	CUDA_TRY(cudaMalloc(&b->first, (n + 1) * 8));
	CUDA_TRY(cudaMalloc(&b->arcs, (m ? m : 1) * 8));
	CUDA_TRY(cudaMalloc(&b->d, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->vx, n * S * sizeof(vx_t)));
	CUDA_TRY(cudaMalloc(&b->delta, n * S * 8));
	CUDA_TRY(cudaMalloc(&b->order, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->partials, n * (S / 64) * 8));
	CUDA_TRY(cudaMallocHost(&b->host_rows, n * S * 4 + n * (S / 64) * 8));
	CUDA_TRY(cudaMemcpy(b->first, first, (n + 1) * 8, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(b->arcs, arcs, m * 8, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemset(b->vx, 0, n * S * sizeof(vx_t)));
	return 0;
}

// The batch in host_rows: copied over, its sources' sums begun, the
// partials on their way back; nothing waited for.
int put(fwb *b, uint64_t s0, uint64_t count, Err e)
{
	const uint64_t n = b->n, chunks = (count + 63) / 64;
	CUDA_TRY(cudaSetDevice(b->device));
	CUDA_TRY(cudaMemcpyAsync(b->d, b->host_rows, count * n * 4, cudaMemcpyHostToDevice, b->s));
	CUDA_TRY(cudaEventRecord(b->ev[0], b->s));
	CUDA_TRY(cudaMemsetAsync(b->delta, 0, count * n * 8, b->s));
	sources<<<(unsigned)((count + 7) / 8), 256, 0, b->s>>>(b->first, b->arcs, b->d, b->vx,
	                                                       b->delta, b->order, n, count, s0);
	CUDA_TRY(cudaGetLastError());
	chunk_sums<<<dim3((unsigned)((n + 255) / 256), (unsigned)chunks), 256, 0, b->s>>>(
		b->delta, b->partials, n, count);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(b->ev[1], b->s));
	double *back = (double *)(b->host_rows + n * b->batch);
	CUDA_TRY(cudaMemcpyAsync(back, b->partials, chunks * n * 8, cudaMemcpyDeviceToHost, b->s));
	b->put = count;
	return 0;
}

// The batch put has left the host's room.
int rows_left(fwb *b, Err e)
{
	CUDA_TRY(cudaSetDevice(b->device));
	CUDA_TRY(cudaEventSynchronize(b->ev[0]));
	return 0;
}

// The batch put is summed and its partials are back; its kernels' time
// added to *kernel_ms.
int sums_back(fwb *b, double *kernel_ms, Err e)
{
	float ms = 0;
	CUDA_TRY(cudaSetDevice(b->device));
	CUDA_TRY(cudaStreamSynchronize(b->s));
	CUDA_TRY(cudaEventElapsedTime(&ms, b->ev[0], b->ev[1]));
	*kernel_ms += ms;
	return 0;
}

} // namespace

extern "C" int fwb_new(fwb **out, int device, uint64_t n, const uint64_t *first,
                       const uint32_t *arcs, uint64_t m, uint64_t batch_, char *msg, size_t len)
{
	Err e = {msg, len};
	*out = NULL;
	if (batch_ % 64 || !batch_ || !n)
		return fail(e, "betweenness on the GPU: a batch of %llu sources (a multiple of 64)",
		            (unsigned long long)batch_);
	fwb *b = (fwb *)calloc(1, sizeof *b);
	if (!b)
		return fail(e, "betweenness on the GPU: out of memory");
	b->device = device, b->n = n, b->m = m, b->batch = batch_;
	if (make(b, first, (const uint32_t *)arcs, e) < 0) {
		fwb_free(b);
		cudaGetLastError(); // (a failed allocation is not left for the engine's next check)
		return -1;
	}
	*out = b;
	return 0;
}

extern "C" int32_t *fwb_room(fwb *b, char *msg, size_t len)
{
	// (the last batch's rows may still be on their way)
	return b->put && rows_left(b, Err{msg, len}) < 0 ? NULL : b->host_rows;
}

extern "C" int fwb_put(fwb *b, uint64_t first, uint64_t count, char *msg, size_t len)
{
	Err e = {msg, len};
	if (count > b->batch || b->put)
		return fail(e, "betweenness on the GPU: %llu rows put, past the batch of %llu or "
		            "before the last was taken", (unsigned long long)count,
		            (unsigned long long)b->batch);
	return count ? put(b, first, count, e) : 0;
}

extern "C" const double *fwb_take(fwb *b, double *kernel_ms, char *msg, size_t len)
{
	Err e = {msg, len};
	if (!b->put) {
		fail(e, "betweenness on the GPU: nothing put to take");
		return NULL;
	}
	if (sums_back(b, kernel_ms, e) < 0)
		return NULL;
	b->put = 0;
	return (const double *)(b->host_rows + b->n * b->batch);
}

extern "C" double fwb_free_memory(int device)
{
	size_t free_b = 0, total_b = 0;
	if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
		return 0;
	return (double)free_b;
}

extern "C" double fwb_batch_bytes(uint64_t n, uint64_t batch)
{
	return (double)n * (double)batch * (4.0 + sizeof(vx_t) + 8.0 + 4.0)
	       + (double)n * (double)(batch / 64) * 8.0;
}

extern "C" void fwb_free(fwb *b)
{
	if (!b)
		return;
	cudaSetDevice(b->device);
	if (b->s)
		cudaStreamSynchronize(b->s);
	void *p[] = {b->first, b->arcs, b->d, b->vx, b->delta, b->order, b->partials};
	for (size_t i = 0; i < sizeof p / sizeof *p; i++)
		cudaFree(p[i]);
	cudaFreeHost(b->host_rows);
	for (int i = 0; i < 2; i++)
		if (b->ev[i])
			cudaEventDestroy(b->ev[i]);
	if (b->s)
		cudaStreamDestroy(b->s);
	free(b);
}
