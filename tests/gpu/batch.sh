# Many small graphs on the GPU (kernels/batch/, fwsg_solve): the CPU's
# fw_batch bytes for every type and both semirings, every size class in
# one batch, negative cycles named by graph, bad graphs refused with
# nothing changed, and apsp's batch calls with device='gpu' equal to
# scipy's floyd_warshall (tests/python/test_batch_gpu.py).
. "$TOP/tests/lib.sh"
if ! has_gpu; then
	skip batch-gpu "no GPU"
	exit 0
fi
if ! find_python numpy scipy; then
	skip batch-gpu "no python3 with numpy and scipy"
	exit 0
fi
sanitizer_preload
"$py" "$TOP/tests/python/test_batch_gpu.py" "$TOP"
