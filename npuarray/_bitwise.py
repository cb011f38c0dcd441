"""Bit-twiddling functions (NumPy's chapter): element-wise bit operations on integer
and boolean arrays (aclnnBitwiseAnd/Or/Xor/Not, aclnnLeftShift / aclnnRightShift), on
the current stream of the operands' device; ``bitwise_count``, ``packbits`` and
``unpackbits`` composed of them (and aclnnNeScalar, aclnnCast, aclnnMul, aclnnReduceSum),
nothing read on the host.
"""
import numpy as np

from ._core import _elementwise as ew
from ._core import _manipulation
from ._core._creation import zeros
from ._core._elementwise import multiply, not_equal
from ._core._manipulation import astype, concat, moveaxis, reshape
from ._core._shape import normalize_axis_tuple
from ._core._statistical import sum as _sum
from ._core._transfer import asarray

from ._core._elementwise import (bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                                 bitwise_right_shift, bitwise_xor)
from ._operands import as_device, with_ufunc_out

__all__ = ["bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor"]


# -- NumPy's names of the same operations; population count ----------------------------------

__all__ += ["invert", "bitwise_not", "left_shift", "right_shift", "bitwise_count"]

invert = bitwise_not = bitwise_invert
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift


@with_ufunc_out
def bitwise_count(x, /):
    """The number of 1 bits in the absolute value of each element
    (``numpy.bitwise_count``): bool and integer NPUArrays (TypeError otherwise),
    result uint8 of ``x``'s shape.

    On the device: aclnnAbs, aclnnCast to the unsigned type of the same width,
    then the classic parallel bit count (aclnnRightShift, aclnnBitwiseAndScalar,
    aclnnSub, aclnnAdd) on the current stream.
    """
    x = as_device(x, "bitwise_count")
    if x.dtype.kind not in "biu":
        raise TypeError(f"ufunc 'bitwise_count' not supported for the input type {x.dtype}")
    if x.dtype.kind == "b":
        return _manipulation.astype(x, np.uint8)
    if x.dtype.kind == "i":
        x = _manipulation.astype(ew.abs(x), np.dtype(f"u{x.dtype.itemsize}"))
    width = x.dtype.itemsize * 8
    mask = (1 << width) - 1
    fives, threes, ohfs = (mask // 3, mask // 5, mask // 17)  # 0x55.., 0x33.., 0x0f..
    x = ew.subtract(x, bitwise_and(bitwise_right_shift(x, 1), fives))  # never below 0
    x = ew.add(bitwise_and(x, threes), bitwise_and(bitwise_right_shift(x, 2), threes))
    x = bitwise_and(ew.add(x, bitwise_right_shift(x, 4)), ohfs)
    shift = 8
    while shift < width:
        x = ew.add(x, bitwise_right_shift(x, shift))
        shift *= 2
    return _manipulation.astype(bitwise_and(x, 0xFF), np.uint8)


# -- packing bits into bytes ---------------------------------------------------------------

__all__ += ["packbits", "unpackbits"]


def _bit_weights(bitorder, device):
    """The value of each of a byte's 8 bits, most significant first for 'big'."""
    _order(bitorder)
    weights = np.array([128, 64, 32, 16, 8, 4, 2, 1], dtype=np.uint8)
    return asarray(weights if bitorder == "big" else weights[::-1].copy(), device=device)


def _along_last(a, axis):
    """``a`` flattened (axis=None) or with ``axis`` moved last, and how to undo it."""
    if axis is None:
        return reshape(a, (-1,)), None
    (axis,) = normalize_axis_tuple(axis, a.ndim)
    return moveaxis(a, axis, -1), axis


def packbits(a, /, axis=None, bitorder="big"):
    """Pack the truth of each element of ``a`` into the bits of uint8 bytes
    (``numpy.packbits``).

    ``a``: bool or integer NPUArray (TypeError otherwise). ``axis``: the axis
    packed (None flattens first); its length ``n`` becomes ``ceil(n / 8)``,
    the last byte padded with zero bits. ``bitorder``: 'big' (first element in
    the most significant bit) or 'little' (ValueError otherwise). Returns uint8.
    On the device: aclnnNeScalar and aclnnCast give 0/1 bytes, aclnnMul weighs
    them and aclnnReduceSum adds each group of 8, on the current stream.
    """
    a = as_device(a, "packbits")
    if a.dtype.kind not in "biu":
        raise TypeError("Expected an input array of integer or boolean data type")
    weights = _bit_weights(bitorder, a.device)
    if a.ndim == 0 and axis is not None:
        raise np.exceptions.AxisError(axis, 0)
    bits, axis = _along_last(astype(not_equal(a, 0), np.uint8), axis)
    n = bits.shape[-1]
    padding = -n % 8
    if padding:
        bits = concat([bits, zeros(bits.shape[:-1] + (padding,), dtype=np.uint8,
                                   device=a.device)], axis=-1)
    groups = reshape(bits, bits.shape[:-1] + ((n + padding) // 8, 8))
    packed = astype(_sum(multiply(groups, weights), axis=-1), np.uint8)
    return packed if axis is None else moveaxis(packed, -1, axis)


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """Unpack each uint8 of ``a`` into 8 elements of 0 or 1
    (``numpy.unpackbits``).

    ``a``: uint8 NPUArray (TypeError otherwise). ``axis``: the axis unpacked
    (None flattens first); its length ``n`` becomes ``8 n``. ``count``: keep
    the first ``count`` bits (zero-padded past ``8 n``); a negative count drops
    ``-count`` bits from the end (ValueError when more than ``8 n``).
    ``bitorder``: 'big' or 'little'. Returns uint8. On the device:
    aclnnRightShift by each bit's position and aclnnBitwiseAndScalar with 1,
    on the current stream.
    """
    a = as_device(a, "unpackbits")
    if a.dtype != np.uint8:
        raise TypeError("Expected an input array of unsigned byte data type")
    if a.ndim == 0 and axis is not None:
        raise np.exceptions.AxisError(axis, 0)
    shifts = np.arange(7, -1, -1, dtype=np.uint8)
    shifts = asarray(shifts if _order(bitorder) == "big" else shifts[::-1].copy(),
                     device=a.device)
    packed, axis = _along_last(a, axis)
    bits = bitwise_and(bitwise_right_shift(reshape(packed, packed.shape + (1,)), shifts), 1)
    bits = reshape(bits, packed.shape[:-1] + (packed.shape[-1] * 8,))
    bits = _count_bits(bits, count)
    return bits if axis is None else moveaxis(bits, -1, axis)


def _order(bitorder):
    if bitorder not in ("big", "little"):
        raise ValueError("'order' must be either 'little' or 'big'")
    return bitorder


def _count_bits(bits, count):
    """The first ``count`` of ``bits`` along the last axis, as NumPy's count=."""
    if count is None:
        return bits
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)):
        raise TypeError(f"count must be an integer or None, got {type(count).__name__}")
    count = int(count)
    total = bits.shape[-1]
    keep = count if count >= 0 else total + count
    if keep < 0:
        raise ValueError("-count larger than number of elements")
    if keep <= total:
        return bits[..., :keep]
    return concat([bits, zeros(bits.shape[:-1] + (keep - total,), dtype=np.uint8,
                               device=bits.device)], axis=-1)
