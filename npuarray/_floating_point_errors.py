"""NumPy's floating-point error handling (``numpy.seterr``, ``geterr``,
``seterrcall``, ``geterrcall``, ``errstate``), as NumPy's own objects.

They govern what NumPy does on the host, which includes npuarray's host
paths (the host fallbacks listed by ``npuarray.show_config()``, ``vectorize``
on host copies). Device operators follow IEEE 754 without traps, as CUDA's do
for CuPy: a division by zero gives inf, an invalid operation NaN, and no
setting makes them warn or raise. Scripts written as ``with
np.errstate(divide="ignore"):`` therefore run unchanged with ``npx``.
"""
import numpy as np

__all__ = ["seterr", "geterr", "seterrcall", "geterrcall", "errstate"]

seterr, geterr, seterrcall, geterrcall, errstate = (np.seterr, np.geterr, np.seterrcall,
                                                    np.geterrcall, np.errstate)
