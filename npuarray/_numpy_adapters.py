"""NumPy signatures of array API names, for ``__array_function__``.

``numpy.stack(arrays, 0)``, ``numpy.diff(x, 2)``, ``numpy.broadcast_to(x, shape)``...
pass NumPy's positional and keyword arguments, which the standard's functions
(keyword-only ``axis``, other names) do not take. These adapters accept NumPy's
signature and call the array API function; NumPy-only keywords that npuarray does
not implement raise TypeError naming them. They are not exported (the functions
whose exported form takes both signatures are defined so in their chapter modules).
"""
import numpy as np

from . import linalg
from ._core import _linear_algebra, _manipulation, _searching, _utility
from ._core import _elementwise as ew
from ._operands import as_device, into

_NO_VALUE = np._NoValue  # NumPy's marker for "argument not given"


def _given(value):
    return value is not _NO_VALUE and value is not None












def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = [as_device(x, "stack") for x in arrays]
    if dtype is not None:
        arrays = [_manipulation.astype(x, dtype, copy=False) for x in arrays]
    return into(_manipulation.stack(arrays, axis=axis), out)






def count_nonzero(a, axis=None, *, keepdims=False):
    return _searching.count_nonzero(as_device(a, "count_nonzero"), axis=axis,
                                    keepdims=keepdims)





def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    return _utility.diff(as_device(a, "diff"), axis=axis, n=n,
                         prepend=prepend if _given(prepend) else None,
                         append=append if _given(append) else None)



def broadcast_to(array, shape, subok=False):
    return _manipulation.broadcast_to(as_device(array, "broadcast_to"), shape)


def broadcast_arrays(*args, subok=False):
    return _manipulation.broadcast_arrays(*[as_device(x, "broadcast_arrays") for x in args])








def astype(x, dtype, /, *, copy=True, device=None):
    return _manipulation.astype(x, dtype, copy=copy, device=device)




def copyto(dst, src, casting="same_kind", where=True):
    src = as_device(src, "copyto")
    if not np.can_cast(src.dtype, dst.dtype, casting=casting):
        raise TypeError(f"Cannot cast array data from {src.dtype} to {dst.dtype} "
                        f"according to the rule {casting!r}")
    if where is not True:
        src = ew.where(where, src, dst)
    dst[...] = src


def result_type(*arrays_and_dtypes):
    return np.result_type(*[x.dtype if hasattr(x, "_buffer") else x
                            for x in arrays_and_dtypes])


def can_cast(from_, to, casting="safe"):
    return np.can_cast(from_.dtype if hasattr(from_, "_buffer") else from_, to,
                       casting=casting)


def shape(a):
    return a.shape


def ndim(a):
    return a.ndim


def size(a, axis=None):
    return a.size if axis is None else a.shape[axis]


def iscomplexobj(x):
    return x.dtype.kind == "c"


def isrealobj(x):
    return x.dtype.kind != "c"


def tensordot(a, b, axes=2):
    return _linear_algebra.tensordot(as_device(a, "tensordot"), as_device(b, "tensordot"),
                                     axes=axes)







def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  NumPy's name
    """``numpy.linalg.norm``: ``npuarray.linalg.norm`` (integers in float64,
    NumPy's errors), a scalar ``x`` uploaded first."""
    return linalg.norm(as_device(x, "norm"), ord, axis, keepdims)
