"""fftfreq, rfftfreq, fftshift, ifftshift on the device (array API fft helpers)."""
import operator

import numpy as np

from .._core._creation import arange
from .._core._data_type import normalize_dtype
from .._core._elementwise import is_array, multiply
from .._core._manipulation import concat, roll

__all__ = ["fftfreq", "rfftfreq", "fftshift", "ifftshift"]


def _frequency_args(name, n, d, dtype):
    n = operator.index(n)
    if n < 1:
        raise ValueError(f"fft.{name}(): n must be >= 1, got {n}")
    dtype = np.dtype(np.float64) if dtype is None else normalize_dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"fft.{name}(): dtype must be a real floating-point dtype, got {dtype}")
    return n, 1.0 / (float(d) * n), dtype


def fftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of an ``n``-point ``fft`` with spacing ``d``:
    ``[0, 1, ..., (n - 1) // 2, -(n // 2), ..., -1] / (d * n)`` (array API
    ``fft.fftfreq``, ``numpy.fft.fftfreq``), of real floating ``dtype`` (default
    float64) on ``device``: aclnnArange and aclnnMuls on its current stream.
    ValueError for ``n < 1``, TypeError for a non-real-floating dtype."""
    n, scale, dtype = _frequency_args("fftfreq", n, d, dtype)
    positive = arange(0, (n - 1) // 2 + 1, dtype=dtype, device=device)
    negative = arange(-(n // 2), 0, dtype=dtype, device=device)
    return multiply(concat([positive, negative]), scale)


def rfftfreq(n, /, *, d=1.0, dtype=None, device=None):
    """Sample frequencies of an ``n``-point ``rfft``: ``[0, 1, ..., n // 2] / (d * n)``
    (array API ``fft.rfftfreq``); as ``fftfreq``."""
    n, scale, dtype = _frequency_args("rfftfreq", n, d, dtype)
    return multiply(arange(0, n // 2 + 1, dtype=dtype, device=device), scale)


def _shift(name, x, axes, sign):
    if not is_array(x):
        raise TypeError(f"fft.{name}() needs an NPUArray, got {type(x).__name__}")
    if axes is None:
        axes = tuple(range(x.ndim))
    elif isinstance(axes, int):
        axes = (axes,)
    axes = tuple(axes)
    if not axes:
        return x
    shifts = tuple(sign * (x.shape[a] // 2) for a in axes)
    return roll(x, shifts, axis=axes)


def fftshift(x, /, *, axes=None):
    """``x`` with the zero-frequency term moved to the centre of each of ``axes``
    (default all; array API ``fft.fftshift``): ``roll`` by ``n // 2``, two slice
    copies per axis on the current stream. AxisError for a bad axis."""
    return _shift("fftshift", x, axes, 1)


def ifftshift(x, /, *, axes=None):
    """Inverse of ``fftshift`` (array API ``fft.ifftshift``): ``roll`` by
    ``-(n // 2)``."""
    return _shift("ifftshift", x, axes, -1)
