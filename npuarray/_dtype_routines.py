"""NumPy's data-type routines and scalar-type names (``numpy.dtype``,
``promote_types``, ``issubdtype``, ``min_scalar_type``, ``common_type``,
``mintypecode``, ``typename``; ``numpy.int_``, ``double``, ``floating``, ...).

As CuPy does, the names are NumPy's own objects, so ``x.dtype == npx.double``
and ``npx.issubdtype(x.dtype, npx.floating)`` mean what they mean in NumPy.
Only the numeric scalar types npuarray arrays can hold are exported, with the
abstract types of NumPy's hierarchy; ``longdouble``, strings, ``object_`` and
datetimes have no device dtype. bfloat16 (ml_dtypes) counts as a floating type
here, as in ``npuarray.isdtype``, and promotes as ``npuarray.result_type``
does (NEP 50). These functions read dtypes only: nothing runs on a device, save
``min_scalar_type`` of a 0-d NPUArray, which reads its one value (an implicit
transfer, governed by ``transfer_guard``).
"""
from functools import reduce

import numpy as np

from ._core._data_type import BFLOAT16, normalize_dtype
from ._core._data_type import promote_types as _promote_supported
from ._operands import is_array

__all__ = ["dtype", "promote_types", "issubdtype", "min_scalar_type", "common_type",
           "mintypecode", "typename",
           "bool_", "True_", "False_", "byte", "ubyte", "short", "ushort", "intc", "uintc",
           "int_", "uint", "long", "ulong", "longlong", "ulonglong", "intp", "uintp", "half",
           "single", "double", "csingle", "cdouble", "generic", "number", "integer",
           "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating",
           "character", "flexible"]

dtype = np.dtype
bool_, True_, False_ = np.bool_, np.True_, np.False_
byte, ubyte, short, ushort, intc, uintc = np.byte, np.ubyte, np.short, np.ushort, np.intc, np.uintc
int_, uint, long, ulong = np.int_, np.uint, np.long, np.ulong
longlong, ulonglong, intp, uintp = np.longlong, np.ulonglong, np.intp, np.uintp
half, single, double, csingle, cdouble = np.half, np.single, np.double, np.csingle, np.cdouble
generic, number, integer, inexact = np.generic, np.number, np.integer, np.inexact
signedinteger, unsignedinteger = np.signedinteger, np.unsignedinteger
floating, complexfloating, character, flexible = (np.floating, np.complexfloating,
                                                  np.character, np.flexible)


def promote_types(type1, type2):
    """The smallest dtype both ``type1`` and ``type2`` cast to safely
    (``numpy.promote_types``): NumPy's table, with bfloat16 promoting as
    ``npuarray.result_type`` has it (``bfloat16 + float16 -> float32``).
    Raises TypeError (NumPy's ``DTypePromotionError``) when there is none."""
    type1, type2 = np.dtype(type1), np.dtype(type2)
    if BFLOAT16 in (type1, type2):
        return _promote_supported(normalize_dtype(type1), normalize_dtype(type2))
    return np.promote_types(type1, type2)


def issubdtype(arg1, arg2):
    """True if ``arg1`` is ``arg2`` or below it in NumPy's type hierarchy
    (``numpy.issubdtype``); bfloat16 is a ``floating`` type (a ``numpy.floating``
    subtype in all but name, as ``npuarray.isdtype`` treats it)."""
    if _is_bfloat16(arg1) and isinstance(arg2, type) and issubclass(arg2, np.generic):
        return arg2 in (np.floating, np.inexact, np.number, np.generic) or _is_bfloat16(arg2)
    return np.issubdtype(arg1, arg2)


def _is_bfloat16(dtype_like):
    try:
        return np.dtype(dtype_like) == BFLOAT16
    except TypeError:
        return False


def min_scalar_type(a, /):
    """The smallest dtype that holds the value ``a`` (``numpy.min_scalar_type``).

    For an NPUArray of one or more dimensions: its dtype, as NumPy's for
    arrays. For a 0-d NPUArray the value is read on the host (an implicit
    transfer: refused under ``transfer_guard("disallow")``)."""
    if is_array(a):
        if a.ndim:
            return a.dtype
        if a.dtype == BFLOAT16:
            return a.dtype
        a = a.item()
    return np.min_scalar_type(a)


def common_type(*arrays):
    """The inexact scalar type common to ``arrays`` (``numpy.common_type``):
    integers count as float64, float16 stays half, complex wins; with no
    arrays, ``numpy.half``. Takes NPUArrays (and NumPy arrays); a bool or
    non-numeric array raises TypeError, as NumPy's."""
    dtypes = []
    for a in arrays:
        kind = "f" if a.dtype == BFLOAT16 else a.dtype.kind
        if kind in "iu":
            dtypes.append(np.dtype(np.float64))
        elif kind in "fc":
            dtypes.append(a.dtype)
        else:
            raise TypeError("can't get common type for non-numeric array")
    if not dtypes:
        return np.half
    return reduce(promote_types, dtypes).type


_BY_SIZE = "GDFgdfQqLlIiHhBb?"  # NumPy's type characters, largest first


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """The character of the smallest-size type in ``typeset`` among
    ``typechars`` (``numpy.mintypecode``): type characters or arrays
    (NPUArrays give their dtype's character, with no transfer); ``default`` if
    none is in ``typeset``; 'F' with 'd' gives 'D'."""
    codes = {t if isinstance(t, str) else _typechar(t) for t in typechars}
    intersection = {t for t in codes if t in typeset}
    if not intersection:
        return default
    if "F" in intersection and "d" in intersection:
        return "D"
    return min(intersection, key=_BY_SIZE.index)


def _typechar(t):
    return t.dtype.char if is_array(t) or isinstance(t, np.ndarray) else np.asarray(t).dtype.char


def typename(char):
    """The description of the type character ``char`` (``numpy.typename``):
    ``typename('d') == 'double precision'``; KeyError for an unknown one."""
    return np.typename(char)
