"""Read and write the apsp toolkit's binary matrix stream from Python.

The stream (man/apspmat.5) is a header, then up to three square matrices
(edge weights, distances, predecessors), or in their place a graph as a list
of arcs, each cut into deflated blocks with their sizes and a CRC32, then an
end marker.  This module needs numpy and the
standard library's zlib only.

    >>> import apspmat
    >>> s = apspmat.load("result.apm")          # or a binary file object
    >>> s.n, s.type, s.provenance
    >>> s.dist[3, 17], s.pred[3, 17]            # n x n numpy arrays
    >>> g = apspmat.load("road.apm")            # a graph as a list of arcs
    >>> tail, head, weight = g.arcs             # numpy arrays, sorted

Every check the C reader makes is made here too (magic, header fields and
CRC, each block's size, method and CRC with its place tag, end markers,
nothing after the end); a stream that fails one raises StreamError, naming
the input and the reason.  ``save`` writes a stream the tools read.

Unreachable int32 entries hold INF_I32 (1073741823), float32 and float64 ones +inf;
predecessors are int32 vertex numbers, -1 where there is none.
"""

import struct
import sys
import zlib

import numpy as np

__all__ = ["Stream", "StreamError", "load", "save", "INF_I32", "MAGIC"]

MAGIC = b"\x89APM\r\n\x1a\n"
VERSION = 2  # the newest read; version 1 is written where there are no arcs or sources
INF_I32 = 1073741823
INT32, FLOAT32, FLOAT64 = 1, 2, 3
_TYPES = {INT32: "int32", FLOAT32: "float32", FLOAT64: "float64"}
_DTYPES = {"int32": "<i4", "float32": "<f4", "float64": "<f8"}
WEIGHTS, DIST, PRED, ARCS, ORDER, SOURCES, TARGETS = 1, 2, 4, 8, 16, 32, 64
DIRECTED, NEGATIVE, NEGCYCLE = 1, 2, 4
BLOCK_DEFAULT = 1 << 20
MAX_PROVENANCE = 1 << 20
MAX_BLOCK = 64 << 20
TAG_EOM = 0x4D444E45  # "ENDM"
TAG_EOS = 0x53444E45  # "ENDS"
METHOD_STORED, METHOD_DEFLATE, METHOD_SHUFFLE = 0, 1, 2
_NAMES = {WEIGHTS: "weights", DIST: "distances", PRED: "predecessors", ARCS: "list of arcs",
          ORDER: "vertex order", SOURCES: "list of sources", TARGETS: "list of targets"}
_M64 = (1 << 64) - 1


class StreamError(ValueError):
    """A stream that is not a valid apsp matrix stream."""


class Stream:
    """A stream's header and its matrices (n x n numpy arrays, or None).

    arcs: a graph as a list of arcs in place of the matrices, (tail, head,
    weight) numpy arrays (uint32, uint32, the type's), sorted by tail then
    head, each pair once, weights finite, loops only negative; or None.
    order: the vertex order kept beside a list of arcs (int32, the vertex at
    each position), or None.
    sources: a result of some rows (apsp-cpu --rows, --sources): the rows'
    sources (uint32, in the order written), dist and pred then of shape
    (len(sources), n), row i the source sources[i]'s; or None.
    targets: a table (apsp-cpu --targets): its columns' targets (uint32, in
    the order written), dist then of shape (len(sources), len(targets)),
    entry (i, j) the distance from sources[i] to targets[j], and pred (with
    --paths) the sources' whole rows, (len(sources), n); or None.
    n, npad: real and stored vertex counts; type: "int32", "float32" or "float64";
    flags: the header's flag bits (directed, negative, negcycle give them by
    name); block: raw bytes per block; cycle_vertex: a vertex on a negative
    cycle or -1; provenance: the @PG lines, oldest first.
    """

    def __init__(self, n, type="int32", weights=None, dist=None, pred=None, flags=DIRECTED,
                 provenance=(), cycle_vertex=-1, npad=None, block=BLOCK_DEFAULT, arcs=None,
                 sources=None):
        self.n = n
        self.npad = n if npad is None else npad
        self.type = type
        self.flags = flags
        self.block = block
        self.cycle_vertex = cycle_vertex
        self.provenance = list(provenance)
        self.weights, self.dist, self.pred = weights, dist, pred
        self.arcs = arcs
        self.order = None
        self.sources = sources
        self.targets = None

    directed = property(lambda self: bool(self.flags & DIRECTED))
    negative = property(lambda self: bool(self.flags & NEGATIVE))
    negcycle = property(lambda self: bool(self.flags & NEGCYCLE))

    def __repr__(self):
        have = [name for name in ("sources", "targets", "weights", "dist", "pred", "arcs")
                if getattr(self, name) is not None]
        return "Stream(n=%d, type=%s, matrices=%s, flags=%d)" % (self.n, self.type, have,
                                                                  self.flags)


def place_tag(matrix_bit, k):
    """The tag XORed into block k's CRC in the matrix with that bit."""
    x = ((matrix_bit << 48) ^ k) & _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return (x ^ (x >> 31)) & 0xFFFFFFFF


def _shuffle(raw):
    n4 = len(raw) // 4
    planes = np.frombuffer(raw, np.uint8, n4 * 4).reshape(n4, 4).T.tobytes()
    return planes + raw[n4 * 4:]


def _unshuffle(data):
    n4 = len(data) // 4
    elems = np.frombuffer(data, np.uint8, n4 * 4).reshape(4, n4).T.tobytes()
    return elems + data[n4 * 4:]


class _Input:
    def __init__(self, f, name):
        self.f, self.name = f, name

    def read(self, size):
        chunks, left = [], size
        while left:
            b = self.f.read(left)
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)

    def fail(self, reason):
        raise StreamError("%s: %s" % (self.name, reason))


def _read_header(inp):
    fixed = inp.read(64)
    if len(fixed) < 8 or fixed[:8] != MAGIC:
        inp.fail("not an apsp matrix stream (bad magic)")
    if len(fixed) < 64:
        inp.fail("truncated in the header")
    (version, hlen, n, npad, typ, mats, flags, block, inf, cycle,
     plen) = struct.unpack_from("<IIQQIIIIiqI", fixed, 8)
    if version not in (1, 2, 3):
        inp.fail("stream version %d, this reader knows 1 to 3" % version)
    # version 2: the arcs or rows counted at 64; 3: the rows, then the columns at 72
    fixed_len = {1: 64, 2: 72, 3: 80}[version]
    if plen > MAX_PROVENANCE or hlen != fixed_len + 4 + plen:
        inp.fail("bad header length %d (provenance %d bytes)" % (hlen, plen))
    rest = inp.read(hlen - 64)
    if len(rest) < hlen - 64:
        inp.fail("truncated in the header")
    narcs = struct.unpack_from("<Q", rest)[0] if version >= 2 else 0
    ncols = struct.unpack_from("<Q", rest, 8)[0] if version == 3 else 0
    counts, rest = rest[:fixed_len - 64], rest[fixed_len - 64:]
    (crc,) = struct.unpack_from("<I", rest, plen)
    if zlib.crc32(fixed + counts + rest[:plen]) != crc:
        inp.fail("header CRC mismatch")
    prov = rest[:plen]
    if b"\0" in prov:
        inp.fail("NUL byte in the provenance")
    if npad < n:
        inp.fail("npad %d below n %d" % (npad, n))
    if npad >= 1 << 31:
        inp.fail("npad %d is too large (predecessors are int32)" % npad)
    if n == 0 and npad > 0:
        inp.fail("n is 0 but npad is %d" % npad)
    if typ not in _TYPES:
        inp.fail("unknown element type %d" % typ)
    if mats & ~(WEIGHTS | DIST | PRED | ARCS | ORDER | SOURCES | TARGETS):
        inp.fail("unknown matrix bits 0x%x" % mats)
    nrows = narcs if mats & SOURCES else npad
    if mats & TARGETS and (mats & ~(SOURCES | TARGETS | DIST | PRED) or not mats & SOURCES):
        inp.fail("a table (a list of targets) with weights or arcs, or without sources "
                 "(bits 0x%x)" % mats)
    if ncols > n:
        inp.fail("%d columns: more than the %d vertices" % (ncols, n))
    if (version == 3) != bool(mats & TARGETS):
        inp.fail("version %d %s a list of targets" % (version, "without" if version == 3 else "with"))
    if mats & SOURCES:
        narcs = 0
        if mats & ~(SOURCES | TARGETS | DIST | PRED) or not mats & DIST:
            inp.fail("a list of sources without distances, or with weights or arcs "
                     "(bits 0x%x)" % mats)
        if nrows > n:
            inp.fail("%d rows: more than the %d vertices" % (nrows, n))
    if mats & ARCS and mats & ~(ARCS | ORDER):
        inp.fail("a list of arcs with matrices (bits 0x%x)" % mats)
    if mats & ORDER and not mats & ARCS:
        inp.fail("a vertex order without a list of arcs (bits 0x%x)" % mats)
    if (version >= 2) != bool(mats & (ARCS | SOURCES)):
        inp.fail("version %d %s a list of arcs or sources"
                 % (version, "without" if version >= 2 else "with"))
    if narcs > npad * npad:
        inp.fail("%d arcs: more than the pairs of %d vertices" % (narcs, npad))
    if flags & ~(DIRECTED | NEGATIVE | NEGCYCLE):
        inp.fail("unknown flag bits 0x%x" % flags)
    if block == 0 or block % 4 or block > MAX_BLOCK:
        inp.fail("bad block size %d" % block)
    if inf != INF_I32:
        inp.fail("INF field is %d, not %d" % (inf, INF_I32))
    if cycle != -1 and not 0 <= cycle < n:
        inp.fail("negative-cycle vertex %d out of range" % cycle)
    lines = prov.decode("utf-8", "replace").splitlines()
    s = Stream(n, _TYPES[typ], flags=flags, provenance=lines,
               cycle_vertex=cycle, npad=npad, block=block)
    s._narcs, s._nrows, s._ncols = narcs, nrows, ncols if mats & TARGETS else npad
    return s, mats


def _arc_dtype(type):
    return np.dtype([("tail", "<u4"), ("head", "<u4"), ("weight", _DTYPES[type])])


def _read_matrix(inp, s, bit):
    name = _NAMES[bit]
    dtype = "<i4" if bit == PRED else _DTYPES[s.type]
    ncols = s.npad if bit == PRED else s._ncols  # (a table's predecessors: whole rows)
    total = s._nrows * ncols * int(dtype[2])
    if bit == SOURCES:
        total = s._nrows * 4
    if bit == TARGETS:
        total = s._ncols * 4
    if bit == ARCS:
        total = s._narcs * _arc_dtype(s.type).itemsize
    if bit == ORDER:
        total = s.n * 4
    nblk = (total + s.block - 1) // s.block
    # Grown block by block: a header alone (a hostile n) allocates nothing
    # the data has not shown.
    out = bytearray()
    for k in range(nblk):
        hd = inp.read(16)
        if len(hd) < 16:
            inp.fail("truncated in block %d of the %s" % (k, name))
        raw, stored, crc, method = struct.unpack("<IIII", hd)
        if raw == 0 and stored == 0 and method == TAG_EOM:
            inp.fail("the %s ends after %d of its %d blocks" % (name, k, nblk))
        start = k * s.block
        expect = min(s.block, total - start)
        if (raw != expect or method > METHOD_SHUFFLE
                or (stored != raw if method == METHOD_STORED else not 0 < stored <= raw)):
            inp.fail("bad header of block %d of the %s (raw %d, stored %d, method %d)"
                     % (k, name, raw, stored, method))
        payload = inp.read(stored)
        if len(payload) < stored:
            inp.fail("truncated in block %d of the %s" % (k, name))
        if method == METHOD_STORED:
            data = payload
        else:
            d = zlib.decompressobj(-15)
            try:
                data = d.decompress(payload, raw)
                # exactly raw bytes, from exactly the stored bytes, and the
                # deflate stream ends there
                if (len(data) != raw or d.unconsumed_tail or not d.eof
                        or d.unused_data):
                    raise zlib.error("size")
            except zlib.error:
                inp.fail("corrupt compressed data in block %d of the %s" % (k, name))
            if method == METHOD_SHUFFLE:
                data = _unshuffle(data)
        if zlib.crc32(data) ^ place_tag(bit, k) != crc:
            inp.fail("CRC mismatch in block %d of the %s" % (k, name))
        out += data
    hd = inp.read(16)
    if len(hd) < 16:
        inp.fail("truncated at the end of the %s" % name)
    a, b, c, tag = struct.unpack("<IIII", hd)
    if a or b or tag != TAG_EOM or c != nblk & 0xFFFFFFFF:
        inp.fail("bad end-of-matrix marker after the %s (more blocks than %d?)" % (name, nblk))
    if bit == ARCS:
        return _checked_arcs(inp, s, np.frombuffer(out, _arc_dtype(s.type)))
    if bit == ORDER:
        order = np.frombuffer(out, "<i4").astype(np.int32)
        seen = np.zeros(s.n + 1, bool)
        ok = (order >= 0) & (order < s.n)
        seen[order[ok]] = True
        if not ok.all() or seen[:s.n].sum() != s.n:
            inp.fail("the vertex order is not a permutation of the %d vertices" % s.n)
        return order
    if bit in (SOURCES, TARGETS):
        src = np.frombuffer(out, "<u4").astype(np.uint32)
        seen = np.zeros(s.n + 1, np.int64)
        ok = src < s.n
        np.add.at(seen, np.where(ok, src, s.n), 1)
        if not ok.all() or (seen[:s.n] > 1).any():
            k = int(np.argmax(~ok)) if not ok.all() else \
                int(np.flatnonzero(seen[src] > 1)[1])
            inp.fail("list of %s, %s %d: vertex %d %s"
                     % ("sources" if bit == SOURCES else "targets",
                        "row" if bit == SOURCES else "column", k, src[k],
                        "out of range" if not ok.all() else "a second time"))
        return src
    m = np.frombuffer(out, dtype).reshape(s._nrows, ncols)
    if s.targets is not None and bit != PRED:
        return m.astype(dtype[1:], copy=True)
    return m[:, :s.n].astype(dtype[1:], copy=True) if s.sources is not None \
        else m[:s.n, :s.n].astype(dtype[1:], copy=True)


def _checked_arcs(inp, s, rec):
    """(tail, head, weight) of the records, after the C reader's checks."""
    t, h, w = (rec[f].copy() for f in ("tail", "head", "weight"))
    key = t.astype(np.uint64) << np.uint64(32) | h
    finite = np.isfinite(w) if s.type != "int32" else (w > -INF_I32) & (w < INF_I32)
    bad = [(t >= s.n) | (h >= s.n), np.r_[False, key[1:] <= key[:-1]], ~finite,
           (t == h) & ~(w < 0)]
    why = ["a vertex out of range", "out of order (or a pair repeated)",
           "a weight that is not finite", "a loop whose weight is not negative"]
    first = [(int(np.argmax(b)), r) for b, r in zip(bad, why) if b.any()]
    if first:
        k, reason = min(first)
        inp.fail("arc %d (%d -> %d): %s" % (k, t[k], h[k], reason))
    return t, h, w


def load(source):
    """Read a whole stream from a path or a binary file object.

    Returns a Stream whose weights, dist and pred are n x n numpy arrays
    (int32, float32 or float64; predecessors int32) or None for absent matrices,
    and arcs the (tail, head, weight) arrays of a graph stored as a list.
    Raises StreamError for anything the C reader would refuse, OSError for
    what the system refuses.
    """
    if isinstance(source, (str, bytes)) or hasattr(source, "__fspath__"):
        with open(source, "rb") as f:
            return _load(_Input(f, str(source)))
    return _load(_Input(source, getattr(source, "name", "stream")))


def _load(inp):
    s, mats = _read_header(inp)
    if any(line.startswith("@PG\tID:checkpoint\t") for line in s.provenance):
        inp.fail("a checkpoint, not a result: go on with --resume")
    nmat = 0
    for bit in (SOURCES, TARGETS, WEIGHTS, DIST, PRED, ARCS, ORDER):  # (the lists first)
        if mats & bit:
            setattr(s, {WEIGHTS: "weights", DIST: "dist", PRED: "pred", ARCS: "arcs",
                        ORDER: "order", SOURCES: "sources", TARGETS: "targets"}[bit],
                    _read_matrix(inp, s, bit))
            nmat += 1
    del s._narcs, s._nrows, s._ncols
    hd = inp.read(16)
    if len(hd) < 16:
        inp.fail("truncated before the end-of-stream marker")
    a, b, c, tag = struct.unpack("<IIII", hd)
    if a or b or tag != TAG_EOS or c != nmat:
        inp.fail("bad end-of-stream marker (more matrices than the header announces?)")
    if inp.read(1):
        inp.fail("data after the end-of-stream marker")
    return s


def _padded(m, n, npad, dtype, fill_off, fill_diag):
    a = np.asarray(m)
    if a.shape != (n, n):
        raise ValueError("matrix of shape %s, expected (%d, %d)" % (a.shape, n, n))
    out = np.full((npad, npad), fill_off, dtype=dtype)
    out[:n, :n] = a
    idx = np.arange(n, npad)
    out[idx, idx] = fill_diag
    return out


def _arc_records(s, n, arcs):
    """The records of (tail, head, weight), sorted, as a reader checks them."""
    t, h, w = (np.asarray(x) for x in arcs)
    rec = np.empty(len(t), _arc_dtype(s.type))
    rec["tail"], rec["head"], rec["weight"] = t, h, w
    rec = rec[np.lexsort((rec["head"], rec["tail"]))]

    class _Check:
        def fail(self, reason):
            raise ValueError("arcs: " + reason)
    s2 = Stream(n, s.type)
    _checked_arcs(_Check(), s2, rec)
    return rec


def save(target, s, level=1, tool="apspmat.py", command=None):
    """Write Stream s to a path or a binary file object.

    Matrices that are None are left out; s.sources, where set, is written
    first and dist and pred are then its rows (len(sources) x n); s.targets,
    where set beside it, next, and dist is then a table (len(sources) x
    len(targets)), pred (if any) the sources' whole rows; s.arcs,
    where set, is written as a list of arcs in place of the matrices (sorted here, and checked as a reader checks
    it: ValueError).  The provenance gets one more @PG
    line naming this module (and command, if given).  Blocks are deflated at
    zlib's level (0 stores them), distances and predecessors byte-shuffled.
    """
    typ = {v: k for k, v in _TYPES.items()}[s.type]
    n = int(s.n)
    npad = n if s.npad is None else int(s.npad)
    if npad < n:
        raise ValueError("npad below n")
    block = int(s.block or BLOCK_DEFAULT)
    if block <= 0 or block % 4 or block > MAX_BLOCK:
        raise ValueError("bad block size %d" % block)
    mats = [(bit, m) for bit, m in ((WEIGHTS, s.weights), (DIST, s.dist), (PRED, s.pred))
            if m is not None]
    arcs = getattr(s, "arcs", None)
    if arcs is not None:
        if mats:
            raise ValueError("a list of arcs stands alone: no matrices beside it")
        mats = [(ARCS, _arc_records(s, n, arcs))]
    rows_of = getattr(s, "sources", None)
    if rows_of is not None:
        rows_of = np.asarray(rows_of, dtype="<u4")
        if s.weights is not None or s.dist is None:
            raise ValueError("a list of sources goes with distances (and predecessors) alone")
        if (rows_of >= n).any() or len(np.unique(rows_of)) != len(rows_of):
            raise ValueError("sources: a vertex out of range or given twice")
        mats = [(SOURCES, rows_of)] + mats
    cols_of = getattr(s, "targets", None)
    if cols_of is not None:
        cols_of = np.asarray(cols_of, dtype="<u4")
        if rows_of is None:
            raise ValueError("a list of targets goes with a list of sources")
        if (cols_of >= n).any() or len(np.unique(cols_of)) != len(cols_of):
            raise ValueError("targets: a vertex out of range or given twice")
        mats = mats[:1] + [(TARGETS, cols_of)] + mats[1:]
    lines = list(s.provenance)
    lines.append("@PG\tID:%s\tVN:0.1.0\tCL:%s" % (tool, command if command else tool))
    prov = "".join(line.rstrip("\n") + "\n" for line in lines).encode()
    bits = sum(bit for bit, _ in mats)
    extra = struct.pack("<Q", len(mats[0][1])) if bits & (ARCS | SOURCES) else b""
    if cols_of is not None:
        extra += struct.pack("<Q", len(cols_of))
    version = 3 if cols_of is not None else 2 if extra else 1
    head = MAGIC + struct.pack("<IIQQIIIIiqI", version, 68 + len(extra) + len(prov), n,
                               npad, typ, bits, int(s.flags), block, INF_I32,
                               int(s.cycle_vertex), len(prov))
    head += extra + prov
    head += struct.pack("<I", zlib.crc32(head))

    def write(f):
        f.write(head)
        for bit, m in mats:
            if bit in (ARCS, SOURCES, TARGETS):
                a = m
            elif cols_of is not None and bit != PRED:  # a table: the targets' columns alone
                a = np.asarray(m)
                if a.shape != (len(rows_of), len(cols_of)):
                    raise ValueError("a table of shape %s, expected (%d, %d)"
                                     % (a.shape, len(rows_of), len(cols_of)))
                a = a.astype(_DTYPES[s.type])
            elif rows_of is not None:  # rows of the sources, padded to npad columns
                a = np.asarray(m)
                k = len(rows_of)
                if a.shape != (k, n):
                    raise ValueError("rows of shape %s, expected (%d, %d)" % (a.shape, k, n))
                fill = -1 if bit == PRED else INF_I32 if typ == INT32 else np.inf
                dt = "<i4" if bit == PRED else _DTYPES[s.type]
                a = np.concatenate([a.astype(dt), np.full((k, npad - n), fill, dt)], 1)
            elif bit == PRED:
                a = _padded(m, n, npad, "<i4", -1, -1)
            elif typ == INT32:
                a = _padded(m, n, npad, "<i4", INF_I32, 0)
            else:
                a = _padded(m, n, npad, _DTYPES[s.type], np.inf, 0)
            raw_all = a.tobytes()
            nblk = (len(raw_all) + block - 1) // block
            for k in range(nblk):
                raw = raw_all[k * block:(k + 1) * block]
                method, payload = METHOD_STORED, raw
                if level > 0:
                    shuffled = bit not in (WEIGHTS, ARCS, SOURCES, TARGETS)
                    src = _shuffle(raw) if shuffled else raw
                    c = zlib.compressobj(level, zlib.DEFLATED, -15)
                    z = c.compress(src) + c.flush()
                    if len(z) < len(raw):
                        method = METHOD_SHUFFLE if shuffled else METHOD_DEFLATE
                        payload = z
                crc = zlib.crc32(raw) ^ place_tag(bit, k)
                f.write(struct.pack("<IIII", len(raw), len(payload), crc, method))
                f.write(payload)
            f.write(struct.pack("<IIII", 0, 0, nblk & 0xFFFFFFFF, TAG_EOM))
        f.write(struct.pack("<IIII", 0, 0, len(mats), TAG_EOS))

    if isinstance(target, (str, bytes)) or hasattr(target, "__fspath__"):
        with open(target, "wb") as f:
            write(f)
    else:
        write(target)


def _main(argv):
    if len(argv) != 2 or argv[1] in ("-h", "--help"):
        print("usage: python3 apspmat.py STREAM   (prints what the stream holds)",
              file=sys.stderr)
        return 2
    try:
        s = load(sys.stdin.buffer if argv[1] == "-" else argv[1])
    except (StreamError, OSError) as e:
        print("apspmat.py: %s" % e, file=sys.stderr)
        return 2
    print(repr(s))
    for line in s.provenance:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv))
