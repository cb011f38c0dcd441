"""NumPy's names through npuarray against NumPy (issue 12 "Measure").

``median``, ``percentile``, ``histogram``, ``unique`` (with counts) and
``einsum`` on 16 M float32, each called the way a NumPy script calls it
(``np.median(x)`` on an NPUArray reaches npuarray through
``__array_function__``), timed against NumPy on the same data in the same run.
``random.standard_normal`` belongs to the ``npuarray.random`` work. Every
npuarray timing ends with a synchronisation of the stream.
"""
import numpy as np

import npuarray as npx

N = 1 << 24


def _synchronized(stream, fn):
    def run():
        fn()
        stream.synchronize()
    return run


def run(harness):
    harness.benchmark = "numpy"
    stream = npx.get_current_stream()
    rng = np.random.default_rng(12)
    a = rng.standard_normal(N, dtype=np.float32)
    repeated = rng.integers(0, 1 << 16, N).astype(np.float32)
    matrix = a.reshape(4096, 4096)
    vector = rng.standard_normal(4096, dtype=np.float32)
    x, y = npx.asarray(a), npx.asarray(repeated)
    m, v = npx.asarray(matrix), npx.asarray(vector)
    cases = [
        ("median", lambda: np.median(x), lambda: np.median(a)),
        ("percentile [5, 50, 95]", lambda: np.percentile(x, [5, 50, 95]),
         lambda: np.percentile(a, [5, 50, 95])),
        ("histogram 100 bins", lambda: np.histogram(x, 100), lambda: np.histogram(a, 100)),
        ("unique return_counts (65536 values)", lambda: np.unique(y, return_counts=True),
         lambda: np.unique(repeated, return_counts=True)),
        ("einsum 'ij,j->i' 4096^2", lambda: np.einsum("ij,j->i", m, v),
         lambda: np.einsum("ij,j->i", matrix, vector)),
        ("einsum 'ij->j' 4096^2", lambda: np.einsum("ij->j", m),
         lambda: np.einsum("ij->j", matrix)),
    ]
    for name, device, host in cases:
        harness.compare("%s float32 16 M" % name,
                        {"npuarray": _synchronized(stream, device), "numpy": host},
                        nbytes=4 * N, repeat=3)
