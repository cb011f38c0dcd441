"""Bit-twiddling functions (NumPy's chapter): element-wise bit operations on integer
and boolean arrays (aclnnBitwiseAnd/Or/Xor/Not, aclnnLeftShift / aclnnRightShift), on
the current stream of the operands' device.
"""

from ._core._elementwise import (bitwise_and, bitwise_invert, bitwise_left_shift, bitwise_or,
                                 bitwise_right_shift, bitwise_xor)

__all__ = ["bitwise_and", "bitwise_invert", "bitwise_left_shift", "bitwise_or",
           "bitwise_right_shift", "bitwise_xor"]
