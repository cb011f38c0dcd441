"""npuarray.linalg and npuarray.fft against NumPy and PyTorch CPU.

* ``solve``, ``cholesky``, ``qr``, ``svd``, ``eigh`` on 512 x 512 float32 and float64
  (the float32 solve / cholesky / qr rows tagged with their targets);
  ``--quick``: float32 on 256 x 256 only;
* ``fft`` of 2**20 complex64, ``rfft`` of 2**20 float32, both on a batch of
  1024 x 1024, and ``fftn`` (fft2) of 2048 x 2048 complex64.

Every npuarray timing ends with a synchronisation of the stream, so it covers
the work, not only its submission. Ratios are NumPy time / npuarray time.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import torch_or_none

N = 512
QUICK_N = 256
_FLOAT32_TARGETS = {"cholesky": _targets.CHOLESKY_512, "solve": _targets.SOLVE_512,
                    "qr": _targets.QR_512}


def _synchronized(stream, fn):
    def run():
        fn()
        stream.synchronize()
    return run


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
            impls = {"npuarray": _synchronized(stream, ours), "numpy": numpy_fn}
            if torch is not None:
                ta, ts, tb = (torch.from_numpy(v) for v in (a, spd, b))
                arg = {"solve": (ts, tb), "cholesky": (ts,), "eigh": (ts,)}.get(case, (ta,))
                impls["torch"] = (lambda f=getattr(torch.linalg, torch_name), arg=arg: f(*arg))
            target = None if harness.quick or dtype != np.float32 else _FLOAT32_TARGETS.get(case)
            harness.compare("%s %dx%d %s" % (case, n, n, name), impls, repeat=3, target=target)


def _fft(harness, stream, torch):
    rng = np.random.default_rng(1)
    signal = (rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)).astype(
        np.complex64)
    batch = signal.reshape(1024, 1024)
    image = (rng.standard_normal((2048, 2048)) + 1j * rng.standard_normal((2048, 2048))).astype(
        np.complex64)
    cases = [("fft 2^20 complex64", signal, np.fft.fft, npx.fft.fft, "fft"),
             ("rfft 2^20 float32", signal.real.copy(), np.fft.rfft, npx.fft.rfft, "rfft"),
             ("fft 1024x1024 complex64", batch, np.fft.fft, npx.fft.fft, "fft"),
             ("rfft 1024x1024 float32", batch.real.copy(), np.fft.rfft, npx.fft.rfft, "rfft"),
             ("fft2 2048x2048 complex64", image, np.fft.fft2, npx.fft.fftn, "fft2")]
    for case, host, numpy_fn, ours, torch_name in cases[:2] if harness.quick else cases:
        x = npx.asarray(host)
        impls = {"npuarray": _synchronized(stream, lambda ours=ours, x=x: ours(x)),
                 "numpy": lambda numpy_fn=numpy_fn, host=host: numpy_fn(host)}
        if torch is not None:
            t = torch.from_numpy(host)
            impls["torch"] = lambda f=getattr(torch.fft, torch_name), t=t: f(t)
        harness.compare(case, impls, nbytes=2 * host.nbytes, repeat=5)


def run(harness):
    stream = npx.get_current_stream()
    torch = torch_or_none()
    _linalg(harness, stream, torch)
    _fft(harness, stream, torch)
