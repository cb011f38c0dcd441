"""NumPy signatures of array API names, for ``__array_function__``.

``numpy.sort(x, 0)``, ``numpy.reshape(x, (2, 3))``, ``numpy.take(x, i, 0)``...
pass NumPy's positional and keyword arguments, which the standard's functions
(keyword-only ``axis``, other names) do not take. These adapters accept
NumPy's signature and call the array API function; NumPy-only keywords that
npuarray does not implement raise TypeError naming them. They are not
exported: ``npuarray.sort`` keeps the standard's signature.
"""
import numpy as np

from . import linalg
from ._core import (_creation, _indexing, _linear_algebra, _manipulation, _searching, _set,
                    _sorting, _utility)
from ._core import _elementwise as ew
from ._math import around
from ._operands import as_device, check_no_unsupported, into

_NO_VALUE = np._NoValue  # NumPy's marker for "argument not given"


def _given(value):
    return value is not _NO_VALUE and value is not None


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    check_no_unsupported("sort", order=order)
    a = as_device(a, "sort")
    if axis is None:
        a, axis = _manipulation.reshape(a, (-1,)), -1
    return _sorting.sort(a, axis=axis, stable=True)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    check_no_unsupported("argsort", order=order)
    a = as_device(a, "argsort")
    if axis is None:
        a, axis = _manipulation.reshape(a, (-1,)), -1
    return _sorting.argsort(a, axis=axis, stable=True)


def where(condition, x=_NO_VALUE, y=_NO_VALUE, /):
    if x is _NO_VALUE and y is _NO_VALUE:
        return _searching.nonzero(as_device(condition, "where"))
    if x is _NO_VALUE or y is _NO_VALUE:
        raise ValueError("either both or neither of x and y should be given")
    return ew.where(condition, x, y)


def clip(a, a_min=_NO_VALUE, a_max=_NO_VALUE, out=None, *, min=_NO_VALUE,  # noqa: A002
         max=_NO_VALUE, **kwargs):  # noqa: A002
    if kwargs:
        raise TypeError(f"clip: the ufunc arguments {sorted(kwargs)} are not supported")
    low = a_min if a_min is not _NO_VALUE else min
    high = a_max if a_max is not _NO_VALUE else max
    low, high = (None if v is _NO_VALUE else v for v in (low, high))
    return into(ew.clip(as_device(a, "clip"), low, high), out)


def reshape(a, /, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    if order != "C":
        raise ValueError("reshape: only order='C' is supported by npuarray")
    return _manipulation.reshape(as_device(a, "reshape"), shape, copy=copy)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = [as_device(x, "stack") for x in arrays]
    if dtype is not None:
        arrays = [_manipulation.astype(x, dtype, copy=False) for x in arrays]
    return into(_manipulation.stack(arrays, axis=axis), out)


def take(a, indices, axis=None, out=None, mode="raise"):
    if mode != "raise":
        raise TypeError("take: only mode='raise' is supported by npuarray")
    return into(_indexing.take(as_device(a, "take"), as_device(indices, "take"), axis=axis),
                out)


def searchsorted(a, v, side="left", sorter=None):
    return _searching.searchsorted(as_device(a, "searchsorted"), v, side=side, sorter=sorter)


def count_nonzero(a, axis=None, *, keepdims=False):
    return _searching.count_nonzero(as_device(a, "count_nonzero"), axis=axis,
                                    keepdims=keepdims)


def _logical(function, name):
    def call(a, axis=None, out=None, keepdims=_NO_VALUE, *, where=_NO_VALUE):
        check_no_unsupported(name, where=where if where is not _NO_VALUE else None)
        return into(function(as_device(a, name), axis=axis,
                             keepdims=keepdims is True), out)
    call.__name__ = name
    return call


all_, any_ = _logical(_utility.all, "all"), _logical(_utility.any, "any")


def diff(a, n=1, axis=-1, prepend=_NO_VALUE, append=_NO_VALUE):
    return _utility.diff(as_device(a, "diff"), axis=axis, n=n,
                         prepend=prepend if _given(prepend) else None,
                         append=append if _given(append) else None)


# The array API functions behind NumPy's *_like, and the creators for a new ``shape=``.
_LIKE_CREATORS = {_creation.zeros_like: _creation.zeros, _creation.ones_like: _creation.ones,
                  _creation.empty_like: _creation.empty}


def _like(function, name):
    def call(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
        a = as_device(a, name)
        if shape is None:
            return function(a, dtype=dtype, device=device)
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return _LIKE_CREATORS[function](shape, dtype=dtype or a.dtype,
                                        device=device or a.device)
    call.__name__ = name
    return call


zeros_like = _like(_creation.zeros_like, "zeros_like")
ones_like = _like(_creation.ones_like, "ones_like")
empty_like = _like(_creation.empty_like, "empty_like")


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    a = as_device(a, "full_like")
    if shape is None:
        return _creation.full_like(a, fill_value, dtype=dtype, device=device)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _creation.full(shape, fill_value, dtype=dtype or a.dtype, device=device or a.device)


def broadcast_to(array, shape, subok=False):
    return _manipulation.broadcast_to(as_device(array, "broadcast_to"), shape)


def broadcast_arrays(*args, subok=False):
    return _manipulation.broadcast_arrays(*[as_device(x, "broadcast_arrays") for x in args])


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    check_no_unsupported("meshgrid", sparse=sparse)
    return _creation.meshgrid(*xi, indexing=indexing)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    return _set.isin(as_device(element, "isin"), as_device(test_elements, "isin"),
                     invert=invert)


def round_(a, decimals=0, out=None):
    return into(around(a, decimals), out)


def astype(x, dtype, /, *, copy=True, device=None):
    return _manipulation.astype(x, dtype, copy=copy, device=device)


def cumulative(function, name):
    def call(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
        return into(function(as_device(x, name), axis=axis, dtype=dtype,
                             include_initial=include_initial), out)
    call.__name__ = name
    return call


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


def argmax(a, axis=None, out=None, *, keepdims=False):
    return into(_searching.argmax(as_device(a, "argmax"), axis=axis, keepdims=keepdims), out)


def argmin(a, axis=None, out=None, *, keepdims=False):
    return into(_searching.argmin(as_device(a, "argmin"), axis=axis, keepdims=keepdims), out)



def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002  NumPy's name
    """``numpy.linalg.norm``: ``npuarray.linalg.norm`` (integers in float64,
    NumPy's errors), a scalar ``x`` uploaded first."""
    return linalg.norm(as_device(x, "norm"), ord, axis, keepdims)
