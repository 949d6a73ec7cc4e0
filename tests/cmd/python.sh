# python/apspmat.py, the stream reader and writer for Python: its own tests
# (tests/python/test_apspmat.py) where a python3 with numpy is found.
. "$TOP/tests/lib.sh"
if ! find_python numpy; then
	skip python "no python3 with numpy (Debian: python3-numpy)"
	exit 0
fi
"$py" "$TOP/tests/python/test_apspmat.py" "$TOP" "$BIN" "$T"
# The module's own command line: what a stream holds.
$BIN/gengraph -n 40 -d 10 -o $T/g40
expect_true python-cli '"$py" "$TOP/python/apspmat.py" $T/g40 | grep -q "Stream(n=40, type=int32"'
expect_stderr python-cli-bad 2 'apspmat.py: .*bad magic' 'echo junk | "$py" "$TOP/python/apspmat.py" -'
