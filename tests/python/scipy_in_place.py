"""A pytest plugin: scipy's own tests of shortest_path run with
apsp.shortest_path and apsp.NegativeCycleError in scipy's place
(tests/cmd/python-apsp.sh loads it with -p).  APSP_DEVICE picks the engine
the tests run on (default cpu)."""
import functools
import os

import scipy.sparse.csgraph as csgraph

import apsp

_device = os.environ.get("APSP_DEVICE", "cpu")


@functools.wraps(apsp.shortest_path)
def _shortest_path(*args, **kwargs):
    kwargs.setdefault("device", _device)
    return apsp.shortest_path(*args, **kwargs)


csgraph.shortest_path = _shortest_path
csgraph.NegativeCycleError = apsp.NegativeCycleError
