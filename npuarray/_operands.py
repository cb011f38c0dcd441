"""Helpers shared by the NumPy-name modules: operands, ``out=``, axes, NumPy's keywords."""
import builtins
import functools

import numpy as np

from ._core import _elementwise as ew
from ._core import _manipulation, _ops, _transfer, _utility
from ._core._shape import normalize_axis_tuple
from ._core._array import NPUArray

_SCALARS = (builtins.bool, int, float, complex, np.generic)
# NumPy's "argument not given" default (``initial=``, ``mean=``, ``a_min=``...).
NO_VALUE = np._NoValue



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


def given(value):
    """Whether a keyword defaulting to ``NO_VALUE`` was given."""
    return value is not NO_VALUE


def keepdims_flag(value):
    """NumPy's ``keepdims`` (``NO_VALUE`` is False) as a bool."""
    return False if value is NO_VALUE else builtins.bool(value)


# -- ufunc operands and outputs (npuarray.ufunc and the functions with NumPy's keywords) ------

def operands(name, values):
    """``values`` as the ufunc ``name`` takes them: NPUArrays and Python scalars as
    they are, NumPy scalars as they are beside an array, host arrays and sequences
    uploaded (an implicit transfer); when no operand is an array, the first NumPy
    scalar (else the first operand) becomes a 0-d device array, so NEP 50 gives
    NumPy's dtype. TypeError for anything else."""
    values = list(values)
    have_array = False
    for i, value in enumerate(values):
        if isinstance(value, NPUArray):
            have_array = True
        elif isinstance(value, (np.ndarray, list, tuple)):
            values[i] = _transfer.implicit_upload(value, f"npuarray.{name}()")
            have_array = True
        elif not isinstance(value, _SCALARS):
            if hasattr(value, "__array__"):
                values[i] = _transfer.implicit_upload(np.asarray(value), f"npuarray.{name}()")
                have_array = True
            else:
                raise TypeError(f"{name}() operands must be NPUArrays, scalars or host "
                                f"arrays, got {type(value).__name__}")
    if not have_array and values:
        first = next((i for i, v in enumerate(values) if isinstance(v, np.generic)), 0)
        values[first] = _transfer.asarray(values[first])
    return values


def check_cast(name, source, target, casting, what):
    if not np.can_cast(source, target, casting=casting):
        raise TypeError(f"Cannot cast ufunc {name!r} {what} from {np.dtype(source)!r} to "
                        f"{np.dtype(target)!r} with casting rule {casting!r}")


def ordered(result, order, inputs):
    """``result`` laid out in ``order`` (NumPy's 'C', 'F', 'A', 'K'): Fortran order
    is a C-contiguous copy of the transpose, viewed transposed (as CuPy's)."""
    if order in ("K", "C", None) or result.ndim < 2:
        if order not in ("K", "C", "A", "F", None):
            raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        return result
    if order == "A":
        arrays = [x for x in inputs if isinstance(x, NPUArray)]
        if not arrays or not builtins.all(is_fortran(x) for x in arrays):
            return result
    elif order != "F":
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return fortran_copy(result)


def fortran_copy(x):
    """A copy of ``x`` in Fortran (column-major) order: the transpose's C copy,
    viewed transposed."""
    reverse = tuple(range(x.ndim - 1, -1, -1))
    return _manipulation.permute_dims(
        _manipulation.copy_array(_manipulation.permute_dims(x, reverse)), reverse)


def is_c_ordered(x):
    """Whether ``x``'s strides (in elements) are C order's, axes of length 1 aside."""
    expected = 1  # strides count elements
    for size, stride in zip(reversed(x.shape), reversed(x._strides)):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def is_fortran(x):
    """Whether ``x`` is Fortran-contiguous (and not C-contiguous when 2-D or more)."""
    expected = 1  # strides count elements
    for size, stride in zip(x.shape, x._strides):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def out_array(out):
    """The one output NPUArray of ``out=`` (None, an array or a 1-tuple)."""
    return out_arrays(out, 1)[0]


def out_arrays(out, nout):
    """The ``nout`` outputs of ``out=`` (None, an array when ``nout`` is 1, or a tuple
    of NPUArrays and Nones): a tuple of NPUArrays or None."""
    if not isinstance(out, tuple):
        if out is not None and nout != 1:
            raise TypeError(f"out must be a tuple of {nout} arrays for a ufunc with "
                            f"{nout} outputs")
        out = (out,) if nout == 1 else (None,) * nout
    if len(out) != nout:
        raise ValueError(f"The 'out' tuple must have exactly {nout} entries: one per "
                         f"ufunc output")
    for target in out:
        if target is not None and not isinstance(target, NPUArray):
            raise TypeError(f"out must be an NPUArray, got {type(target).__name__} "
                            f"(npuarray writes results on the device)")
    return out


def store(name, result, out, where=True, casting="same_kind"):
    """``result`` written into ``out`` (cast as ``casting`` allows) where ``where``
    holds; ``result`` itself without ``out``."""
    if out is None:
        return result
    check_cast(name, result.dtype, out.dtype, casting, "output")
    if where is not True:
        result = ew.where(where, result, out)
    if out.shape != result.shape:
        result = _manipulation.broadcast_to(result, out.shape)
    if result.dtype != out.dtype:
        result = _manipulation.astype(result, out.dtype)
    _ops.copy_(out, result)
    return out
