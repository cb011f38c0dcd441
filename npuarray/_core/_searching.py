"""Searching functions of the array API on the device: argmax, argmin, nonzero,
count_nonzero, searchsorted (``where`` lives with the element-wise functions).

aclnnArgMax / aclnnArgMin reduce one dimension and return int64 indices; with
``axis=None`` the array is searched flattened (C order), as NumPy does.
nonzero runs aclnnNonzero, whose result length depends on the data: the
current stream is synchronised once and the length read with aclGetViewShape.
"""
import numpy as np

from . import _array_type, _data_type, _elementwise, _ops, _statistical, _transfer
from ._shape import c_strides
from ._data_type import BOOL
from ._elementwise import dtype_kind, check_dtype_supported
from ._operator_table import operator_dtypes
from ._statistical import normalize_axes, uint64_order_keys

__all__ = ["argmax", "argmin", "nonzero", "count_nonzero", "searchsorted"]

_INDEX = np.dtype(np.int64)
_ARG = operator_dtypes("aclnnArgMax")


def _flat(x, stream):
    """``x`` as a 1-D C-order view (a contiguous copy first when needed)."""
    if not x.is_c_contiguous():
        x = _ops.copy(x, stream=stream)
    size = 1
    for n in x._shape:
        size *= n
    return type(x)._from_buffer(x._buffer, (size,), (1,), x._offset, x._dtype)


# Memoised launches of arg-extrema on an array the operator takes as it is (see
# _statistical._plans): (op, dtype, shape, axis, keepdims) -> (result shape, the operator's
# arguments between self and out, then for a flattened search (axis None) the C-order strides
# the input must have and its 1-D shape, else None, None).
_plans = {}
_PLAN_CACHE_SIZE = 512


def _run_plan(op, plan, x):
    """The arg-extremum of ``x`` that ``plan`` describes, in one call of the operator's C
    helper (``_ops.reduction_result``), or None when that does not apply (a capture, a
    view that is not C-contiguous for a flattened search, ...): the caller goes on."""
    shape, params, strides, flat_shape = plan
    if strides is None:
        return _ops.reduction_result(x, op, params, shape, _INDEX)
    if x._strides != strides:
        return None
    flat = type(x)._from_buffer(x._buffer, flat_shape, (1,), x._offset, x._dtype)
    out = _ops.reduction_result(flat, op, params, (), _INDEX)
    if out is None or not shape:
        return out
    # keepdims: the index viewed with a length-1 axis for each of x's
    return type(out)._from_buffer(out._buffer, shape, c_strides(shape), 0, _INDEX)


def _remember(key, plan):
    if len(_plans) >= _PLAN_CACHE_SIZE:
        _plans.clear()
    _plans[key] = plan


def _arg_extremum(name, op, x, axis, keepdims):
    key = None
    if (axis is None or type(axis) is int) and \
            isinstance(x, _array_type.NPUArray):
        key = (op, x._dtype, x._shape, axis, bool(keepdims))
        plan = _plans.get(key)
        if plan is not None:
            out = _run_plan(op, plan, x)
            if out is not None:
                return out
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")
    if dtype_kind(x._dtype) == "c":
        raise TypeError(f"{name}() does not support complex dtype {x._dtype}")
    if x._dtype == np.uint64:  # no uint64 kernel: int64 keys in the same order
        x = uint64_order_keys(x)
        key = None  # two launches: nothing to memoise
    ndim = len(x._shape)
    if axis is not None and not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{name}(): axis must be an int or None, got {axis!r}")
    device = x._buffer.device
    stream = _ops.get_current_stream(device)
    compute = np.dtype(np.uint8) if x._dtype == BOOL else check_dtype_supported(x._dtype, _ARG, name)
    if axis is None:
        if 0 in x._shape:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        source, dim = _flat(x, stream), 0
        shape = (1,) * ndim if keepdims else ()
    else:
        (dim,) = normalize_axes(int(axis), ndim, name)
        if x._shape[dim] == 0:
            raise ValueError(f"attempt to get {name} of an empty sequence")
        source = x
        shape = tuple(1 if i == dim else n for i, n in enumerate(x._shape)) if keepdims \
            else tuple(n for i, n in enumerate(x._shape) if i != dim)
    out = _ops.empty(shape, _INDEX, device, stream)
    if 0 in shape:
        return out
    if source._dtype != compute:
        source = _ops.cast(source, compute, stream=stream)
    elif key is not None and source is x:
        _remember(key, (shape, (dim, bool(keepdims)), None, None))
    elif key is not None and source._buffer is x._buffer \
            and x._strides == c_strides(x._shape):  # flattened, no copy
        _remember(key, (shape, (0, False), x._strides, source._shape))
    # The kernel's out has the shape of its own reduction; keepdims for a
    # flattened search is a reshape of the 0-d result.
    target = out if axis is not None else \
        type(out)._from_buffer(out._buffer, (), (), 0, _INDEX)
    _ops.launch(op, source, dim, axis is not None and keepdims, target, stream=stream)
    return out


def argmax(x, /, *, axis=None, keepdims=False):
    """Indices (int64) of the maxima of ``x`` along ``axis`` (array API ``argmax``,
    ``numpy.argmax``): aclnnArgMax. ``axis=None`` searches the flattened array;
    the first occurrence wins; uint64 is searched through order-preserving int64
    keys (aclnnAdds). Empty input raises ValueError, complex TypeError."""
    return _arg_extremum("argmax", "aclnnArgMax", x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    """Indices (int64) of the minima of ``x`` along ``axis`` (array API ``argmin``,
    ``numpy.argmin``): aclnnArgMin. Same rules as ``argmax``."""
    return _arg_extremum("argmin", "aclnnArgMin", x, axis, keepdims)


# ---------------------------------------------------------------------------
# nonzero, count_nonzero, searchsorted

# aclnnNonzero takes every real dtype (hicann/ops-nn index/non_zero/docs/aclnnNonzero.md);
# complex inputs are tested against zero first.
_SEARCHSORTED = operator_dtypes("aclnnSearchSorted")


def _check_array(name, x):
    if not isinstance(x, _array_type.NPUArray):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")


def nonzero(x, /):
    """Indices of the non-zero elements of ``x`` (array API ``nonzero``,
    ``numpy.nonzero``): a tuple of ``x.ndim`` int64 arrays of shape ``(n,)``, in
    C order. Complex elements are non-zero when either part is; bool ones when
    True.

    Runs aclnnNonzero (complex inputs first go through aclnnNeScalar) on the
    current stream of ``x``'s device, which is then synchronised once to read
    the data-dependent ``n`` (aclGetViewShape). A 0-d ``x`` raises ValueError;
    a non-NPUArray TypeError.
    """
    _check_array("nonzero", x)
    if not x._shape:
        raise ValueError("nonzero() of a 0-d array is not defined; use x[None] or "
                         "x.reshape(1) to get an explicit 1-d result")
    for hook in _transfer.host_read_hooks:
        hook("nonzero (a data-dependent shape)")
    device = x._buffer.device
    stream = _ops.current_stream(device)
    ndim, size = len(x._shape), x.size
    if dtype_kind(x._dtype) == "c":
        x = _elementwise.not_equal(x, 0)
    out = _ops.empty((size, ndim), _INDEX, device, stream)
    count = 0
    if size:
        _ops.launch("aclnnNonzero", x, out, stream=stream)
        stream.synchronize()
        count = _ops.view_shape(out)[0]
    rows = type(out)._from_buffer(out._buffer, (count, ndim), (ndim, 1), 0, _INDEX)
    if 2 * count < size:  # release the unused bulk of the maximum-size buffer
        rows = _ops.copy(rows, stream=stream)
    return tuple(rows[:, axis] for axis in range(ndim))


def count_nonzero(x, /, *, axis=None, keepdims=False):
    """Number of non-zero elements of ``x`` over ``axis`` (array API
    ``count_nonzero``, ``numpy.count_nonzero``) as int64 (the default index dtype):
    aclnnNeScalar against 0 (bool inputs are used as they are), then aclnnReduceSum,
    on the current stream. ``axis`` is None, an int or a tuple of ints; bad axes
    raise ``numpy.exceptions.AxisError`` (a ValueError and IndexError)."""
    _check_array("count_nonzero", x)
    normalize_axes(axis, len(x._shape), "count_nonzero")  # bad axes fail before any work
    mask = x if x._dtype == BOOL else _elementwise.not_equal(x, 0)
    return _statistical.sum(mask, axis=axis, keepdims=keepdims, dtype=_INDEX)


def _search_dtype(x1, x2):
    """The dtype searchsorted compares in: the promoted dtype of ``x1`` and ``x2``,
    widened to one aclnnSearchSorted supports (bool as uint8)."""
    dtype = _data_type.result_type(x1, x2)
    if dtype_kind(dtype) == "c":
        raise TypeError(f"searchsorted() does not support complex dtype {dtype}: complex "
                        f"numbers have no order")
    if dtype == BOOL:
        return np.dtype(np.uint8)
    if dtype == _UINT64:
        return dtype  # searched as order-preserving int64 keys (_uint64_keys)
    return check_dtype_supported(dtype, _SEARCHSORTED, "searchsorted")


_UINT64 = np.dtype(np.uint64)
_INT64_MIN = -(1 << 63)


def _uint64_keys(x):
    """int64 keys in the order of the uint64 values of ``x``: the same bits minus
    2**63 (aclnnAdds wraps modulo 2**64), since aclnnSearchSorted has no uint64
    kernel."""
    bits = type(x)._from_buffer(x._buffer, x._shape, x._strides, x._offset, _INDEX)
    return _elementwise.add(bits, _INT64_MIN)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion indices (int64, the shape of ``x2``) that keep the 1-D ``x1``
    sorted (array API ``searchsorted``, ``numpy.searchsorted``): aclnnSearchSorted
    on the current stream, both operands in their promoted dtype.

    ``x2`` is an NPUArray or a Python int/float (a 0-d result). ``side="left"``
    gives the first suitable index, ``"right"`` the last; ``sorter`` (integer
    indices, the shape of ``x1``) sorts an unsorted ``x1``. NaN sorts last, as in
    ``sort``. TypeError for non-arrays and complex; ValueError for a bad
    ``side``, an ``x1`` that is not 1-D or a ``sorter`` of the wrong shape.
    """
    _check_array("searchsorted", x1)
    if len(x1._shape) != 1:
        raise ValueError(f"searchsorted(): x1 must be 1-D, got shape {x1._shape}")
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted(): side must be 'left' or 'right', got {side!r}")
    is_array = isinstance(x2, type(x1))
    if not is_array and (isinstance(x2, bool) or not isinstance(x2, (int, float))):
        raise TypeError(f"searchsorted(): x2 must be an NPUArray or a Python int or float, "
                        f"got {type(x2).__name__}")
    device = _elementwise.same_device("searchsorted", x1, x2) if is_array else x1._buffer.device
    stream = _ops.current_stream(device)
    compute = _search_dtype(x1, x2)
    if not is_array:
        _data_type.check_scalar_fits(x2, compute)
        x2 = _elementwise.full_scalar(x2, compute, device, stream)
    if compute == _UINT64:
        x1, x2, compute = _uint64_keys(x1), _uint64_keys(x2), _INDEX
    if sorter is not None:
        sorter = _check_sorter(sorter, x1, stream)
    out = _ops.empty(x2._shape, _INDEX, device, stream)
    if 0 in x2._shape:
        return out
    _ops.launch("aclnnSearchSorted", _elementwise.as_dtype(x1, compute, stream),
                _elementwise.as_dtype(x2, compute, stream), False, side == "right", sorter,
                out, stream=stream)
    return out


def _check_sorter(sorter, x1, stream):
    _check_array("searchsorted", sorter)
    _elementwise.same_device("searchsorted", x1, sorter)
    if dtype_kind(sorter._dtype) not in "iu":
        raise TypeError(f"searchsorted(): sorter must have an integer dtype, got "
                        f"{sorter._dtype}")
    if sorter._shape != x1._shape:
        raise ValueError(f"searchsorted(): sorter has shape {sorter._shape}, x1 "
                         f"{x1._shape}: they must match")
    return _elementwise.as_dtype(sorter, _INDEX, stream)
