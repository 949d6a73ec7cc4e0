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


class Error(ctypes.Structure):
    """st_error: the message a failing call leaves."""
    _fields_ = [("msg", ctypes.c_char * 256)]

    def text(self):
        return self.msg.decode("utf-8", "replace")


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
            return ctypes.CDLL(path)
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
    lib = _load("libapsp", "libapsp.so.0")
    lib.fw_solve.argtypes = [ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p,
                             ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                             ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(Error)]
    lib.fw_solve.restype = ctypes.c_int
    lib.gs_init.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint32,
                            ctypes.POINTER(Error)]
    lib.gs_init.restype = ctypes.c_int
    lib.gs_free.argtypes = [ctypes.c_void_p]
    lib.gs_free.restype = None
    lib.gs_add_rows.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                                ctypes.c_void_p, ctypes.c_uint64, ctypes.c_int]
    lib.gs_add_rows.restype = None
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
        lib = _load("libapsp-gpu", "libapsp-gpu.so.0")
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
    msg = ctypes.create_string_buffer(256)
    count = lib.fwm_device_count(msg, 256)
    if count <= 0:
        _gpu_error = msg.value.decode() if count < 0 else "no CUDA device"
        return None
    _gpu = lib
    return lib


def gpu_error():
    return _gpu_error
