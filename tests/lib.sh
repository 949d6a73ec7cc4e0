# Helpers for command tests.  Source it: . "$TOP/tests/lib.sh"
# Every check prints one line, "PASS name" or "FAIL name: why".
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1${2:+: $2}"; }
skip() { echo "SKIP $1${2:+: $2}"; }
# expect_status NAME STATUS 'shell command'
expect_status() {
	( eval "$3" ) >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" -eq "$2" ]; then pass "$1"; else fail "$1" "exit $rc, wanted $2; stderr: $(head -c 300 "$T/err")"; fi
}
# expect_output NAME 'expected stdout' 'shell command'   (exit status must be 0)
expect_output() {
	got=$( ( eval "$3" ) 2>"$T/err"); rc=$?
	if [ "$rc" -eq 0 ] && [ "$got" = "$2" ]; then pass "$1"
	else fail "$1" "exit $rc; got '$(printf '%s' "$got" | head -c 300)', wanted '$2'; stderr: $(head -c 300 "$T/err")"; fi
}
# expect_stderr NAME STATUS 'regex' 'shell command': status and a message matching regex
expect_stderr() {
	( eval "$4" ) >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" -eq "$2" ] && grep -Eq "$3" "$T/err"; then pass "$1"
	else fail "$1" "exit $rc (wanted $2), stderr '$(head -c 300 "$T/err")' !~ /$3/"; fi
}
# expect_true NAME 'shell command'  (passes when the command succeeds)
expect_true() {
	if ( eval "$2" ) >"$T/out" 2>"$T/err"; then pass "$1"; else fail "$1" "$(head -c 300 "$T/err")"; fi
}
# gpu_check NAME GRAPH TOL [apsp-gpu options]: apsp-gpu gives apsp-cpu's
# distances (apsp-cpu run with $CPU_OPTS) within TOL, and predecessor chains
# that are shortest paths of GRAPH (unless --no-paths).
gpu_check() {
	_name=$1 _graph=$2 _tol=$3
	shift 3
	_paths=--no-paths
	case " $* " in *" --no-paths "*) ;; *) _paths= ;; esac
	if ! "$BIN/apsp-cpu" ${CPU_OPTS:-} $_paths "$_graph" >"$T/want" 2>"$T/err"; then
		fail "$_name" "apsp-cpu failed: $(head -c 300 "$T/err")"; return
	fi
	if ! "$BIN/apsp-gpu" "$@" "$_graph" >"$T/got" 2>"$T/err"; then
		fail "$_name" "apsp-gpu failed: $(head -c 300 "$T/err")"; return
	fi
	if ! "$BIN/apsp-diff" -q -t "$_tol" "$T/want" "$T/got" 2>"$T/err"; then
		fail "$_name" "distances differ from apsp-cpu: $("$BIN/apsp-diff" -n 3 -t "$_tol" "$T/want" "$T/got" 2>&1 | head -c 300)"; return
	fi
	if [ -z "$_paths" ] && ! "$BIN/apsp-diff" -q --graph "$_graph" "$T/got" 2>"$T/err"; then
		fail "$_name" "predecessors invalid: $("$BIN/apsp-diff" -n 3 --graph "$_graph" "$T/got" 2>&1 | head -c 300)"; return
	fi
	pass "$_name"
}
# same_results NAME WANT GOT GRAPH WHAT ARGS...: GOT (WHAT says how it was
# made) holds the distance matrix of WANT byte for byte (bin2mtx --npy), and
# its predecessor matrix too unless PREDS=valid; its chains are shortest
# paths of GRAPH unless ARGS has --no-paths.  Else says FAIL and returns 1.
same_results() {
	_sn=$1 _want=$2 _got=$3 _sg=$4 _what=$5
	shift 5
	for _m in dist pred; do
		[ "$_m" = pred ] && [ "${PREDS:-same}" = valid ] && continue
		"$BIN/bin2mtx" --npy --$_m "$_want" >"$_want.$_m" 2>/dev/null
		"$BIN/bin2mtx" --npy --$_m "$_got" >"$_got.$_m" 2>/dev/null
		if ! cmp -s "$_want.$_m" "$_got.$_m"; then
			fail "$_sn" "$_what: the $_m matrix differs"; return 1
		fi
	done
	case " $* " in
	*" --no-paths "*) ;;
	*) if ! "$BIN/apsp-diff" -q --graph "$_sg" "$_got" 2>/dev/null; then
		fail "$_sn" "$_what: predecessors invalid"; return 1
	fi ;;
	esac
}
# sanitized NAME TOOL [VAR=VALUE...] COMMAND [ARGS...]: COMMAND, with those
# variables set (and APSP_DETACH=0, so that the sanitizer follows the whole
# run), runs clean under compute-sanitizer --tool TOOL (TOOL may carry more
# of the sanitizer's options); else FAIL with the start of its report.
sanitized() {
	_name=$1 _tool=$2
	shift 2
	_vars=
	while [ $# -gt 0 ]; do
		case $1 in *=*) _vars="$_vars $1"; shift ;; *) break ;; esac
	done
	if env APSP_DETACH=0 $_vars compute-sanitizer --tool $_tool --error-exitcode 9 \
		--log-file "$T/san" "$@" >/dev/null 2>&1; then
		pass "$_name"
	else
		fail "$_name" "$(grep -v '^=* *$' "$T/san" | head -8 | tr '\n' ' ' | head -c 400)"
	fi
}
# same_stats NAME A B [TOL]: two tables, fields that print as integers on
# both sides equal, the rest within TOL relative (default 1e-12; a float
# figure may print as an integer on one side alone).
same_stats() {
	if awk -F'\t' -v tol="${4:-1e-12}" 'NR == FNR { a[FNR] = $0; next }
		{ split(a[FNR], x, "\t"); if (NF != 9) exit 1
		  for (i = 1; i <= NF; i++) {
			if (x[i] == $i) continue
			if (FNR == 1 || (x[i] !~ /[.e]/ && $i !~ /[.e]/)) exit 1
			d = x[i] - $i; if (d < 0) d = -d; m = x[i] < 0 ? -x[i] : x[i]
			if (d > tol * m) exit 1 } }
		END { if (FNR != length(a)) exit 1 }' "$2" "$3"; then
		pass "$1"
	else
		fail "$1" "$(diff "$2" "$3" | head -n 4 | tr '\n' ' ')"
	fi
}

has_gpu() { [ -x "$BIN/apsp-gpu" ] && command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; }
# mtx2bin built with libarchive (it reads .tar.gz, .zip)?
# GPU test files: end the file with one SKIP line (as NAME) where apsp-gpu
# was not built, or where this machine has no GPU.
need_gpu_build() { [ -x "$BIN/apsp-gpu" ] || { skip "$1" "not built (no nvcc)"; exit 0; }; }
need_gpu() { has_gpu || { skip "$1" "no GPU on this machine"; exit 0; }; }
gpu_count() { nvidia-smi -L | grep -c '^GPU'; }

# has_mpi: mpirun on PATH and apsp-gpu built with MPI (then the settings for
# mpirun as root in a container exported).  mpi CMD...: CMD under mpirun -np
# 2, both processes on device 0 where the machine has one GPU; a job that
# hangs fails its test (exit 124) instead of holding up the rest.
has_mpi() {
	command -v mpirun >/dev/null 2>&1 && ldd "$BIN/apsp-gpu" | grep -q libmpi || return 1
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	export OMPI_MCA_btl_vader_single_copy_mechanism=none
}
mpi() {
	if [ "$(gpu_count)" -ge 2 ]; then timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$@"
	else APSP_SPARSE_DEVICES=0 timeout 120 mpirun -np 2 --oversubscribe --bind-to none "$@"; fi
}

# find_python MODULE...: the first python3 on PATH, or Debian's, that imports
# every MODULE, into $py; empty where none does.
find_python() {
	py=
	for _p in python3 /usr/bin/python3; do
		if command -v "$_p" >/dev/null 2>&1 && "$_p" -c "import $(echo "$@" | tr ' ' ',')" 2>/dev/null; then
			py=$_p
			return 0
		fi
	done
	return 1
}

# sanitizer_preload: where the library was built with the sanitizers, their
# runtimes preloaded (and leak checks off), as a program linked with them
# would have them: for a python3 that loads the library through ctypes.
sanitizer_preload() {
	_so=$(ls "$TOP"/build/libapsp.so.* 2>/dev/null | head -1)
	if [ -n "$_so" ] && ldd "$_so" | grep -q libasan; then
		LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so) $(${CC:-cc} -print-file-name=libubsan.so)"
		export LD_PRELOAD ASAN_OPTIONS=detect_leaks=0
	fi
}

has_archives() { "$BIN/mtx2bin" --help | grep -qi "archives (libarchive): yes"; }

# window N FIRST WEIGHT0: the Matrix Market file of a graph that runs dense
# and whose distances pass the 16-bit limit from vertex FIRST on: vertices
# 0 .. FIRST - 1 have edges of WEIGHT0 to the next 40 of them (in a ring),
# the others edges of 4000 to the next 40.
window() {
	awk -v n="$1" -v first="$2" -v w0="$3" 'BEGIN {
		k = 0
		for (v = 0; v < first; v++) for (j = 1; j <= 40; j++) e[k++] = (v + 1) " " ((v + j) % first + 1) " " w0
		for (v = first; v < n; v++) for (j = 1; j <= 40 && v + j < n; j++) e[k++] = (v + 1) " " (v + j + 1) " 4000"
		print "%%MatrixMarket matrix coordinate integer general"; print n, n, k
		for (i = 0; i < k; i++) print e[i] }'
}
# tool_docs TOOL: --help gives its usage, --version its version, its manual
# page is clean for groff and names every option --help lists.
tool_docs() {
	_tool=$1
	expect_true "help" '$BIN/$_tool --help | grep -q "^Usage: $_tool"'
	expect_output "version" "$_tool (apsp) 0.1.0" '$BIN/$_tool --version'
	if command -v groff >/dev/null 2>&1; then
		expect_output "man page clean" '' 'groff -ww -man -Tutf8 $TOP/man/$_tool.1 2>&1 >/dev/null'
	fi
	expect_true "man page names every option" 'for o in $($BIN/$_tool --help | grep -o -- "--[a-z][a-z0-9-]*" | sort -u); do
		grep -q -- "$(printf "%s" "$o" | sed "s/-/\\\\\\\\-/g")" $TOP/man/$_tool.1 || { echo "$o not in man page" >&2; exit 1; }; done'
}

# mtx_general: a Matrix Market file as bin2mtx writes weights (an undirected
# graph's lower triangle, "symmetric"; no diagonal 0) turned into the one
# general file of the same graph: each entry both ways, each vertex's 0 on
# the diagonal where no negative loop stands, in row-major order, the size
# line counting them.  For tests that check a graph's entries one by one.
mtx_general() {
	awk -v T="$T" '
	NR == 1 && / symmetric/ { sym = 1; sub(/ symmetric/, " general") }
	/^%/ { print; next }
	!n { n = $1; next }
	{ print $0 >T "/mtxg.e"; if ($1 == $2) loop[$1] = 1
	  else if (sym) print $2, $1, $3 >T "/mtxg.e"; k += 1 + (sym && $1 != $2) }
	END { for (i = 1; i <= n; i++) if (!(i in loop)) { print i, i, 0 >T "/mtxg.e"; k++ }
	      close(T "/mtxg.e"); print n, n, k }' >"$T/mtxg.h"
	touch "$T/mtxg.e"
	cat "$T/mtxg.h"
	sort -s -k1,1n -k2,2n "$T/mtxg.e"
	rm -f "$T/mtxg.e" "$T/mtxg.h"
}
