"""Data types of npuarray: the array API set plus float16 and bfloat16.

Dtypes are NumPy dtypes (bfloat16 from ml_dtypes), so ``x.dtype == npx.float32``
and ``x.dtype == numpy.float32`` both hold and host copies need no conversion.

Type promotion follows the array API standard within a kind (bool, signed and
unsigned integers, real and complex floating point) and NumPy across kinds
(where the standard leaves the choice to the implementation): ``int8 + uint8 ->
int16``, ``uint64 + int64 -> float64``, ``int32 + float32 -> float64``.
bfloat16 joins the float lattice as PyTorch has it: ``bfloat16 + float16 ->
float32``, integers promote with bfloat16 as NumPy promotes them with float16.
Python scalars are weak (array API, NEP 50): they take the array's dtype when
their kind fits it.
"""
import builtins
from functools import reduce

import ml_dtypes
import numpy as np

__all__ = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
           "uint64", "float16", "bfloat16", "float32", "float64", "complex64",
           "complex128", "result_type", "can_cast", "finfo", "iinfo", "isdtype"]

# Scalar types, exported as the public dtype names (array API data types; they
# compare equal to the NumPy dtypes that arrays carry and construct scalars).
bool = np.bool_  # noqa: A001  the array API name
int8, int16, int32, int64 = np.int8, np.int16, np.int32, np.int64
uint8, uint16, uint32, uint64 = np.uint8, np.uint16, np.uint32, np.uint64
float16, float32, float64 = np.float16, np.float32, np.float64
bfloat16 = ml_dtypes.bfloat16
complex64, complex128 = np.complex64, np.complex128

BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
FLOAT16, FLOAT32, FLOAT64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
COMPLEX64, COMPLEX128 = np.dtype(np.complex64), np.dtype(np.complex128)
BOOL = np.dtype(np.bool_)

default_float = FLOAT64
default_int = np.dtype(np.int64)
default_complex = COMPLEX128
default_index = default_int

# aclDataType values (docs/acl-abi.md §2.2; CANN acl_base.h).
_ACL_DTYPES = {
    np.dtype(np.float32): 0, np.dtype(np.float16): 1, np.dtype(np.int8): 2,
    np.dtype(np.int32): 3, np.dtype(np.uint8): 4, np.dtype(np.int16): 6,
    np.dtype(np.uint16): 7, np.dtype(np.uint32): 8, np.dtype(np.int64): 9,
    np.dtype(np.uint64): 10, np.dtype(np.float64): 11, BOOL: 12,
    COMPLEX64: 16, COMPLEX128: 17, BFLOAT16: 27,
}
SUPPORTED_DTYPES = tuple(_ACL_DTYPES)
_FROM_ACL = {code: dtype for dtype, code in _ACL_DTYPES.items()}

_PYTHON_TYPES = {builtins.bool: BOOL, int: default_int, float: default_float,
                 complex: default_complex}


def normalize_dtype(dtype_like):
    """The supported ``numpy.dtype`` for ``dtype_like``.

    Accepts NumPy dtypes and scalar types, ml_dtypes.bfloat16, dtype names
    (``"float32"``, ``"bfloat16"``) and the Python types bool, int (int64),
    float (float64) and complex (complex128). Byte order is normalised to native.
    Raises TypeError for ``None`` and for anything outside the supported set
    (object, strings, datetimes, float128, structured dtypes, ...).
    """
    if isinstance(dtype_like, np.dtype) and dtype_like in _ACL_DTYPES:
        return dtype_like
    if dtype_like is None:
        raise TypeError("a dtype is required, got None")
    if isinstance(dtype_like, type) and dtype_like in _PYTHON_TYPES:
        return _PYTHON_TYPES[dtype_like]
    try:
        dtype = np.dtype(dtype_like)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"not a data type: {dtype_like!r}") from exc
    if dtype.byteorder not in "=|":
        dtype = dtype.newbyteorder("=")
    if dtype not in _ACL_DTYPES:
        raise TypeError(f"npuarray does not support dtype {dtype} (supported: "
                        f"{', '.join(str(d) for d in SUPPORTED_DTYPES)})")
    return dtype


def to_acl_dtype(dtype):
    """The aclDataType value (int) of a supported dtype; TypeError otherwise."""
    try:
        return _ACL_DTYPES[dtype]
    except (KeyError, TypeError):
        return _ACL_DTYPES[normalize_dtype(dtype)]


def from_acl_dtype(code):
    """The numpy dtype of an aclDataType value; TypeError for types npuarray lacks."""
    try:
        return _FROM_ACL[code]
    except KeyError:
        raise TypeError(f"aclDataType {code} has no npuarray dtype") from None


def is_floating(dtype):
    """True for float16, bfloat16, float32 and float64."""
    return dtype.kind == "f" or dtype == BFLOAT16


def _kind(dtype):
    """'b' bool, 'i' signed, 'u' unsigned, 'f' real floating, 'c' complex."""
    return "f" if dtype == BFLOAT16 else dtype.kind


def _promote_with_bfloat16(other):
    kind = _kind(other)
    if other == BFLOAT16:
        return BFLOAT16
    if other == FLOAT16:
        return FLOAT32
    if kind in "fc":
        return other
    as_half = np.promote_types(other, FLOAT16)  # integers and bool: bf16 plays float16
    return BFLOAT16 if as_half == FLOAT16 else as_half


def promote_types(a, b):
    """Promotion of two supported dtypes (see the module docstring)."""
    if a == b:
        return a
    if a == BFLOAT16:
        return _promote_with_bfloat16(b)
    if b == BFLOAT16:
        return _promote_with_bfloat16(a)
    return np.promote_types(a, b)


def _complex_of(dtype):
    return COMPLEX128 if dtype == FLOAT64 else COMPLEX64


def scalar_result_type(dtype, value):
    """Dtype of ``array(dtype) <op> value`` for a Python scalar ``value`` (weak).

    bool scalars keep any dtype; int scalars keep integer and floating dtypes
    (bool arrays become int64); float scalars keep floating and complex dtypes
    (integer and bool arrays become float64); complex scalars keep complex
    dtypes and turn real floating dtypes into the matching complex one.
    """
    kind = _kind(dtype)
    if isinstance(value, builtins.bool):
        return dtype
    if isinstance(value, int):
        return default_int if kind == "b" else dtype
    if isinstance(value, float):
        return default_float if kind in "biu" else dtype
    if isinstance(value, complex):
        if kind == "c":
            return dtype
        return default_complex if kind in "biu" else _complex_of(dtype)
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def check_scalar_fits(value, dtype):
    """OverflowError when the Python int ``value`` does not fit integer ``dtype``
    (NumPy 2 raises the same instead of wrapping around)."""
    if isinstance(value, int) and not isinstance(value, builtins.bool) \
            and _kind(dtype) in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise OverflowError(f"Python integer {value} out of bounds for {dtype}")


def _is_python_scalar(obj):
    return isinstance(obj, (builtins.bool, int, float, complex))


def _dtype_of(obj):
    dtype = getattr(obj, "dtype", None)
    if dtype is not None and not isinstance(obj, type):
        return normalize_dtype(dtype)
    return normalize_dtype(obj)


def result_type(*arrays_and_dtypes):
    """Dtype that results from combining arrays, dtypes and Python scalars.

    Mirrors ``array_api.result_type`` / ``numpy.result_type`` with the rules of
    the module docstring (computed on the host; no device work). Python scalars
    are weak; with no array or dtype at all, they give the default dtypes.
    Raises TypeError for unsupported dtypes and when nothing is passed.
    """
    dtypes = [_dtype_of(a) for a in arrays_and_dtypes if not _is_python_scalar(a)]
    scalars = [a for a in arrays_and_dtypes if _is_python_scalar(a)]
    if not dtypes and not scalars:
        raise TypeError("result_type() needs at least one array or dtype")
    if dtypes:
        dtype = reduce(promote_types, dtypes)
    else:
        dtype = _PYTHON_TYPES[type(scalars[0])]
        scalars = scalars[1:]
    for value in scalars:
        dtype = scalar_result_type(dtype, value)
    return dtype


def can_cast(from_, to, /):
    """True when ``from_`` (dtype or array) promotes to ``to`` without loss
    (array API ``can_cast``: the promotion of the two is ``to``)."""
    src, dst = _dtype_of(from_), normalize_dtype(to)
    return src == dst or promote_types(src, dst) == dst


class finfo_object:
    """Machine limits of a floating dtype (array API ``finfo_object``): ``bits``
    (int), ``eps``, ``max``, ``min``, ``smallest_normal`` (Python floats; ``tiny``
    is NumPy's name for the last) and ``dtype``, the real floating dtype they
    describe (float32 for complex64, as ``numpy.finfo``)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, limits, dtype):
        self.bits = int(limits.bits)
        self.eps = float(limits.eps)
        self.max = float(limits.max)
        self.min = float(limits.min)
        self.smallest_normal = float(limits.smallest_normal)
        self.dtype = dtype

    @property
    def tiny(self):
        """``smallest_normal`` (NumPy's name)."""
        return self.smallest_normal

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """Machine limits of an integer dtype (array API ``iinfo_object``): ``bits``,
    ``max`` and ``min`` (Python ints) and ``dtype``."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, limits, dtype):
        self.bits = int(limits.bits)
        self.max = int(limits.max)
        self.min = int(limits.min)
        self.dtype = dtype

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


_REAL_OF_COMPLEX = {COMPLEX64: FLOAT32, COMPLEX128: FLOAT64}


def finfo(type, /):  # noqa: A002  array API signature
    """Machine limits of a floating dtype, or of an array's dtype (array API
    ``finfo``; ``numpy.finfo``, ml_dtypes for bfloat16): a ``finfo_object`` of
    Python numbers. A complex dtype gives the limits of its real parts. Computed
    on the host. Raises TypeError for non-floating or unsupported dtypes."""
    dtype = _dtype_of(type)
    if _kind(dtype) not in "fc":
        raise TypeError(f"finfo needs a floating dtype, got {dtype}")
    real = _REAL_OF_COMPLEX.get(dtype, dtype)
    limits = ml_dtypes.finfo(real) if real == BFLOAT16 else np.finfo(real)
    return finfo_object(limits, real)


def iinfo(type, /):  # noqa: A002  array API signature
    """Machine limits of an integer dtype, or of an array's dtype (array API
    ``iinfo``; ``numpy.iinfo``): an ``iinfo_object`` of Python ints. Computed on
    the host. Raises TypeError for non-integer or unsupported dtypes."""
    dtype = _dtype_of(type)
    if _kind(dtype) not in "iu":
        raise TypeError(f"iinfo needs an integer dtype, got {dtype}")
    return iinfo_object(np.iinfo(dtype), dtype)


_KIND_NAMES = {
    "bool": "b", "signed integer": "i", "unsigned integer": "u",
    "integral": "iu", "real floating": "f", "complex floating": "c",
    "numeric": "iufc",
}


def isdtype(dtype, kind):
    """Array API ``isdtype``: whether ``dtype`` is of ``kind`` (a dtype, one of
    "bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric", or a tuple of those). TypeError otherwise."""
    dtype = normalize_dtype(dtype)
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, str):
        if kind not in _KIND_NAMES:
            raise ValueError(f"unknown dtype kind {kind!r}; expected one of "
                             f"{', '.join(_KIND_NAMES)}")
        return _kind(dtype) in _KIND_NAMES[kind]
    return dtype == normalize_dtype(kind)
