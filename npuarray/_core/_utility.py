"""Utility functions of the array API standard (all, any, diff) on aclnn operators.

``diff`` is composed on the device: views of ``x`` shifted by one along the
axis, subtracted with aclnnSub (bool: compared with aclnnNeTensor, as NumPy
and the standard), ``n`` times.

``all`` and ``any`` reduce with aclnnAll / aclnnAny on the current stream of
``x``'s device. ``axis`` is None (all axes), an int or a tuple of ints
(negative values count from the end); ``keepdims`` keeps reduced axes as length
1. Bad axes raise ``numpy.exceptions.AxisError`` (a ValueError and IndexError),
repeated axes ValueError.
"""
import numpy as np

from . import _array_type, _data_type, _ops
from ._data_type import BOOL
from ._elementwise import dtype_kind, not_equal, subtract
from ._manipulation import concat
from ._operator_table import operator_dtypes
from ._statistical import axis_slice, check_array, reduced_shape, normalize_axes

__all__ = ["all", "any", "diff"]

# Dtypes CANN documents for aclnnAll and aclnnAny (hicann/ops-math
# math/reduce_all/docs/aclnnAll.md, math/reduce_any/docs/aclnnAny.md).
_ALL_ANY = operator_dtypes("aclnnAll")


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Whether every element of ``x`` over ``axis`` is true (non-zero; NaN is
    true) → bool array (array API ``all``, ``numpy.all``): aclnnAll. Over no
    elements the result is True. Any dtype: those aclnnAll lacks (uint16-64,
    complex) are first tested against zero with aclnnNeScalar."""
    return _truth_reduction("all", "aclnnAll", x, axis, keepdims, empty_value=True)


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001  array API name
    """Whether some element of ``x`` over ``axis`` is true (non-zero; NaN is
    true) → bool array (array API ``any``, ``numpy.any``): aclnnAny. Over no
    elements the result is False. Any dtype, as ``all``."""
    return _truth_reduction("any", "aclnnAny", x, axis, keepdims, empty_value=False)


def _truth_reduction(name, op, x, axis, keepdims, *, empty_value):
    check_array(name, x)
    axes = normalize_axes(axis, len(x._shape), name)
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, BOOL, device, stream)
    if 0 in shape:
        return out
    if 0 in x._shape:  # a reduction over no elements
        return _ops.fill_(out, empty_value, stream=stream)
    if not axes or x._dtype not in _ALL_ANY or dtype_kind(x._dtype) == "c":
        x = not_equal(x, 0)
        if not axes:
            return _ops.copy_(out, x, stream=stream)
    _ops.launch(op, x, _ops.acl_int_array(axes), keepdims, out, stream=stream)
    return out



def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The ``n``-th forward difference of ``x`` along ``axis`` (array API ``diff``,
    ``numpy.diff``): ``out[i] = x[i+1] - x[i]`` (aclnnSub; for bool
    ``x[i+1] != x[i]``, aclnnNeTensor), applied ``n`` times, on the current stream
    of ``x``'s device.

    ``prepend`` / ``append`` (NPUArrays with ``x``'s shape except along ``axis``,
    or Python scalars, broadcast as NumPy does) are joined to ``x`` first
    (aclnnInplaceCopy; dtypes promote as in ``concat``). The result has
    ``x``'s (promoted) dtype and M + N1 + N2 - n elements along ``axis``
    (none when ``n`` exceeds that length); ``n=0`` returns ``x``. Raises
    ValueError for 0-d input or negative ``n``, TypeError for a non-int ``n``
    or ``axis``, AxisError (a ValueError and IndexError) for a bad axis."""
    check_array("diff", x)
    if not x._shape:
        raise ValueError("diff() requires an input of at least one dimension")
    for name, value in (("axis", axis), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"diff(): {name} must be an int, got {value!r}")
    if n < 0:
        raise ValueError(f"diff(): order n must be non-negative, got {n}")
    (dim,) = normalize_axes(int(axis), len(x._shape), "diff")
    if n == 0:
        return x
    if prepend is not None or append is not None:
        x = concat([_edge(x, dim, part) for part in (prepend, x, append) if part is not None],
                   axis=dim)
    difference = not_equal if x._dtype == BOOL else subtract
    for _ in range(n):
        length = x._shape[dim]
        if length == 0:
            break
        x = difference(axis_slice(x, dim, 1, length), axis_slice(x, dim, 0, length - 1))
    return x


def _edge(x, dim, part):
    """``part`` of ``diff``'s input as an array: a Python scalar becomes a
    length-1 slab along ``dim`` (NumPy broadcasts it so)."""
    if isinstance(part, _array_type.NPUArray):
        return part
    if isinstance(part, (bool, int, float, complex, np.generic)):
        dtype = _data_type.result_type(x, part)
        shape = tuple(1 if i == dim else n for i, n in enumerate(x._shape))
        slab = _ops.empty(shape, dtype, x._buffer.device, _ops.stream_of(x))
        return _ops.fill_(slab, part.item() if isinstance(part, np.generic) else part)
    raise TypeError(f"diff(): prepend and append must be NPUArrays or Python scalars, got "
                    f"{type(part).__name__}")
