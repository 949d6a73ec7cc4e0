# One differential test over every CPU route (tests/python/routes.py): 2000
# small hostile graphs, two seeds on two processes, each through the dense
# and sparse engines (kept, tracked and derived predecessors, --no-paths,
# --rows, --sources, -B 16) and Python's calls, every result certified
# shortest against its graph and compared with the others.  ROUTES_GRAPHS
# and ROUTES_SEED change the count and the first seed.
. "$TOP/tests/lib.sh"
if ! find_python numpy; then
	skip routes "no python3 with numpy (Debian: python3-numpy)"
	exit 0
fi
sanitizer_preload
graphs=${ROUTES_GRAPHS:-2000}
seed=${ROUTES_SEED:-1}
"$py" "$TOP/tests/python/routes.py" "$TOP" cpu $((graphs / 2)) "$seed" >"$T/one" 2>&1 &
"$py" "$TOP/tests/python/routes.py" "$TOP" cpu $((graphs - graphs / 2)) $((seed + 1)) >"$T/two" 2>&1
wait
cat "$T/one" "$T/two"
