"""Whether a run fits in memory, told before anything n x n is allocated."""
import math
import os


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
    for path, used in (("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),):
        try:
            with open(path) as f:
                limit = f.read().strip()
            if limit == "max":
                continue
            with open(used) as f:
                room = int(limit) - int(f.read().strip())
            best = room if best is None else min(best, room)
        except (OSError, ValueError):
            pass
    return best


def per_vertex_squared(paths, directed, in_place):
    """Bytes a CPU run takes per n^2: the result (8, unless the caller's
    array is used in place), the engine's tiled copy (8), predecessors (4 in
    the result, 4 tiled), the transpose of an undirected graph (8)."""
    k = 8
    if not in_place:
        k += 8
    if paths:
        k += 8
    if not directed:
        k += 8
    return k


def check(n, paths, directed, in_place, where="the CPU"):
    room = available()
    if room is None or n == 0:
        return
    k = per_vertex_squared(paths, directed, in_place)
    need = k * n * n
    if need > room:
        most = int(math.isqrt(room // k))
        raise MemoryError("n = %d needs about %.1f GiB on %s, %.1f GiB are available: "
                          "at most n = %d fits" % (n, need / 2**30, where, room / 2**30, most))


def check_gpu_host(n, paths, copy):
    """The host side of a GPU run: the result (8 per n^2), the predecessors
    (4), a float64 copy of the graph where it is not one (8)."""
    room = available()
    if room is None or n == 0:
        return
    k = 8 + (4 if paths else 0) + (8 if copy else 0)
    if k * n * n > room:
        raise MemoryError("n = %d needs about %.1f GiB of host memory, %.1f GiB are available: "
                          "at most n = %d fits" % (n, k * n * n / 2**30, room / 2**30,
                                                   int(math.isqrt(room // k))))
