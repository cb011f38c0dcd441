"""Helpers shared by the NumPy-name modules: operands, ``out=``, axes."""
import builtins
import functools

import numpy as np

from ._core import _elementwise as ew
from ._core import _ops, _transfer, _utility
from ._core._shape import normalize_axis_tuple
from ._core._array import NPUArray

_SCALARS = (builtins.bool, int, float, complex, np.generic)



def as_device(x, name):
    """``x`` as an NPUArray: NPUArrays as they are, Python and NumPy scalars as
    0-d device arrays, host arrays and sequences uploaded (an implicit transfer,
    under ``transfer_guard``). TypeError for anything else."""
    if isinstance(x, NPUArray):
        return x
    if isinstance(x, _SCALARS):
        return _transfer.asarray(x)
    if isinstance(x, (np.ndarray, list, tuple)):
        return _transfer.implicit_upload(x, f"npuarray.{name}()")
    raise TypeError(f"{name}: expected an NPUArray, a scalar or a host array, got "
                    f"{type(x).__name__}")


def is_array(x):
    return isinstance(x, NPUArray)


def into(result, out):
    """``result``, or the NPUArray ``out`` holding it (NumPy's ``out=``)."""
    if out is None:
        return result
    if isinstance(out, tuple) and len(out) == 1:
        out = out[0]
    if not is_array(out):
        raise TypeError(f"out must be an NPUArray, got {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
    _ops.copy_(out, result)
    return out


def axis_tuple(axis, ndim):
    """NumPy's ``axis`` (None, int or tuple) as a tuple of non-negative axes;
    AxisError (ValueError and IndexError) when out of range."""
    if axis is None:
        return tuple(range(ndim))
    return tuple(normalize_axis_tuple(axis, ndim))


def float_dtype(dtype):
    """The floating dtype NumPy computes statistics of ``dtype`` in: the dtype
    itself for floating and complex, float64 for bool and integers."""
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def check_no_unsupported(name, **options):
    """TypeError naming the first keyword given a value npuarray does not support."""
    for key, value in options.items():
        if value is not None and value is not False:
            raise TypeError(f"{name}: the argument {key}= is not supported by npuarray")


def axis_argument(axis):
    """``axis`` as NumPy takes it (a list of axes counts as a tuple)."""
    return tuple(axis) if isinstance(axis, list) else axis


def nan_replaced(a, value, name):
    """(``a`` with NaNs replaced by ``value``, the NaN mask or None for integer ``a``)."""
    a = as_device(a, name)
    if a.dtype.kind in "biu":
        return a, None
    nan = ew.isnan(a)
    return ew.where(nan, value, a), nan


def all_nan(nan, axis, keepdims):
    """Where every element along ``axis`` is NaN (``nan`` the mask)."""
    return _utility.all(nan, axis=axis_argument(axis), keepdims=keepdims)


def with_ufunc_out(function):
    """``function`` (element-wise, one or more outputs) taking NumPy's ufunc
    keyword ``out=``: an NPUArray, or a tuple with an NPUArray or None per
    output; each result is copied into its ``out`` (``into``)."""
    @functools.wraps(function)
    def call(*args, out=None):
        result = function(*args)
        if out is None or not isinstance(result, tuple):
            return into(result, out)
        if not isinstance(out, tuple) or len(out) != len(result):
            raise ValueError(f"The 'out' tuple must have exactly {len(result)} entries: one "
                             f"per ufunc output")
        return tuple(r if o is None else into(r, o) for r, o in zip(result, out))
    return call
