"""Running the engines on a prepared float64 matrix, in place."""
import ctypes

import numpy as np

from . import _lib
from ._errors import NegativeCycleError

ST_FLOAT64 = _lib.ST_FLOAT64
NO_PREDECESSOR = -9999  # scipy's
# fwm_solve's flags (kernels/dense/fw_matrix.h)
NULL_VALUES, UNDIRECTED, UNWEIGHTED = 1, 2, 4
# A graph of at most this many vertices on the CPU goes through fw_batch
# alone, on one thread: its matrix in cache, none of the blocked engine's
# set-up, the textbook order's answers (scipy's) either way.  With
# predecessors, on 2 cores: n = 16 0.41 ms a call became 23 us, n = 128
# 1.68 ms 0.52 ms; without, n = 128 the same (bench/batch.md).
SMALL = 128


def _threads(threads):
    if threads is None:
        return 0
    threads = int(threads)
    if threads < 1:
        raise ValueError("threads must be at least 1, or None for every core")
    return threads


def has_gpu():
    """Whether a GPU and the toolkit's GPU library are there."""
    return _lib.gpu() is not None


def pick_device(device):
    if device not in ("auto", "cpu", "gpu"):
        raise ValueError("device must be 'auto', 'cpu' or 'gpu', not %r" % (device,))
    if device == "cpu":
        return "cpu"
    if _lib.gpu() is not None:
        return "gpu"
    if device == "gpu":
        raise RuntimeError("device='gpu': %s" % _lib.gpu_error())
    return "cpu"


def solve(dist, paths, device, threads, graph=None, flags=0):
    """dist: C-ordered float64 n x n weights (+inf no edge, 0 diagonal),
    turned into the distances.  On the GPU, graph (C-ordered float64) may
    hold the weights instead, read as flags say (NULL_VALUES, UNDIRECTED,
    UNWEIGHTED; the diagonal ignored), and dist is only written.  Returns
    the predecessors (int32, scipy's -9999 for none) or None."""
    n = dist.shape[0]
    threads = _threads(threads)
    pred = np.empty((n, n), dtype=np.int32) if paths else None
    cycle = ctypes.c_int64(-1)
    pred_ptr = pred.ctypes.data if paths else None
    if device == "gpu":
        lib = _lib.gpu()
        msg = ctypes.create_string_buffer(256)
        src = dist if graph is None else graph
        rc = lib.fwm_solve(ST_FLOAT64, n, src.ctypes.data, dist.ctypes.data, pred_ptr, flags, 0,
                           1, ctypes.byref(cycle), msg, 256)
        text = msg.value.decode("utf-8", "replace")
    elif n <= SMALL:
        lib = _lib.cpu()
        err = _lib.Error()
        rc = lib.fw_batch(_lib.FW_MINPLUS, ST_FLOAT64, 1, n, None, dist.ctypes.data, pred_ptr,
                          1, ctypes.byref(cycle), ctypes.byref(err))
        text = err.text()
    else:
        lib = _lib.cpu()
        err = _lib.Error()
        rc = lib.fw_solve(ST_FLOAT64, n, dist.ctypes.data, pred_ptr, 0, threads,
                          ctypes.byref(cycle), ctypes.byref(err))
        text = err.text()
    if rc == 1:
        raise NegativeCycleError("Negative cycle through vertex %d" % cycle.value, cycle.value)
    if rc != 0:
        if "out of memory" in text or "at most n =" in text:
            raise MemoryError(text)
        raise ValueError(text)
    if paths:
        np.copyto(pred, NO_PREDECESSOR, where=pred < 0)
    return pred
