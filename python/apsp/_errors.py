"""The package's exceptions."""
try:
    from scipy.sparse.csgraph import NegativeCycleError as _Base
except ImportError:  # numpy alone
    _Base = Exception


class NegativeCycleError(_Base):
    """The graph has a cycle of negative length: no shortest paths.  A
    subclass of scipy's NegativeCycleError where scipy is installed."""

    def __init__(self, message="", vertex=-1):
        super().__init__(message)
        self.vertex = vertex
