"""Constants of the array API standard: e, inf, nan, newaxis, pi.

Python floats (and ``None`` for ``newaxis``), as the standard's "Constants"
chapter specifies; they mirror ``numpy.e``, ``numpy.inf``, ... .
"""
import math

__all__ = ["e", "inf", "nan", "newaxis", "pi"]

e = math.e
"""Euler's constant, the base of natural logarithms (Python float)."""

inf = math.inf
"""IEEE 754 positive infinity (Python float)."""

nan = math.nan
"""IEEE 754 Not a Number (Python float)."""

newaxis = None
"""An alias for ``None``: in an index, inserts an axis of size 1."""

pi = math.pi
"""The ratio of a circle's circumference to its diameter (Python float)."""

# NumPy's constant beyond the standard's.
__all__ += ["euler_gamma"]

euler_gamma = 0.577215664901532860606512090082402431
"""The Euler-Mascheroni constant γ (Python float, ``numpy.euler_gamma``)."""
