"""Logic functions (NumPy's chapter): truth tests (``all``, ``any``), array contents
(``isfinite``, ``isinf``, ``isnan``, ``isneginf``, ``isposinf``), type tests
(``iscomplex``, ``isreal``, ``iscomplexobj``, ``isrealobj``, ``isscalar``, ``isfortran``),
logical operations and comparisons (``logical_and``,
``equal``, ``isclose``, ``allclose``, ``array_equal``). aclnn comparison and logical
operators, aclnnAll / aclnnAny, on the current stream of the operands' device.
"""
import numpy as np

from ._core import _creation, _manipulation, _utility
from ._core import _elementwise as ew
from ._core._data_type import result_type
from ._core._elementwise import (equal, greater, greater_equal, isfinite, isinf, isnan, less,
                                 less_equal, logical_and, logical_not, logical_or, logical_xor,
                                 not_equal)
from ._operands import as_device, float_dtype, is_array
from ._core._array import NPUArray
from ._operands import axis_argument, into, keepdims_flag

__all__ = ["equal", "greater", "greater_equal", "isfinite", "isinf", "isnan", "less",
           "less_equal", "logical_and", "logical_not", "logical_or", "logical_xor",
           "not_equal", "all", "any", "isposinf", "isneginf", "isreal", "iscomplex",
           "isclose", "allclose", "array_equal", "array_equiv"]


def isposinf(x):
    """True where ``x`` is +inf (``numpy.isposinf``)."""
    x = as_device(x, "isposinf")
    return ew.logical_and(ew.isinf(x), ew.greater(x, 0))


def isneginf(x):
    """True where ``x`` is -inf (``numpy.isneginf``)."""
    x = as_device(x, "isneginf")
    return ew.logical_and(ew.isinf(x), ew.less(x, 0))


def isreal(x):
    """True where the imaginary part is zero (``numpy.isreal``)."""
    x = as_device(x, "isreal")
    if x.dtype.kind == "c":
        return ew.equal(ew.imag(x), 0)
    return _creation.full_like(x, True, dtype=np.bool_)


def iscomplex(x):
    """True where the imaginary part is non-zero (``numpy.iscomplex``)."""
    return ew.logical_not(isreal(x))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Element-wise ``|a - b| <= atol + rtol * |b|`` for finite values, equality
    for infinities, NaN equal to NaN only with ``equal_nan`` (``numpy.isclose``),
    computed in the operands' floating dtype (float64 for integers)."""
    a, b = as_device(a, "isclose"), as_device(b, "isclose")
    dtype = float_dtype(result_type(a.dtype, b.dtype))
    a, b = _manipulation.astype(a, dtype, copy=False), _manipulation.astype(b, dtype, copy=False)
    both_finite = ew.logical_and(ew.isfinite(a), ew.isfinite(b))
    near = ew.less_equal(ew.abs(ew.subtract(a, b)), ew.add(ew.multiply(ew.abs(b), rtol), atol))
    close = ew.where(both_finite, near, ew.equal(a, b))
    if equal_nan:
        close = ew.logical_or(close, ew.logical_and(ew.isnan(a), ew.isnan(b)))
    return close


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of ``isclose(a, b, ...)`` holds, as a 0-d bool
    NPUArray (``numpy.allclose``; CuPy returns a device array too: ``bool()``
    of it reads one byte from the device)."""
    return _utility.all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def array_equal(a1, a2, equal_nan=False):
    """Whether ``a1`` and ``a2`` have the same shape and elements (NaN equal to
    NaN with ``equal_nan``), as a 0-d bool NPUArray (``numpy.array_equal``)."""
    a1, a2 = as_device(a1, "array_equal"), as_device(a2, "array_equal")
    if a1.shape != a2.shape:
        return _false(a1.device)
    same = ew.equal(a1, a2)
    if equal_nan:
        same = ew.logical_or(same, ew.logical_and(ew.isnan(a1), ew.isnan(a2)))
    return _utility.all(same)


def array_equiv(a1, a2):
    """Whether ``a1`` and ``a2`` broadcast to each other with equal elements,
    as a 0-d bool NPUArray (``numpy.array_equiv``)."""
    a1, a2 = as_device(a1, "array_equiv"), as_device(a2, "array_equiv")
    try:
        ew.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return _false(a1.device)
    return _utility.all(ew.equal(a1, a2))


def _false(device):
    return _creation.zeros((), dtype=np.bool_, device=device)


# -- Array type testing --------------------------------------------------------------------

__all__ += ["iscomplexobj", "isrealobj", "isscalar", "isfortran"]


def iscomplexobj(x):
    """Whether ``x`` has a complex dtype, whatever its values (``numpy.iscomplexobj``):
    the NPUArray's dtype, or NumPy's answer for host objects; no device work."""
    if is_array(x):
        return x.dtype.kind == "c"
    return np.iscomplexobj(x)


def isrealobj(x):
    """Whether ``x`` does not have a complex dtype (``numpy.isrealobj``); no device work."""
    return not iscomplexobj(x)


def isscalar(element):
    """Whether ``element`` is a Python or NumPy scalar (``numpy.isscalar``): an
    NPUArray, even 0-d, is not (as NumPy's 0-d arrays are not)."""
    return np.isscalar(element)


def _contiguous(shape, strides):
    expected = 1
    for n, s in zip(shape, strides):
        if n == 0:
            return True
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def isfortran(a):
    """Whether ``a`` is Fortran-contiguous and not also C-contiguous
    (``numpy.isfortran``): from the view's shape and strides, no device work.
    TypeError for other objects than NPUArrays and NumPy arrays."""
    if not is_array(a):
        return np.isfortran(a)
    items = tuple(s // a.dtype.itemsize for s in a.strides)
    return _contiguous(a.shape, items) and not a.is_c_contiguous()


# -- NumPy's signature and the standard's, in one function (NumPy 2's): the call without
# NumPy's extra keywords is the array API function's own ------------------------------

def _truth(name, function, a, axis, out, keepdims, where):
    keepdims = keepdims_flag(keepdims)
    if out is None and where is True and type(a) is NPUArray:
        return function(a, axis=axis_argument(axis), keepdims=keepdims)
    a = as_device(a, name)
    if where is not True:
        a = ew.where(as_device(where, name), ew.not_equal(a, 0), name == "all")
    result = function(a, axis=axis_argument(axis), keepdims=keepdims)
    return into(result if out is None else _manipulation.astype(result, out.dtype), out)


def all(a, /, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether every element over ``axis`` is non-zero (``numpy.all``, array API
    ``all``): aclnnAll; ``where`` restricts the elements tested."""
    return _truth("all", _utility.all, a, axis, out, keepdims, where)


def any(a, /, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001
    """Whether any element over ``axis`` is non-zero (``numpy.any``): aclnnAny."""
    return _truth("any", _utility.any, a, axis, out, keepdims, where)
