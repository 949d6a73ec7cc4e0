// fw_init.cuh - what a process makes once before its runs (included by
// fw_gpu.cu, after fw_exchange.cuh): the CUDA contexts, the page-locked
// staging buffers and the communicators between devices or processes
// (fwg_init, fwg_init_rank), and the count of devices.
#ifndef APSP_FW_INIT_CUH
#define APSP_FW_INIT_CUH

#include <thread>
#include <vector>

#include "fw_exchange.cuh"
#include "fw_gpu.h"

extern "C" int fwg_device_count(char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	int count = 0, driver = 0;
	cudaError_t rc = cudaGetDeviceCount(&count);
	// Without libcuda the runtime says the driver is "insufficient": say
	// what it is, none found.
	if (rc != cudaSuccess && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
		return fail(e, "no NVIDIA driver was found (no GPU here, or its driver is not installed)");
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
				void *m = lib_huge_alloc(bytes);
				if (!m)
					continue;
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
				free(mem[i]);
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
	return EXCHANGE_BUILT ? MAX_GPUS : 1;
}

extern "C" int fwg_host_register(void *p, size_t bytes)
{
	if (cudaHostRegister(p, bytes, cudaHostRegisterPortable) != cudaSuccess) {
		cudaGetLastError();
		return -1;
	}
	return 0;
}

extern "C" void fwg_host_unregister(void *p)
{
	if (cudaHostUnregister(p) != cudaSuccess)
		cudaGetLastError();
}

// fwg_init(), fwg_init_beside() (beside: the group opened on a thread of
// its own).
static int init_devices(Err e, int device, int gpus, uint64_t staging_bytes, bool beside)
{
	if (group_wait(e)) // (an earlier call's)
		return -1;
	if (gpus < 1)
		gpus = 1;
	const int count = fwg_device_count(e.buf, e.len);
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
	if (gpus > 1 && !EXCHANGE_BUILT) // (the refusal, before any context)
		return open_group(e, device, gpus);
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
	if (beside ? open_group_beside(e, device, gpus) : open_group(e, device, gpus))
		return -1;
	return prep.finish(e);
}

extern "C" int fwg_init(int device, int gpus, uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	return init_devices(Err{errbuf, errlen}, device, gpus, staging_bytes, false);
}

extern "C" int fwg_init_beside(int device, int gpus, uint64_t staging_bytes, char *errbuf,
                               size_t errlen)
{
	return init_devices(Err{errbuf, errlen}, device, gpus, staging_bytes, true);
}

extern "C" int fwg_group_wait(char *errbuf, size_t errlen)
{
	return group_wait(Err{errbuf, errlen});
}

extern "C" int fwg_unique_id(void *id, size_t len, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	return unique_id(e, id, len);
}

extern "C" int fwg_init_rank(int device, int rank, int ranks, const void *id,
                             uint64_t staging_bytes, char *errbuf, size_t errlen)
{
	Err e{errbuf, errlen};
	if (!EXCHANGE_BUILT)
		return fail(e, "several processes need a build with NCCL");
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
	if (open_rank(e, device, rank, ranks, id))
		return -1;
	return prep.finish(e);
}

#endif
