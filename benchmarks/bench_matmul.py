"""float32 matrix products of medium size and narrow products, against NumPy and PyTorch CPU.

* medium products (between 2**18 and 2**27 multiply-adds), which npusim cuts into tiles of
  out computed by OpenBLAS on its own pool: (256, 256) @ (256, 512) and
  (257, 1024) @ (1024, 256);
* narrow products ``x @ c.T`` with 12 and 16 columns of out (npusim's own vector kernel; the
  k-means row with 10 columns is in ``bench_kmeans``).

Each timed call runs ``OPS`` products, and its npuarray timing ends with a synchronisation of
the stream, so it covers the work, not only its submission. ``--quick``: fewer runs. Ratios
are NumPy time / npuarray time.
"""
import numpy as np

import npuarray as npx

from ._harness import torch_or_none

OPS = 10  # products per timed call
MEDIUM = [((256, 256), (256, 512)), ((257, 1024), (1024, 256))]
NARROW = [((1797, 64), 12), ((1797, 64), 16)]


def _repeated(fn, stream=None):
    def run():
        for _ in range(OPS):
            fn()
        if stream is not None:
            stream.synchronize()
    return run


def _row(harness, case, a, b, b_ours, stream, torch):
    x, y = npx.asarray(a), b_ours
    impls = {"npuarray": _repeated(lambda: x @ y, stream), "numpy": _repeated(lambda: a @ b)}
    if torch is not None:
        ta, tb = torch.from_numpy(a), torch.from_numpy(np.ascontiguousarray(b))
        impls["torch"] = _repeated(lambda: ta @ tb)
    harness.compare(case, impls, repeat=3 if harness.quick else 9)


def run(harness):
    harness.benchmark = "matmul"
    torch = torch_or_none()
    rng = np.random.default_rng(0)
    stream = npx.Stream()
    print("    %d products per timed call (per-product time = shown / %d):" % (OPS, OPS))
    with stream:
        for (m, k), (_, n) in MEDIUM:
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            _row(harness, "matmul float32 (%d,%d)@(%d,%d)" % (m, k, k, n), a, b, npx.asarray(b),
                 stream, torch)
        for (m, k), n in NARROW:
            a = rng.standard_normal((m, k)).astype(np.float32)
            c = rng.standard_normal((n, k)).astype(np.float32)
            _row(harness, "x @ c.T (%d,%d)@(%d,%d)" % (m, k, k, n), a, c.T, npx.asarray(c).T, stream,
                 torch)
