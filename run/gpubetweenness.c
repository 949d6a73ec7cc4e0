/* gpubetweenness.c - the run's GPUs as betweenness's devices (see
 * gpubetweenness.h): kernels/betweenness/fw_betweenness.h behind run/betweenness.h's
 * btw_device, each device's share set aside beside the engine's. */
#include "gpubetweenness.h"

#include "common.h"
#include "betweenness/fw_betweenness.h"

static int gpu_btw_ids[64];
static int btw_open(void **ctx, int which, uint64_t n, const uint64_t *first,
                    const uint32_t *arcs, uint64_t m, uint64_t batch, char *msg, size_t len)
{
	return fwb_new((fwb **)ctx, gpu_btw_ids[which], n, first, arcs, m, batch, msg, len);
}
static int32_t *btw_room(void *ctx, char *msg, size_t len)
{
	return fwb_room(ctx, msg, len);
}
static int btw_put(void *ctx, uint64_t first, uint64_t count, char *msg, size_t len)
{
	return fwb_put(ctx, first, count, msg, len);
}
static const double *btw_take(void *ctx, double *kernel_ms, char *msg, size_t len)
{
	return fwb_take(ctx, kernel_ms, msg, len);
}
static void btw_close(void *ctx)
{
	fwb_free(ctx);
}
static struct btw_device gpu_btw = {.open = btw_open, .room = btw_room, .put = btw_put,
                                    .take = btw_take, .close = btw_close,
                                    .batch_bytes = fwb_batch_bytes};

/* The devices ids[0 .. count - 1] (count <= 64), each with share of its
 * free memory less keep bytes (the engine's), for the sources' sums. */
static void btw_on(const int *ids, int count, double keep, double share)
{
	gpu_btw.devices = count;
	gpu_btw.memory = 0;
	for (int d = 0; d < count; d++) {
		gpu_btw_ids[d] = ids[d];
		const double room = share * (fwb_free_memory(ids[d]) - keep - 1e9);
		gpu_btw.memory = d == 0 || room < gpu_btw.memory ? room : gpu_btw.memory;
	}
}

void gpubtw_dense(const struct fwg_opts *o, uint64_t n, uint32_t type)
{
	int ids[64];
	const int count = o->ranks > 1 ? 1 : o->gpus > 1 ? (o->gpus < 64 ? o->gpus : 64) : 1;
	for (int d = 0; d < count; d++)
		ids[d] = o->device + d;
	btw_on(ids, count, (double)fwg_memory_needed(n, (int)type, o->block, 0, count), 0.8);
	gpu_btw.ready = NULL;
	btw_use_device(&gpu_btw);
}

/* The sparse engine's devices, once found (half their memory left to its
 * batches, which it sizes by what is free). */
static struct gpusparse_dev *sparse;
static void sparse_ready(struct btw_device *d)
{
	gpusparse_end(sparse);
	if (sparse->rc < 0)
		d->devices = 0;
	else
		btw_on(sparse->devices, sparse->ndevices, 0, 0.5);
}

void gpubtw_sparse(struct gpusparse_dev *d)
{
	sparse = d;
	gpu_btw.ready = sparse_ready;
	btw_use_device(&gpu_btw);
}
