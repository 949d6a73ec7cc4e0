"""A pytest plugin: scipy's own tests of shortest_path run with
apsp.shortest_path and apsp.NegativeCycleError in scipy's place
(tests/cmd/python-apsp.sh loads it with -p).  APSP_DEVICE picks the engine
the tests run on (default cpu).

With apsp's class in the place of scipy's, scipy's own single-source
functions (bellman_ford, johnson, and yen where scipy has it, which some
versions' test_negative_cycles also calls) have their negative-cycle
errors raised again as apsp's, so that the tests hold them to the class
the tests now name; nothing else of theirs changes."""
import functools
import os

import scipy.sparse.csgraph as csgraph

import apsp

_device = os.environ.get("APSP_DEVICE", "cpu")
_scipy_error = csgraph.NegativeCycleError


@functools.wraps(apsp.shortest_path)
def _shortest_path(*args, **kwargs):
    kwargs.setdefault("device", _device)
    return apsp.shortest_path(*args, **kwargs)


def _as_apsp_error(fn):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except _scipy_error as e:
            if isinstance(e, apsp.NegativeCycleError):
                raise
            raise apsp.NegativeCycleError(str(e)) from e
    return call


csgraph.shortest_path = _shortest_path
csgraph.NegativeCycleError = apsp.NegativeCycleError
for _name in ("bellman_ford", "johnson", "yen"):
    if hasattr(csgraph, _name):
        setattr(csgraph, _name, _as_apsp_error(getattr(csgraph, _name)))
