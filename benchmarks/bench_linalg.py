"""npuarray.linalg against NumPy and PyTorch CPU.

* ``solve``, ``cholesky``, ``qr``, ``svd``, ``eigh`` on 512 x 512 float32 and float64
  (the float32 solve / cholesky / qr rows and the float64 cholesky row tagged with their
  targets);
  ``--quick``: float32 on 256 x 256 only;

The FFT rows are in ``bench_fft``.

Every npuarray timing ends with a synchronisation of the stream, so it covers
the work, not only its submission. Ratios are NumPy time / npuarray time.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none

N = 512
QUICK_N = 256
_FLOAT32_TARGETS = {"cholesky": _targets.CHOLESKY_512, "solve": _targets.SOLVE_512,
                    "qr": _targets.QR_512}
_FLOAT64_TARGETS = {"cholesky": _targets.F64_CHOLESKY_512}


def _operands(rng, dtype, n):
    a = rng.standard_normal((n, n)).astype(dtype)
    spd = (a @ a.T + n * np.eye(n)).astype(dtype)
    b = rng.standard_normal((n, 16)).astype(dtype)
    return a, spd, b


def _linalg(harness, stream, torch):
    rng = np.random.default_rng(0)
    n = QUICK_N if harness.quick else N
    for dtype in (np.float32,) if harness.quick else (np.float32, np.float64):
        a, spd, b = _operands(rng, dtype, n)
        x, s, y = npx.asarray(a), npx.asarray(spd), npx.asarray(b)
        cases = {
            "solve": (lambda: npx.linalg.solve(s, y), lambda: np.linalg.solve(spd, b),
                      "solve"),
            "cholesky": (lambda: npx.linalg.cholesky(s), lambda: np.linalg.cholesky(spd),
                         "cholesky"),
            "qr": (lambda: npx.linalg.qr(x), lambda: np.linalg.qr(a), "qr"),
            "svd": (lambda: npx.linalg.svd(x), lambda: np.linalg.svd(a), "svd"),
            "eigh": (lambda: npx.linalg.eigh(s), lambda: np.linalg.eigh(spd), "eigh"),
        }
        name = np.dtype(dtype).name
        for case, (ours, numpy_fn, torch_name) in cases.items():
            impls = {"npuarray": synchronized(stream, ours), "numpy": numpy_fn}
            if torch is not None:
                ta, ts, tb = (torch.from_numpy(v) for v in (a, spd, b))
                arg = {"solve": (ts, tb), "cholesky": (ts,), "eigh": (ts,)}.get(case, (ta,))
                impls["torch"] = (lambda f=getattr(torch.linalg, torch_name), arg=arg: f(*arg))
            targets = _FLOAT32_TARGETS if dtype == np.float32 else _FLOAT64_TARGETS
            target = None if harness.quick else targets.get(case)
            harness.compare("%s %dx%d %s" % (case, n, n, name), impls, repeat=3, target=target)


def run(harness):
    stream = npx.get_current_stream()
    torch = torch_or_none()
    _linalg(harness, stream, torch)
