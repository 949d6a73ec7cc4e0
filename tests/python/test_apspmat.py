"""Tests of python/apspmat.py against the tools: round trips both ways,
damaged and truncated streams refused, and apsp-cpu's distances against
scipy's floyd_warshall when scipy is there.  Prints PASS/FAIL/SKIP lines.
Usage: python3 test_apspmat.py TOP BIN TMPDIR"""

import io
import os
import struct
import subprocess
import sys
import time
import zlib

TOP, BIN, TMP = sys.argv[1:4]
sys.path.insert(0, os.path.join(TOP, "python"))
import numpy as np  # noqa: E402

import apspmat  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import Checks  # noqa: E402

_c = Checks()
check = _c.check


def raises(name, fn, pattern):
    _c.raises(name, apspmat.StreamError, fn, pattern)


def tool(*args, stdin=None):
    r = subprocess.run([os.path.join(BIN, args[0])] + list(args[1:]), input=stdin,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (args[0], r.returncode, r.stderr.decode()[:300]))
    return r.stdout


def path(name):
    return os.path.join(TMP, name)


# A graph and its result, from the tools.
g = path("g.apm")
r = path("r.apm")
tool("gengraph", "-n", "150", "-d", "12", "-s", "3", "-o", g)
tool("apsp-cpu", "-o", r, g)
sg = apspmat.load(g)
check("load a graph: n, type, weights only",
      sg.n == 150 and sg.type == "int32" and sg.weights is not None and sg.dist is None
      and sg.weights.shape == (150, 150) and sg.weights.dtype == np.int32)
check("graph provenance names gengraph", any("ID:gengraph" in l for l in sg.provenance),
      repr(sg.provenance))
check("graph: zero diagonal, INF or 1..100 elsewhere",
      (np.diag(sg.weights) == 0).all()
      and np.isin(sg.weights[~np.eye(150, dtype=bool)],
                  np.r_[np.arange(1, 101), apspmat.INF_I32]).all())
dense = tool("bin2mtx", "--dense", g).decode().split()
vals = np.array([apspmat.INF_I32 if v == "inf" else int(v) for v in dense]).reshape(150, 150)
check("weights equal bin2mtx --dense", (vals == sg.weights).all())

sr = apspmat.load(r)
check("load a result: distances and predecessors",
      sr.dist is not None and sr.pred is not None and sr.weights is None
      and sr.pred.dtype == np.int32 and sr.dist.shape == (150, 150))
line = tool("apsp-path", "--tsv", "-i", r, "3", "17").decode().strip().split("\t")
check("a distance equals apsp-path's", str(sr.dist[3, 17]) in line, repr(line))
# Walk the predecessors from 17 back to 3.
v, steps = 17, 0
while v != 3 and v >= 0 and steps <= 150:
    v, steps = sr.pred[3, v], steps + 1
check("predecessor chain 3 -> 17 reaches 3", v == 3)

# Python writes, the tools read.
g2, r2 = path("g2.apm"), path("r2.apm")
apspmat.save(g2, sg)
tool("apsp-cpu", "-o", r2, g2)
ok = subprocess.run([os.path.join(BIN, "apsp-diff"), "-q", r, r2]).returncode == 0
check("a graph saved from Python solves to the same result", ok)
apspmat.save(path("r3.apm"), sr)
ok = subprocess.run([os.path.join(BIN, "apsp-diff"), "-q", "--graph", g,
                     path("r3.apm")]).returncode == 0
check("a result saved from Python passes apsp-diff --graph", ok)
apspmat.save(path("s0.apm"), sr, level=0)
check("level 0 (stored blocks) reads back",
      (apspmat.load(path("s0.apm")).dist == sr.dist).all())
check("saved provenance gains a line", len(apspmat.load(path("r3.apm")).provenance)
      == len(sr.provenance) + 1)

# float32, negative weights, padding, small blocks, file objects.
fg = path("f.apm")
tool("gengraph", "-n", "70", "-d", "20", "-s", "5", "-t", "float32", "--negative", "-B", "32",
     "-o", fg)
sf = apspmat.load(fg)
check("float32 with padding: padding dropped",
      sf.type == "float32" and sf.npad == 96 and sf.weights.shape == (70, 70)
      and sf.negative and sf.weights.dtype == np.float32)
rf = tool("apsp-cpu", fg)
sfr = apspmat.load(io.BytesIO(rf))
ok = np.isinf(sfr.dist).any() or np.isfinite(sfr.dist).all()
check("float32 result through a file object", sfr.dist.dtype == np.float32 and ok)
small = apspmat.Stream(70, "float32", weights=sf.weights, flags=sf.flags, block=4096, npad=96)
buf = io.BytesIO()
apspmat.save(buf, small)
rf2 = tool("apsp-cpu", stdin=buf.getvalue())
check("4 KiB blocks from Python, solved by apsp-cpu, same distances",
      np.array_equal(apspmat.load(io.BytesIO(rf2)).dist, sfr.dist))

# What the C reader refuses, this one refuses too.
data = open(r, "rb").read()
hlen = int.from_bytes(data[12:16], "little")


def load_bytes(b):
    return lambda: apspmat.load(io.BytesIO(b))


raises("bad magic", load_bytes(b"x" + data[1:]), "bad magic")
raises("header CRC", load_bytes(data[:20] + bytes([data[20] ^ 1]) + data[21:]), "header CRC")
mid = hlen + 16 + 40
raises("a flipped byte in a block",
       load_bytes(data[:mid] + bytes([data[mid] ^ 0x55]) + data[mid + 1:]), "block 0 of the distances")
raises("truncated in a block", load_bytes(data[:hlen + 30]), "truncated in block 0")
raises("truncated before the end marker", load_bytes(data[:-16]), "end-of-stream")
raises("data after the end", load_bytes(data + b"\0"), "data after the end-of-stream marker")
raises("empty input", load_bytes(b""), "bad magic")


def header_only(n):
    """A valid header announcing an n x n distance matrix, and nothing after it."""
    fixed = apspmat.MAGIC + struct.pack("<IIQQIIIIiqI", 1, 68, n, n, 1, 2, 1, 1 << 20,
                                        apspmat.INF_I32, -1, 0)
    return fixed + struct.pack("<I", zlib.crc32(fixed))


# A hostile header: refused at the first missing block, before allocating
# the matrix it announces (2^31 - 1 once raised OverflowError, 100000 a
# MemoryError, 40000 took 16 s and 6 GB).
for big in (40000, 100000, 2 ** 31 - 1):
    t0 = time.time()
    raises("header alone, n = %d: truncated, nothing allocated" % big, load_bytes(header_only(big)),
           "truncated in block 0")
    check("header alone, n = %d: at once" % big, time.time() - t0 < 2, "%.1f s" % (time.time() - t0))
# A block that is fine but in another block's place: its tag breaks the CRC.
hdr = data[:hlen]
blocks = data[hlen:]
b0 = apspmat.load(io.BytesIO(data))
raw_total = b0.npad * b0.npad * 4
if raw_total > b0.block:
    check("place tags", False, "need a stream with two blocks per matrix")
else:
    # distances block 0 carried into the predecessors' place
    s0 = int.from_bytes(blocks[4:8], "little")
    dist_blk = blocks[:16 + s0]
    rest = blocks[16 + s0 + 16:]
    s1 = int.from_bytes(rest[4:8], "little")
    swapped = hdr + dist_blk + blocks[16 + s0:16 + s0 + 16] + dist_blk + rest[16 + s1:]
    raises("a block moved to another matrix's place", load_bytes(swapped), "CRC mismatch")
bad = apspmat.Stream(3, "int32", weights=np.zeros((2, 2), np.int32))
try:
    apspmat.save(io.BytesIO(), bad)
    check("save refuses a matrix of the wrong shape", False, "no exception")
except ValueError:
    check("save refuses a matrix of the wrong shape", True)

# A graph as a list of arcs: read as the matrix holds it, written back as
# the tools write it, records against the rules refused with their number.
for t in ("int32", "float32", "float64"):
    tool("gengraph", "--road", "19x23", "-t", t, "-s", "4", "-L", "arcs", "-o", path("ra.apm"))
    tool("gengraph", "--road", "19x23", "-t", t, "-s", "4", "-L", "matrix", "-o", path("rm.apm"))
    a, m = apspmat.load(path("ra.apm")), apspmat.load(path("rm.apm"))
    tl, hd, wt = a.arcs
    full = m.weights.copy()
    np.fill_diagonal(full, apspmat.INF_I32 if t == "int32" else np.inf)
    nz = np.nonzero(full != (apspmat.INF_I32 if t == "int32" else np.inf))
    check("arcs, %s: the list is the matrix's entries, in order" % t,
          a.weights is None and np.array_equal(tl, nz[0]) and np.array_equal(hd, nz[1])
          and np.array_equal(wt, m.weights[nz]) and wt.dtype == m.weights.dtype)
    shuffled = np.random.default_rng(1).permutation(len(tl))
    apspmat.save(path("rp.apm"), apspmat.Stream(a.n, t, arcs=(tl[shuffled], hd[shuffled],
                                                                 wt[shuffled])))
    strip = lambda b: b"\n".join(x for x in b.split(b"\n") if not x.startswith(b"% @PG"))
    check("arcs, %s: saved (sorted on the way) and exported as the tools' own" % t,
          strip(tool("bin2mtx", path("rp.apm"))) == strip(tool("bin2mtx", path("ra.apm"))))
bad = apspmat.Stream(3, "int32", arcs=([0, 1], [1, 1], [5, 2]))
try:
    apspmat.save(path("bad.apm"), bad)
    check("save refuses a loop that is not negative", False, "no exception")
except ValueError as e:
    check("save refuses a loop that is not negative", "arc 1 (1 -> 1)" in str(e), str(e))
raw = open(path("ra.apm"), "rb").read()
check("a list of arcs has a version 2 header", struct.unpack_from("<I", raw, 8)[0] == 2)
raises("a changed arc count is a header CRC mismatch",
       load_bytes(raw[:64] + bytes([raw[64] ^ 1]) + raw[65:]), "header CRC")

# Distances from apsp-cpu against scipy's.
try:
    from scipy.sparse.csgraph import floyd_warshall
except ImportError:
    print("SKIP scipy floyd_warshall: scipy not installed")
else:
    tool("gengraph", "-n", "300", "-d", "8", "-s", "11", "-o", path("g300.apm"))
    w = apspmat.load(path("g300.apm")).weights.astype(np.float64)
    w[w == apspmat.INF_I32] = np.inf
    ref = floyd_warshall(w, directed=True)
    d = apspmat.load(io.BytesIO(tool("apsp-cpu", "--no-paths", path("g300.apm")))).dist
    d = d.astype(np.float64)
    d[d == apspmat.INF_I32] = np.inf
    check("apsp-cpu's distances equal scipy's floyd_warshall", np.array_equal(d, ref))

sys.exit(1 if _c.failed else 0)
