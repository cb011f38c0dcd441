"""Utility functions of the array API standard (all, any, diff) on aclnn operators.

``all`` and ``any`` reduce with aclnnAll / aclnnAny on the current stream of
``x``'s device. ``axis`` is None (all axes), an int or a tuple of ints
(negative values count from the end); ``keepdims`` keeps reduced axes as length
1. Bad axes raise ``numpy.exceptions.AxisError`` (a ValueError and IndexError),
repeated axes ValueError.
"""
from . import _ops
from ._data_type import BOOL
from ._elementwise import _dtypes_of, _kind, not_equal
from ._statistical import _check_array, _reduced_shape, normalize_axes

__all__ = ["all", "any"]

# Dtypes CANN documents for aclnnAll and aclnnAny (hicann/ops-math
# math/reduce_all/docs/aclnnAll.md, math/reduce_any/docs/aclnnAny.md).
_ALL_ANY = _dtypes_of("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
                      "int64", "uint8", "bool")


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
    _check_array(name, x)
    axes = normalize_axes(axis, len(x._shape), name)
    device = x._buffer.device
    stream = _ops.current_stream(device)
    shape = _reduced_shape(x._shape, axes, keepdims)
    out = _ops.empty(shape, BOOL, device, stream)
    if 0 in shape:
        return out
    if 0 in x._shape:  # a reduction over no elements
        return _ops.fill_(out, empty_value, stream=stream)
    if not axes or x._dtype not in _ALL_ANY or _kind(x._dtype) == "c":
        x = not_equal(x, 0)
        if not axes:
            return _ops.copy_(out, x, stream=stream)
    _ops.launch(op, x, _ops.acl_int_array(axes), keepdims, out, stream=stream)
    return out

