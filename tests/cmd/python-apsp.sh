# python/apsp, scipy's interface on the toolkit's engines: its own tests
# (tests/python/test_apsp.py, test_batch.py of many graphs a call,
# test_semirings.py of widest paths and reachability), then scipy's tests of shortest_path
# (test_shortest_path.py as python3-scipy ships it) with apsp.shortest_path
# and apsp.NegativeCycleError in scipy's place (tests/python/scipy_in_place.py),
# on the CPU, and on the GPU where there is one.
. "$TOP/tests/lib.sh"
if ! find_python numpy scipy; then
	skip python-apsp "no python3 with numpy and scipy (Debian: python3-numpy python3-scipy)"
	exit 0
fi
sanitizer_preload
devices=cpu
if PYTHONPATH="$TOP/python" "$py" -c 'import apsp, sys; sys.exit(not apsp.has_gpu())' 2>/dev/null; then
	devices="cpu gpu"
fi
for dev in $devices; do
	"$py" "$TOP/tests/python/test_apsp.py" "$TOP" $dev
done
"$py" "$TOP/tests/python/test_batch.py" "$TOP"
"$py" "$TOP/tests/python/test_semirings.py" "$TOP"

tests=$("$py" -c 'import os, scipy.sparse.csgraph as c; print(os.path.join(os.path.dirname(c.__file__), "tests", "test_shortest_path.py"))')
if ! "$py" -c 'import pytest' 2>/dev/null; then
	skip python-apsp-scipy "no pytest (Debian: python3-pytest)"
elif [ ! -f "$tests" ]; then
	skip python-apsp-scipy "scipy's tests are not installed ($tests)"
else
	for dev in $devices; do
		# one PASS or FAIL line a test; run from $T so that nothing is
		# written into the checkout or scipy's directory
		( cd "$T" && APSP_DEVICE=$dev PYTHONPATH="$TOP/python:$TOP/tests/python" \
			"$py" -m pytest -v -p no:cacheprovider --noconftest -p scipy_in_place "$tests" ) \
			>"$T/pytest.out" 2>&1
		rc=$?
		sed -n "s/^.*::\([^ ]*\) PASSED.*/PASS python-apsp-scipy($dev): \1/p; s/^.*::\([^ ]*\) FAILED.*/FAIL python-apsp-scipy($dev): \1/p; s/^.*::\([^ ]*\) SKIPPED.*/SKIP python-apsp-scipy($dev): \1/p" "$T/pytest.out"
		n=$(grep -c "::.* PASSED" "$T/pytest.out")
		if [ "$rc" -eq 0 ] && [ "$n" -ge 30 ]; then
			pass "python-apsp-scipy($dev): pytest exit 0, $n of scipy's tests passed"
		else
			fail "python-apsp-scipy($dev): pytest exit $rc, $n passed" "$(tail -5 "$T/pytest.out")"
		fi
	done
fi
