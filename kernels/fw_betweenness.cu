// fw_betweenness.cu - betweenness on the GPU (see fw_betweenness.h).  A
// batch's rows are laid out vertex-major ([v][source]), so that the threads
// of a warp, each on its own source, read one vertex's entries together
// while they sweep the arcs in step (the tight arcs' pass); the counts,
// coefficients, in-degrees and order of each source live alike.
#include "fw_base.cuh"

#include <math.h>
#include <string.h>

#include "fw_betweenness.h"
#include "types.h"

#define FWB_NORM 512 // as lib/stats/betweenness.c: a count past 2^512 moves into its exponent

struct fwb {
	int device;
	uint64_t n, m, batch;
	uint64_t *first;   // device: the graph
	uint2 *arcs;       // (head, weight)
	int32_t *d;        // [v][batch] distances
	double *sig, *coef, *delta;
	int32_t *e;
	uint32_t *indeg, *order;
	uint32_t *tfirst, *tight; // [v][batch] each vertex's first tight arc; [k][batch] their heads
	int32_t *host_rows; // pinned: the rows as given, then the partials back
	double *partials;   // device: [chunk][v]
	cudaStream_t s;
	cudaEvent_t ev[2];
};

namespace {

__device__ inline void count_add(double *m, int32_t *e, double mv, int32_t ev)
{
	double mu = *m;
	int32_t eu = *e;
	if (eu == ev) {
		mu += mv;
	} else if (ev > eu) {
		mu = ldexp(mu, eu - ev) + mv;
		eu = ev;
	} else {
		mu += ldexp(mv, ev - eu);
	}
	if (mu >= 0x1p512) {
		mu = ldexp(mu, -FWB_NORM);
		eu += FWB_NORM;
	}
	*m = mu, *e = eu;
}

// rows [count][n] into d [v][S]
__global__ void to_vertex_major(const int32_t *rows, int32_t *d, uint64_t n, uint64_t count,
                                uint64_t S)
{
	__shared__ int32_t t[32][33];
	const uint64_t v0 = blockIdx.x * 32ull, s0 = blockIdx.y * 32ull;
	for (int k = threadIdx.y; k < 32; k += blockDim.y) {
		const uint64_t s = s0 + k, v = v0 + threadIdx.x;
		t[k][threadIdx.x] = s < count && v < n ? rows[s * n + v] : ST_INF_I32;
	}
	__syncthreads();
	for (int k = threadIdx.y; k < 32; k += blockDim.y) {
		const uint64_t v = v0 + k, s = s0 + threadIdx.x;
		if (v < n)
			d[v * S + s] = t[threadIdx.x][k];
	}
}

// A thread a source: lib/stats/betweenness.c's source_row, step for step.
// The tight arcs' heads are kept, a source's in tail order, up to FWB_TIGHT x
// n of them; a source with more reads them off the arcs again (the same
// arcs in the same order).
#define FWB_TIGHT 2
__global__ void sources(const uint64_t *__restrict__ first, const uint2 *__restrict__ arcs,
                        const int32_t *__restrict__ d, double *sig, double *coef,
                        double *delta, int32_t *e, uint32_t *indeg, uint32_t *order,
                        uint32_t *tfirst, uint32_t *tight, uint64_t n, uint64_t count,
                        uint64_t S, uint64_t s0)
{
	const uint64_t t = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	if (t >= count)
		return;
	const uint32_t src = (uint32_t)(s0 + t);
#define AT(v) ((uint64_t)(v) * S + t)
	int64_t far = 0;
	for (uint64_t v = 0; v < n; v++) {
		const int32_t x = d[AT(v)];
		if (x < ST_INF_I32 && x > far)
			far = x;
	}
	const uint64_t cap = FWB_TIGHT * n;
	uint64_t k = 0; // the tight arcs seen
	for (uint64_t u = 0; u < n; u++) { // the tight arcs' heads counted, kept
		const int64_t du = d[AT(u)];
		if (k <= cap)
			tfirst[AT(u)] = (uint32_t)k;
		if (du >= ST_INF_I32)
			continue;
		const int64_t room = far - du;
		for (uint64_t a = first[u]; a < first[u + 1]; a++) {
			const uint2 x = arcs[a];
			if ((int32_t)x.y > room)
				break;
			if (du + (int32_t)x.y == d[AT(x.x)]) {
				indeg[AT(x.x)]++;
				if (k < cap)
					tight[AT(k)] = x.x;
				k++;
			}
		}
	}
	const bool kept = k <= cap;
	// v's tight arcs' heads: kept[tfirst(v) .. tfirst(v + 1) - 1], else off the arcs
#define TIGHT_BEGIN(v)                                                            \
	const int64_t dv_ = d[AT(v)], room_ = far - dv_;                           \
	const uint64_t j1_ = kept ? ((v) + 1 < n ? tfirst[AT((v) + 1)] : k) : first[(v) + 1]; \
	for (uint64_t j_ = kept ? tfirst[AT(v)] : first[v]; j_ < j1_; j_++) {       \
		uint32_t u;                                                            \
		if (kept) {                                                            \
			u = tight[AT(j_)];                                                 \
		} else {                                                               \
			const uint2 x = arcs[j_];                                          \
			if ((int32_t)x.y > room_)                                          \
				break;                                                         \
			u = x.x;                                                           \
			if (dv_ + (int32_t)x.y != d[AT(u)])                                \
				continue;                                                      \
		}
#define TIGHT_END }
	uint64_t len = 1;
	order[AT(0)] = src;
	sig[AT(src)] = 1.0, e[AT(src)] = 0;
	for (uint64_t i = 0; i < len; i++) { // Kahn's order, the counts
		const uint32_t v = order[AT(i)];
		const double mv = sig[AT(v)];
		const int32_t ev = e[AT(v)];
		TIGHT_BEGIN(v)
			if (sig[AT(u)] == 0)
				sig[AT(u)] = mv, e[AT(u)] = ev;
			else
				count_add(&sig[AT(u)], &e[AT(u)], mv, ev);
			if (--indeg[AT(u)] == 0)
				order[AT(len++)] = u;
		TIGHT_END
	}
	for (uint64_t i = len; i-- > 0;) { // the dependencies
		const uint32_t v = order[AT(i)];
		const double y = sig[AT(v)];
		const int32_t ye = e[AT(v)];
		double acc = 0;
		TIGHT_BEGIN(v)
			double c = y * coef[AT(u)];
			if (ye != e[AT(u)])
				c = ldexp(c, ye - e[AT(u)]);
			acc += c;
		TIGHT_END
		delta[AT(v)] = v != src ? acc : 0.0;
		coef[AT(v)] = (1.0 + acc) / y;
	}
	for (uint64_t i = 0; i < len; i++) { // ready for the next batch
		const uint32_t v = order[AT(i)];
		sig[AT(v)] = 0, coef[AT(v)] = 0, e[AT(v)] = 0;
	}
	// (vertices not reached keep delta from no source: cleared by the caller)
#undef TIGHT_BEGIN
#undef TIGHT_END
#undef AT
}

// partials[c][v] = the chunk's sources' dependencies at v, summed in order
__global__ void chunk_sums(const double *__restrict__ delta, double *partials, uint64_t n,
                           uint64_t count, uint64_t S)
{
	const uint64_t v = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	const uint64_t c = blockIdx.y;
	if (v >= n)
		return;
	const uint64_t s1 = (c + 1) * 64 < count ? (c + 1) * 64 : count;
	double p = 0;
	for (uint64_t s = c * 64; s < s1; s++)
		p += delta[v * S + s];
	partials[c * n + v] = p;
}

int make(fwb *b, const uint64_t *first, const uint32_t *arcs, Err e)
{
	const uint64_t n = b->n, m = b->m, S = b->batch;
	CUDA_TRY(cudaSetDevice(b->device));
	CUDA_TRY(cudaStreamCreateWithFlags(&b->s, cudaStreamNonBlocking));
	CUDA_TRY(cudaEventCreate(&b->ev[0]));
	CUDA_TRY(cudaEventCreate(&b->ev[1]));
	CUDA_TRY(cudaMalloc(&b->first, (n + 1) * 8));
	CUDA_TRY(cudaMalloc(&b->arcs, (m ? m : 1) * 8));
	CUDA_TRY(cudaMalloc(&b->d, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->sig, n * S * 8));
	CUDA_TRY(cudaMalloc(&b->coef, n * S * 8));
	CUDA_TRY(cudaMalloc(&b->delta, n * S * 8));
	CUDA_TRY(cudaMalloc(&b->e, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->indeg, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->order, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->tfirst, n * S * 4));
	CUDA_TRY(cudaMalloc(&b->tight, FWB_TIGHT * n * S * 4));
	CUDA_TRY(cudaMalloc(&b->partials, n * (S / 64) * 8));
	CUDA_TRY(cudaMallocHost(&b->host_rows, n * S * 4 + n * (S / 64) * 8));
	CUDA_TRY(cudaMemcpy(b->first, first, (n + 1) * 8, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemcpy(b->arcs, arcs, m * 8, cudaMemcpyHostToDevice));
	CUDA_TRY(cudaMemset(b->sig, 0, n * S * 8));
	CUDA_TRY(cudaMemset(b->coef, 0, n * S * 8));
	CUDA_TRY(cudaMemset(b->e, 0, n * S * 4));
	CUDA_TRY(cudaMemset(b->indeg, 0, n * S * 4));
	return 0;
}

int batch(fwb *b, uint64_t s0, uint64_t count, const int32_t *rows, double *partials,
          double *kernel_ms, Err e)
{
	const uint64_t n = b->n, S = b->batch, chunks = (count + 63) / 64;
	CUDA_TRY(cudaSetDevice(b->device));
	int32_t *up = b->host_rows;
	memcpy(up, rows, count * n * 4);
	int32_t *raw = (int32_t *)b->delta; // (the rows land in delta's room first)
	CUDA_TRY(cudaMemcpyAsync(raw, up, count * n * 4, cudaMemcpyHostToDevice, b->s));
	CUDA_TRY(cudaEventRecord(b->ev[0], b->s));
	to_vertex_major<<<dim3((unsigned)((n + 31) / 32), (unsigned)((S + 31) / 32)), dim3(32, 8), 0,
	                  b->s>>>(raw, b->d, n, count, S);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaMemsetAsync(b->delta, 0, n * S * 8, b->s));
	sources<<<(unsigned)((count + 63) / 64), 64, 0, b->s>>>(b->first, b->arcs, b->d, b->sig,
	                                                        b->coef, b->delta, b->e, b->indeg,
	                                                        b->order, b->tfirst, b->tight, n,
	                                                        count, S, s0);
	CUDA_TRY(cudaGetLastError());
	chunk_sums<<<dim3((unsigned)((n + 255) / 256), (unsigned)chunks), 256, 0, b->s>>>(
		b->delta, b->partials, n, count, S);
	CUDA_TRY(cudaGetLastError());
	CUDA_TRY(cudaEventRecord(b->ev[1], b->s));
	double *back = (double *)(b->host_rows + n * S);
	CUDA_TRY(cudaMemcpyAsync(back, b->partials, chunks * n * 8, cudaMemcpyDeviceToHost, b->s));
	CUDA_TRY(cudaStreamSynchronize(b->s));
	float ms;
	CUDA_TRY(cudaEventElapsedTime(&ms, b->ev[0], b->ev[1]));
	*kernel_ms += ms;
	memcpy(partials, back, chunks * n * 8);
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
		return -1;
	}
	*out = b;
	return 0;
}

extern "C" int fwb_rows(fwb *b, uint64_t first, uint64_t count, const int32_t *rows,
                        double *partials, double *kernel_ms, char *msg, size_t len)
{
	Err e = {msg, len};
	if (count > b->batch)
		return fail(e, "betweenness on the GPU: %llu rows, past the batch of %llu",
		            (unsigned long long)count, (unsigned long long)b->batch);
	return count ? batch(b, first, count, rows, partials, kernel_ms, e) : 0;
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
	return (double)n * (double)batch * (40.0 + 4.0 + 4.0 * FWB_TIGHT)
	       + (double)n * (double)(batch / 64) * 8.0;
}

extern "C" void fwb_free(fwb *b)
{
	if (!b)
		return;
	cudaSetDevice(b->device);
	if (b->s)
		cudaStreamSynchronize(b->s);
	void *p[] = {b->first, b->arcs, b->d, b->sig, b->coef, b->delta, b->e, b->indeg, b->order,
	             b->tfirst, b->tight, b->partials};
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
