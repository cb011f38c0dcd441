"""NumPy's names through npuarray against NumPy.

``median``, ``percentile``, ``histogram``, ``unique`` (with counts) and
``einsum`` on 16 M float32 (1 M with ``--quick``), each called the way a NumPy script calls it
(``np.median(x)`` on an NPUArray reaches npuarray through
``__array_function__``), timed against NumPy, and PyTorch CPU where it has the
function (``torch.median``, ``torch.histc``, ``torch.unique``), on the same data in the
same run. The order-statistics rows carry a target: at least NumPy's speed.
``random.standard_normal`` belongs to the ``npuarray.random`` work. Every
npuarray timing ends with a synchronisation of the stream.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none

N = 1 << 24
QUICK_N = 1 << 20


def run(harness):
    harness.benchmark = "numpy"
    stream = npx.get_current_stream()
    rng = np.random.default_rng(12)
    n = QUICK_N if harness.quick else N
    side = int(n ** 0.5)
    a = rng.standard_normal(n, dtype=np.float32)
    repeated = rng.integers(0, 1 << 16, n).astype(np.float32)
    matrix = a.reshape(side, side)
    vector = rng.standard_normal(side, dtype=np.float32)
    x, y = npx.asarray(a), npx.asarray(repeated)
    m, v = npx.asarray(matrix), npx.asarray(vector)
    torch = torch_or_none()
    ta = torch.from_numpy(a) if torch is not None else None
    tr = torch.from_numpy(repeated) if torch is not None else None
    # (name, npuarray, numpy, torch or None, target or None)
    cases = [
        ("median", lambda: np.median(x), lambda: np.median(a),
         torch and (lambda: torch.median(ta)), _targets.MEDIAN_16M),
        ("percentile [5, 50, 95]", lambda: np.percentile(x, [5, 50, 95]),
         lambda: np.percentile(a, [5, 50, 95]), None, _targets.PERCENTILE_16M),
        ("histogram 100 bins", lambda: np.histogram(x, 100), lambda: np.histogram(a, 100),
         torch and (lambda: torch.histc(ta, 100)), _targets.HISTOGRAM_16M),
        ("unique counts (65536 values)", lambda: np.unique(y, return_counts=True),
         lambda: np.unique(repeated, return_counts=True),
         torch and (lambda: torch.unique(tr, return_counts=True)), _targets.UNIQUE_COUNTS_16M),
        ("einsum 'ij,j->i' %d^2" % side, lambda: np.einsum("ij,j->i", m, v),
         lambda: np.einsum("ij,j->i", matrix, vector), None, None),
        ("einsum 'ij->j' %d^2" % side, lambda: np.einsum("ij->j", m),
         lambda: np.einsum("ij->j", matrix), None, None),
    ]
    for name, device, host, other, target in cases:
        impls = {"npuarray": synchronized(stream, device), "numpy": host}
        if other:
            impls["torch"] = other
        harness.compare("%s float32 %d M" % (name, n >> 20), impls, nbytes=4 * n, repeat=3,
                        target=target)
