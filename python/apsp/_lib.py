"""The toolkit's libraries, loaded through ctypes: libapsp (the CPU engine,
the statistics) at once, the GPU library only when a GPU is asked for.

Both are looked for in the checkout this package lies in (build/, after
make), then where make install put them, then by the system's loader."""
import ctypes
import glob
import os

# make install writes the library directory here
_INSTALLED_LIBDIR = "@LIBDIR@"

_TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


# What this package mirrors of the library's public headers (lib/types.h,
# lib/stats.h), checked against the library it loads (st_layout): a
# library of another layout is refused, not read as wrong numbers.
LAYOUT_VERSION = 2
ST_INT32, ST_FLOAT32, ST_FLOAT64 = 1, 2, 3
FW_MINPLUS, FW_WIDEST = 0, 1  # enum fw_semiring (fw.h)
FWSG_INT64, FWSG_UNDIRECTED, FWSG_UNWEIGHTED = 4, 2, 4  # kernels/batch/fw_smallgraphs.h
ST_DIRECTED, ST_NEGATIVE, ST_NEGCYCLE = 1, 2, 4
ST_INF_I32 = 0x3FFFFFFF
GS_OUT, GS_IN = 0, 1


class Error(ctypes.Structure):
    """st_error: the message a failing call leaves."""
    _fields_ = [("msg", ctypes.c_char * 256)]

    def text(self):
        return self.msg.decode("utf-8", "replace")


class GsStats(ctypes.Structure):
    """gs_stats: the statistics' accumulators."""
    _fields_ = [("n", ctypes.c_uint64), ("type", ctypes.c_uint32),
                ("reach", ctypes.c_void_p * 2), ("sum", ctypes.c_void_p * 2),
                ("ecc", ctypes.c_void_p * 2), ("harmonic", ctypes.c_void_p)]


class GsSummary(ctypes.Structure):
    """gs_summary: the graph-wide figures."""
    _fields_ = [("n", ctypes.c_uint64), ("pairs", ctypes.c_uint64),
                ("diameter", ctypes.c_double), ("radius", ctypes.c_double),
                ("wiener", ctypes.c_double), ("average", ctypes.c_double),
                ("diameter_i", ctypes.c_int64), ("radius_i", ctypes.c_int64),
                ("wiener_i", ctypes.c_int64), ("wiener_exact", ctypes.c_int)]


class GsBetweenness(ctypes.Structure):
    """gs_betweenness: the values made."""
    _fields_ = [("n", ctypes.c_uint64), ("arcs", ctypes.c_uint64),
                ("vertex", ctypes.c_void_p), ("from_", ctypes.c_void_p),
                ("to", ctypes.c_void_p), ("arc", ctypes.c_void_p)]


class GsBcOpts(ctypes.Structure):
    """gs_bc_opts: what the betweenness is asked for."""
    _fields_ = [("edges", ctypes.c_int), ("threads", ctypes.c_int),
                ("progress", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class CeFault(ctypes.Structure):
    """ce_fault: the first condition a row of distances broke."""
    _fields_ = [("kind", ctypes.c_int), ("row", ctypes.c_uint64), ("source", ctypes.c_uint64),
                ("vertex", ctypes.c_uint64), ("tail", ctypes.c_int64),
                ("weight", ctypes.c_double), ("dist", ctypes.c_double),
                ("via", ctypes.c_double), ("what", ctypes.c_char * 200)]


def _mirrored():
    """(name, this package's value) for every name st_layout answers."""
    g = globals()
    out = [("version", LAYOUT_VERSION),
           ("sizeof st_error", ctypes.sizeof(Error)),
           ("sizeof gs_stats", ctypes.sizeof(GsStats)),
           ("offsetof gs_stats.harmonic", GsStats.harmonic.offset),
           ("sizeof gs_summary", ctypes.sizeof(GsSummary)),
           ("offsetof gs_summary.wiener_exact", GsSummary.wiener_exact.offset),
           ("sizeof gs_betweenness", ctypes.sizeof(GsBetweenness)),
           ("offsetof gs_betweenness.arc", GsBetweenness.arc.offset),
           ("sizeof gs_bc_opts", ctypes.sizeof(GsBcOpts)),
           ("sizeof ce_fault", ctypes.sizeof(CeFault)),
           ("offsetof ce_fault.what", CeFault.what.offset)]
    return out + [(k, g[k]) for k in ("ST_INT32", "ST_FLOAT32", "ST_FLOAT64", "ST_DIRECTED",
                                      "ST_NEGATIVE", "ST_NEGCYCLE", "ST_INF_I32", "GS_OUT",
                                      "GS_IN")]


class LayoutError(ImportError):
    """The library found is of another layout than this package."""


def check_layout(lib, path):
    """ImportError unless lib (loaded from path) has this package's layout."""
    try:
        ask = lib.st_layout
    except AttributeError:
        raise LayoutError("apsp: %s is older than this package (it does not tell its "
                          "layout): rebuild it (make) or install both together" % path)
    ask.argtypes = [ctypes.c_char_p]
    ask.restype = ctypes.c_int64
    for name, mine in _mirrored():
        theirs = ask(name.encode())
        if theirs != mine:
            raise LayoutError("apsp: %s has another layout than this package (%s is %d "
                              "there, %d here): rebuild it (make) or install both together"
                              % (path, name, theirs, mine))


def _candidates(stem, soname):
    found = sorted(glob.glob(os.path.join(_TOP, "build", stem + ".so.*")))
    found += glob.glob(os.path.join(_TOP, "build", stem + ".so"))
    if not _INSTALLED_LIBDIR.startswith("@"):
        found.append(os.path.join(_INSTALLED_LIBDIR, soname))
    found.append(soname)
    return found


def _load(stem, soname):
    errors = []
    for path in _candidates(stem, soname):
        if os.sep in path and not os.path.exists(path):
            continue
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise ImportError("apsp: cannot load %s (run make at the top of the checkout, "
                      "or make install): %s" % (soname, "; ".join(errors) or "not found"))


_cpu = None


def cpu():
    """libapsp, its functions' signatures declared."""
    global _cpu
    if _cpu is not None:
        return _cpu
    lib, path = _load("libapsp", "libapsp.so.0")
    check_layout(lib, path)
    lib.fw_solve.argtypes = [ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Error)]
    lib.fw_solve.restype = ctypes.c_int
    lib.fw_batch.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64,
                             ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                             ctypes.c_void_p, ctypes.POINTER(Error)]
    lib.fw_batch.restype = ctypes.c_int64
    lib.fw_batch_reach.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p,
                                   ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(Error)]
    lib.fw_batch_reach.restype = ctypes.c_int
    lib.gs_init.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32,
                            ctypes.POINTER(Error)]
    lib.gs_init.restype = ctypes.c_int
    lib.gs_free.argtypes = [ctypes.c_void_p]
    lib.gs_free.restype = None
    lib.gs_add_rows.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                                ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int]
    lib.gs_add_rows.restype = None
    p = ctypes.c_void_p
    lib.ce_graph_new.argtypes = [ctypes.c_uint64, ctypes.c_uint32, ctypes.c_uint64, p, p, p,
                                 ctypes.POINTER(Error)]
    lib.ce_graph_new.restype = p
    lib.ce_graph_free.argtypes = [p]
    lib.ce_graph_free.restype = None
    lib.ce_check_rows.argtypes = [p, ctypes.c_uint32, p, ctypes.c_uint64, ctypes.c_uint64, p, p,
                                  ctypes.c_uint64, ctypes.c_double, ctypes.c_int,
                                  ctypes.POINTER(CeFault), ctypes.POINTER(Error)]
    lib.ce_check_rows.restype = ctypes.c_int64
    _cpu = lib
    return lib


_gpu = None
_gpu_error = None


def gpu():
    """The GPU library, or None (gpu_error() then says why)."""
    global _gpu, _gpu_error
    if _gpu is not None or _gpu_error is not None:
        return _gpu
    try:
        lib = _load("libapsp-gpu", "libapsp-gpu.so.0")[0]
    except ImportError as e:
        _gpu_error = "no GPU library (%s)" % e
        return None
    lib.fwm_device_count.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
    lib.fwm_device_count.restype = ctypes.c_int
    lib.fwm_solve.argtypes = [ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p,
                              ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_char_p,
                              ctypes.c_size_t]
    lib.fwm_solve.restype = ctypes.c_int
    d = ctypes.POINTER(ctypes.c_double)
    lib.fwm_times.argtypes = [d, d, d]
    lib.fwm_times.restype = None
    lib.fwsg_solve.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_uint64,
                               ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int,
                               ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.fwsg_solve.restype = ctypes.c_int64
    lib.fwsg_solve_dense.argtypes = [ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint64,
                                     ctypes.c_uint64, ctypes.c_void_p, ctypes.c_uint32,
                                     ctypes.c_double, ctypes.c_int32, ctypes.c_void_p,
                                     ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                     ctypes.c_char_p, ctypes.c_size_t]
    lib.fwsg_solve_dense.restype = ctypes.c_int64
    lib.fwsg_solve_arcs.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                    ctypes.c_double, ctypes.c_int32, ctypes.c_void_p,
                                    ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                    ctypes.c_char_p, ctypes.c_size_t]
    lib.fwsg_solve_arcs.restype = ctypes.c_int64
    lib.fwsg_times.argtypes = [d, d]
    lib.fwsg_times.restype = None
    msg = ctypes.create_string_buffer(256)
    count = lib.fwm_device_count(msg, 256)
    if count <= 0:
        _gpu_error = msg.value.decode() if count < 0 else "no CUDA device"
        return None
    _gpu = lib
    return lib


def gpu_error():
    return _gpu_error
