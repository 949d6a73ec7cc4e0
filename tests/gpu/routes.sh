# The differential test of tests/cmd/routes.sh through apsp-gpu's routes and
# Python's calls on the GPU: 500 hostile graphs, each result certified
# shortest against its graph and compared with the others.
. "$TOP/tests/lib.sh"
if ! has_gpu; then
	skip routes-gpu "no GPU"
	exit 0
fi
if ! find_python numpy scipy; then
	skip routes-gpu "no python3 with numpy and scipy"
	exit 0
fi
"$py" "$TOP/tests/python/routes.py" "$TOP" gpu "${ROUTES_GRAPHS:-500}" "${ROUTES_SEED:-11}"
