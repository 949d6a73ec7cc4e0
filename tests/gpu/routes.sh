# The differential test of tests/cmd/routes.sh through apsp-gpu's routes and
# Python's calls on the GPU: 512 hostile graphs (ROUTES_GRAPHS), eight seeds
# on eight processes (each apsp-gpu run starts a device context, which
# costs more than the graph), each result certified shortest against its
# graph and compared with the others.
. "$TOP/tests/lib.sh"
if ! has_gpu; then
	skip routes-gpu "no GPU"
	exit 0
fi
if ! find_python numpy; then
	skip routes-gpu "no python3 with numpy"
	exit 0
fi
graphs=${ROUTES_GRAPHS:-512}
seed=${ROUTES_SEED:-11}
for k in 0 1 2 3 4 5 6 7; do
	ROUTES_CLI_EVERY=${ROUTES_CLI_EVERY:-4} "$py" "$TOP/tests/python/routes.py" "$TOP" gpu $((graphs / 8)) $((seed + k)) >"$T/r$k" 2>&1 &
done
wait
cat "$T"/r?
