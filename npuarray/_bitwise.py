"""Bit-twiddling functions (NumPy's chapter): element-wise bit operations on integer
and boolean arrays (aclnnBitwiseAnd/Or/Xor/Not, aclnnLeftShift / aclnnRightShift), on
the current stream of the operands' device; ``bitwise_count`` composed of them.
"""
import numpy as np

from ._core import _creation, _manipulation
from ._core import _elementwise as ew

from ._core._elementwise import (bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                                 bitwise_right_shift, bitwise_xor)
from ._operands import as_device, with_ufunc_out

__all__ = ["bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor"]


# -- NumPy's names of the same operations; population count ----------------------------------

__all__ += ["invert", "bitwise_not", "left_shift", "right_shift", "bitwise_count"]

invert = bitwise_not = bitwise_invert
left_shift, right_shift = bitwise_left_shift, bitwise_right_shift


def _byte_popcount(b):
    """Set bits of each int32 value in [0, 256): the SWAR steps
    ``b - (b >> 1 & 0x55)``, pairs of two, nibbles (aclnnRightShift, aclnnBitwiseAnd,
    aclnnSub, aclnnAdd)."""
    b = ew.subtract(b, bitwise_and(bitwise_right_shift(b, 1), 0x55))
    b = ew.add(bitwise_and(b, 0x33), bitwise_and(bitwise_right_shift(b, 2), 0x33))
    return bitwise_and(ew.add(b, bitwise_right_shift(b, 4)), 0x0F)


@with_ufunc_out
def bitwise_count(x, /):
    """Number of 1 bits in ``|x|`` of each integer element, as uint8
    (``numpy.bitwise_count``): ``|x|`` read as the unsigned type of its size
    (aclnnAbs, no copy), split into bytes by ``% 256`` and ``// 256``
    (aclnnRemainderTensor, aclnnFloorDivide) and each byte's bits counted
    (aclnnRightShift, aclnnBitwiseAnd, aclnnAdd). Bool counts as 0 / 1;
    TypeError for floating and complex input, as NumPy."""
    x = as_device(x, "bitwise_count")
    if x.dtype.kind not in "biu":
        raise TypeError(f"ufunc 'bitwise_count' not supported for the input types ({x.dtype}), "
                        f"and the inputs could not be safely coerced to any supported types "
                        f"according to the casting rule ''safe''")
    if x.dtype.kind == "b":
        return _manipulation.astype(x, np.uint8)
    if x.dtype.kind == "i":
        x = ew.bits_as(ew.abs(x), np.dtype(f"u{x.dtype.itemsize}"))
    if x.dtype.itemsize == 1:
        return _manipulation.astype(_byte_popcount(_manipulation.astype(x, np.int32)), np.uint8)
    count = _creation.zeros(x.shape, dtype=np.int32, device=x.device)
    for _ in range(x.dtype.itemsize):
        low = _manipulation.astype(ew.remainder(x, 256), np.int32)
        count = ew.add(count, _byte_popcount(low))
        x = ew.floor_divide(x, 256)
    return _manipulation.astype(count, np.uint8)
