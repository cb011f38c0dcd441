"""NumPy's math, statistics, sorting, set and linalg names npuarray composes on the
device (fmod, frexp, gcd, gradient, unwrap, digitize, histogram2d, intersect1d,
lexsort, linalg.norm...), called as a NumPy script calls them (``np.f(x)`` on an
NPUArray reaches npuarray through ``__array_function__``; ufuncs as ``npx.f``),
on 1 M float32 (int32 for gcd), timed against NumPy on the same data in the same
run. Every npuarray timing ends with a synchronisation of the stream.
"""
import numpy as np

import npuarray as npx

from ._harness import synchronized

N = 1 << 20


def _cases(a, b, x, y, ints, device_ints, rows, device_rows):
    bins = np.linspace(-3, 3, 64).astype(np.float32)
    device_bins = npx.asarray(bins)
    return [
        ("fmod", lambda: npx.fmod(x, y), lambda: np.fmod(a, b)),
        ("frexp", lambda: npx.frexp(x), lambda: np.frexp(a)),
        ("gcd int32", lambda: npx.gcd(device_ints, 360), lambda: np.gcd(ints, 360)),
        ("gradient", lambda: np.gradient(x), lambda: np.gradient(a)),
        ("trapezoid", lambda: np.trapezoid(x), lambda: np.trapezoid(a)),
        ("unwrap", lambda: np.unwrap(x), lambda: np.unwrap(a)),
        ("cross (N/3, 3)", lambda: np.cross(device_rows, device_rows[::-1]),
         lambda: np.cross(rows, rows[::-1])),
        ("digitize 64 bins", lambda: np.digitize(x, device_bins), lambda: np.digitize(a, bins)),
        ("histogram2d 32x32", lambda: np.histogram2d(x, y, 32), lambda: np.histogram2d(a, b, 32)),
        ("intersect1d", lambda: np.intersect1d(x, y), lambda: np.intersect1d(a, b)),
        ("lexsort 2 keys", lambda: np.lexsort((x, y)), lambda: np.lexsort((a, b))),
        ("linalg.norm axis=1 (N/3, 3)", lambda: np.linalg.norm(device_rows, axis=1),
         lambda: np.linalg.norm(rows, axis=1)),
    ]


def run(harness):
    harness.benchmark = "numpy_names"
    stream = npx.get_current_stream()
    rng = np.random.default_rng(21)
    n = N
    a = rng.standard_normal(n, dtype=np.float32) * 4
    b = rng.standard_normal(n, dtype=np.float32) + 3
    ints = rng.integers(0, 1 << 20, n).astype(np.int32)
    rows = a[:n - n % 3].reshape(-1, 3).copy()
    x, y = npx.asarray(a), npx.asarray(b)
    for name, device, host in _cases(a, b, x, y, ints, npx.asarray(ints), rows,
                                     npx.asarray(rows)):
        harness.compare("%s float32 %d M" % (name, n >> 20),
                        {"npuarray": synchronized(stream, device), "numpy": host},
                        nbytes=4 * n, repeat=3)
