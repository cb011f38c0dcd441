"""NumPy's two-dimensional transforms ``fft2``, ``ifft2``, ``rfft2``, ``irfft2``.

Each is the array API n-dimensional transform (``fftn`` ... of this package)
over ``axes`` (default the last two), with NumPy's signature: ``norm=None``
is "backward", ``out=`` takes an NPUArray of the result's shape, and bool or
integer input is transformed as float64, as NumPy converts it. The 1-D
transforms behind them run as aclfft plans (``aclfftExecC2C/R2C/C2R``) on the
current stream of the input's device (the last two axes of a single-precision
transform as one ``aclfftPlan2d``); float64 and complex128 are composed on the
device from aclnn operators, as the package's other transforms are.
"""
from .._core._manipulation import astype
from .._operands import into, is_array
from ._transforms import fftn, ifftn, irfftn, rfftn

__all__ = ["fft2", "ifft2", "rfft2", "irfft2"]


def _operand(name, a):
    """``a`` as NumPy's transforms take it: bool and integer arrays as float64."""
    if not is_array(a):
        raise TypeError(f"fft.{name}() needs an NPUArray, got {type(a).__name__}; upload "
                        f"host data with npuarray.asarray()")
    return astype(a, "float64") if a.dtype.kind in "biu" else a


def _two_d(name, transform, a, s, axes, norm, out):
    a = _operand(name, a)
    result = transform(a, s=s, axes=axes, norm="backward" if norm is None else norm)
    return into(result, out)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D discrete Fourier transform over ``axes`` (``numpy.fft.fft2``): complex64
    for float32/complex64 input, complex128 for float64/complex128 (and for bool
    and integers); each axis cut or zero-padded to ``s``. ValueError for a bad
    ``norm`` or ``s``/``axes`` of different lengths; AxisError for a bad axis."""
    return _two_d("fft2", fftn, a, s, axes, norm, out)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Inverse of ``fft2`` (``numpy.fft.ifft2``); dtypes and errors as ``fft2``."""
    return _two_d("ifft2", ifftn, a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """2-D transform of real input (``numpy.fft.rfft2``): the last axis keeps
    ``n // 2 + 1`` frequencies. TypeError for complex input; else as ``fft2``."""
    return _two_d("rfft2", rfftn, a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """Inverse of ``rfft2`` (``numpy.fft.irfft2``): a real result, the last axis
    ``2 * (m - 1)`` long unless ``s`` says otherwise; else as ``fft2``."""
    return _two_d("irfft2", irfftn, a, s, axes, norm, out)
