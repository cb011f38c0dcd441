"""npuarray.fft (single precision, CANN's aclfft on npusim) against NumPy and PyTorch CPU.

* ``fft`` of 2**20 complex64, ``rfft`` of 2**20 float32, both on a batch of
  1024 x 1024 (rows), ``irfft`` of 1024 rows of 513 complex64 (back to 1024 x 1024
  float32), and ``fftn`` (fft2) of 2048 x 2048 complex64;
  ``--quick``: the 2**20 rows only.

The complex128 transforms (composed of element-wise operators) are measured by
``bench_float64``. Every npuarray timing ends with a synchronisation of the stream, so
it covers the work, not only its submission. Ratios are NumPy time / npuarray time.
"""
import numpy as np

import npuarray as npx

from . import _targets
from ._harness import synchronized, torch_or_none


def run(harness):
    stream = npx.get_current_stream()
    torch = torch_or_none()
    rng = np.random.default_rng(1)
    signal = (rng.standard_normal(1 << 20) + 1j * rng.standard_normal(1 << 20)).astype(
        np.complex64)
    batch = signal.reshape(1024, 1024)
    image = (rng.standard_normal((2048, 2048)) + 1j * rng.standard_normal((2048, 2048))).astype(
        np.complex64)
    cases = [("fft 2^20 complex64", signal, np.fft.fft, npx.fft.fft, "fft", _targets.FFT_C64_2_20),
             ("rfft 2^20 float32", signal.real.copy(), np.fft.rfft, npx.fft.rfft, "rfft", None),
             ("fft 1024x1024 complex64", batch, np.fft.fft, npx.fft.fft, "fft", _targets.FFT_C64_ROWS),
             ("rfft 1024x1024 float32", batch.real.copy(), np.fft.rfft, npx.fft.rfft, "rfft",
              _targets.RFFT_F32_ROWS),
             ("irfft 1024x513 complex64", np.ascontiguousarray(batch[:, :513]), np.fft.irfft,
              npx.fft.irfft, "irfft", _targets.IRFFT_C64_ROWS),
             ("fft2 2048x2048 complex64", image, np.fft.fft2, npx.fft.fftn, "fft2",
              _targets.FFT2_C64_2048)]
    for case, host, numpy_fn, ours, torch_name, target in cases[:2] if harness.quick else cases:
        x = npx.asarray(host)
        impls = {"npuarray": synchronized(stream, lambda ours=ours, x=x: ours(x)),
                 "numpy": lambda numpy_fn=numpy_fn, host=host: numpy_fn(host)}
        if torch is not None:
            t = torch.from_numpy(host)
            impls["torch"] = lambda f=getattr(torch.fft, torch_name), t=t: f(t)
        harness.compare(case, impls, nbytes=2 * host.nbytes, repeat=5, target=target)
