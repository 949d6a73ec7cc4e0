"""Whether a run fits in memory, told before anything n x n is allocated."""
import math


def available():
    """Bytes this process can still take: MemAvailable, or the cgroup's
    limit where that is lower; None where neither can be read."""
    best = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    best = int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
        if limit != "max":
            with open("/sys/fs/cgroup/memory.current") as f:
                room = int(limit) - int(f.read().strip())
            best = room if best is None else min(best, room)
    except (OSError, ValueError):
        pass
    return best


# Runs of at most this many bytes are not checked (numpy's own MemoryError
# tells of those; the check's two reads of /proc were a third of a call on
# a graph of 16 vertices).
UNCHECKED = 64 << 20


def _check(n, k, where):
    """MemoryError where k bytes per n^2 exceed what is available."""
    if k * n * n <= UNCHECKED:
        return
    room = available()
    if room is None or n == 0 or k * n * n <= room:
        return
    raise MemoryError("n = %d needs about %.1f GiB of %s, %.1f GiB are available: "
                      "at most n = %d fits" % (n, k * n * n / 2**30, where, room / 2**30,
                                               math.isqrt(room // k)))


def check(n, paths, directed, in_place):
    """A CPU run: the result (8 per n^2, unless the caller's array is used in
    place), the engine's tiled copy (8), predecessors (4 in the result, 4
    tiled) and a copy of the weights for their repair (8), the transpose of
    an undirected graph (8)."""
    k = 8 + (0 if in_place else 8) + (16 if paths else 0) + (0 if directed else 8)
    _check(n, k, "memory")


def check_gpu_host(n, paths, copy):
    """The host side of a GPU run: the result (8 per n^2), the predecessors
    (4) and a copy of the weights for their repair (8), a float64 copy of
    the graph where it is not one (8)."""
    _check(n, 8 + (12 if paths else 0) + (8 if copy else 0), "host memory")
