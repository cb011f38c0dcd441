"""Element-wise functions of the array API, computed on the device by aclnn operators.

Each function mirrors the array API / NumPy function of the same name and runs
on the current stream of its operands' device. Arguments are NPUArrays or
Python scalars (and NumPy scalars, which keep their dtype); at least one must
be an NPUArray. Type promotion follows ``npuarray._core._data_type`` (array API rules;
Python scalars are weak), shapes broadcast as in NumPy.

Where CANN's operator lacks the promoted dtype, the inputs are cast on the
device (aclnnCast) to the nearest wider dtype it supports and the result is
cast back, which gives NumPy's wrap-around for integers; where no wider dtype
exists the function raises TypeError naming the dtype. Nothing is computed on
the host.

Errors: TypeError (unsupported dtype or operand type), ValueError (shapes that
do not broadcast, arrays on different devices), OverflowError (a Python int
that does not fit the integer dtype of an arithmetic operation, as NumPy 2).
"""
import builtins
import functools

import numpy as np

from . import _array_type, _data_type, _manipulation, _ops, _transfer
from ._data_type import BFLOAT16, BOOL
from ._operator_table import INPUT_DTYPES, operator_dtypes
from ._shape import broadcast_shapes

__all__ = ["add", "subtract", "multiply", "divide", "pow", "floor_divide", "remainder",
           "negative", "positive", "abs", "exp", "log", "sqrt", "equal", "not_equal",
           "greater", "greater_equal", "less", "less_equal", "maximum", "minimum",
           "logical_and", "logical_or", "logical_not", "where",
           "isnan", "isfinite"]
# Unary functions of the array API 2025.12 (section "Unary functions" below).
__all__ += ["acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh",
            "tan", "tanh", "expm1", "log1p", "log2", "log10", "reciprocal", "ceil", "floor",
            "round", "trunc", "sign", "signbit", "square", "isinf", "conj", "real", "imag"]


# ---------------------------------------------------------------------------
# Dtypes (each operator's: operator_dtypes, from the operator table kernels/aclnn_dtypes.tsv)

# The next wider dtype that holds every value (integers: modulo the narrower
# width once cast back), tried when an operator lacks a dtype.
_WIDER = {np.dtype(a): np.dtype(b) for a, b in [
    ("bool", "uint8"), ("int8", "int16"), ("uint8", "int16"), ("int16", "int32"),
    ("uint16", "int32"), ("int32", "int64"), ("uint32", "int64"), ("float16", "float32"),
    ("float32", "float64"), ("complex64", "complex128")]}
_WIDER[BFLOAT16] = np.dtype("float32")

# numpy's float result for integer and bool inputs of exp, log, sqrt.
_FLOAT_OF = {np.dtype(a): np.dtype(b) for a, b in [
    ("bool", "float16"), ("int8", "float16"), ("uint8", "float16"), ("int16", "float32"),
    ("uint16", "float32"), ("int32", "float64"), ("uint32", "float64"),
    ("int64", "float64"), ("uint64", "float64")]}


def dtype_kind(dtype):
    """'b' bool, 'i' signed, 'u' unsigned, 'f' real floating, 'c' complex."""
    return "f" if dtype == BFLOAT16 else dtype.kind


_UINT64, _INT64 = np.dtype(np.uint64), np.dtype(np.int64)


def check_dtype_supported(dtype, supported, name, *, modular=False):
    """``dtype`` or the nearest wider dtype in ``supported``; TypeError if none.

    ``modular`` operations (+, -, *, negation: their low bits depend only on the
    operands' low bits) may compute uint64 in int64, which has the same bits.
    """
    if modular and dtype == _UINT64 and _INT64 in supported:
        return _INT64
    compute = dtype
    while compute not in supported:
        compute = _WIDER.get(compute)
        if compute is None:
            raise TypeError(f"{name}() does not support dtype {dtype}: the aclnn "
                            f"operator has no {dtype} kernel nor a wider one")
    return compute


@functools.lru_cache(maxsize=None)
def promote(a, b):
    return _data_type.promote_types(a, b)


def is_array(x):
    return isinstance(x, _array_type.NPUArray)


def defers_to(other):
    """Whether NPUArray's binary operators return NotImplemented for ``other``: an
    array of another library (it has ``__array_ufunc__``, ``__array_function__`` or
    ``__array_namespace__``, as Dask arrays do) that is neither an NPUArray nor a
    NumPy array or scalar, which npuarray refuses with its own TypeError."""
    if is_array(other) or isinstance(other, (np.ndarray, np.generic)):
        return False
    kind = type(other)
    return (hasattr(kind, "__array_ufunc__") or hasattr(kind, "__array_function__")
            or hasattr(kind, "__array_namespace__"))


def same_device(name, *arrays):
    """The device shared by ``arrays``; ValueError naming both when they differ."""
    device = arrays[0]._buffer.device
    for x in arrays[1:]:
        if x._buffer.device != device:
            raise ValueError(f"{name}(): arrays are on different devices: {device} and "
                             f"{x._buffer.device}; move one with to_device()")
    return device


def scalar_operand(name, value):
    """(Python value, dtype or None) of a scalar operand: NumPy scalars keep their
    dtype (strong), Python scalars have none (weak). TypeError otherwise."""
    if isinstance(value, np.generic):
        return value.item(), _data_type.normalize_dtype(value.dtype)
    if isinstance(value, (builtins.bool, int, float, complex)):
        return value, None
    raise TypeError(f"{name}() operands must be NPUArrays or Python scalars, got "
                    f"{type(value).__name__} (upload host data with npuarray.asarray)")


def as_dtype(x, dtype, stream):
    """``x``, or its copy cast to ``dtype`` (aclnnCast on ``stream``) when it differs."""
    return x if x._dtype == dtype else _ops.cast(x, dtype, stream=stream)


def full_scalar(value, dtype, device, stream):
    """A 0-d array holding ``value``, for operators without a scalar variant."""
    out = _ops.empty((), dtype, device, stream)
    _ops.fill_(out, value, stream=stream)
    return out


def _is_empty(shape):
    return 0 in shape


# The signed integer dtype of each unsigned one's width, for operations on bits.
_SIGNED_OF = {np.dtype(u): np.dtype(i) for u, i in [
    ("uint8", "int8"), ("uint16", "int16"), ("uint32", "int32"), ("uint64", "int64")]}
_UNSIGNED_OF = {i: u for u, i in _SIGNED_OF.items()}


def bits_as(x, dtype):
    """The view of ``x``'s memory as ``dtype`` of the same item size (the same
    bits read as another type, like ``ndarray.view``): no copy, no launch."""
    return type(x)._from_buffer(x._buffer, x._shape, x._strides, x._offset, dtype)


# ---------------------------------------------------------------------------
# Binary functions

class _Binary:
    """How one binary function maps onto aclnn operators.

    ``op`` takes two tensors; ``scalar_op`` computes ``x op scalar`` and
    ``reflected_op`` ``scalar op x`` (``scalar_first``: it takes the scalar as
    its first argument). ``kinds`` are the dtype kinds accepted; ``result`` is
    "same", "bool" (comparisons, logical) or "float" (true division).
    ``same_bits`` operations (bitwise, logical) depend only on the operands'
    bits: an unsigned dtype the operator lacks is computed as the signed dtype
    of the same width by reinterpreting the memory, with no cast. ``inplace_op``
    computes ``x op= y`` in x's memory (aclnnInplaceAdd ...).
    """

    def __init__(self, name, op, supported, kinds, *, scalar_op=None, reflected_op=None,
                 scalar_supported=None, scalar_first=False, alpha=False, result="same",
                 modular=False, same_bits=False, inplace_op=None):
        self.name, self.op, self.supported, self.kinds = name, op, supported, kinds
        self.inplace_op = inplace_op  # x <op>= y on x's memory (same dtypes as op)
        self.modular, self.same_bits = modular, same_bits
        self.scalar_op, self.reflected_op = scalar_op, reflected_op
        self.scalar_supported = scalar_supported or supported
        self.scalar_first, self.alpha, self.result = scalar_first, alpha, result
        self._plans = {}
        self._alphas = {}
        # (dtype, dtype) of two array operands -> (alpha, result dtype) when the
        # operator takes them as they are (the fast path), else False.
        self._direct = {}
        # (float or int, array dtype, reflected) -> the scalar fast path's entry, else False.
        self._scalar_direct = {}
        # The public function's body: its common case in C (as NPUArray's operators), the
        # rest in _general, the one Python path.
        self.call = _ops.fast_binary_operator(op, self._direct, self._scalar_direct,
                                              self._named(self._general))
        self.operator = self._named(self._general_or_defer)

    def _alpha(self, dtype):
        """The aclScalar 1 of ``dtype`` (alpha of Add / Sub), made once."""
        alpha = self._alphas.get(dtype)
        if alpha is None:
            alpha = self._alphas[dtype] = _ops.acl_scalar(1, dtype)
        return alpha

    def plan(self, dtype):
        """(computation dtype, result dtype) for operands promoted to ``dtype``."""
        plan = self._plans.get(dtype)
        if plan is None:
            if dtype_kind(dtype) not in self.kinds:
                raise TypeError(f"{self.name}() does not support dtype {dtype}")
            out = dtype
            if self.result == "float" and dtype_kind(dtype) in "biu":
                out = _data_type.default_float
            signed = _SIGNED_OF.get(out) if self.same_bits else None
            if out not in self.supported and signed in self.supported:
                compute = signed
            else:
                compute = check_dtype_supported(out, self.supported, self.name, modular=self.modular)
            plan = self._plans[dtype] = (compute, BOOL if self.result == "bool" else out)
        return plan

    def _named(self, path):
        """``path`` as the function ``(x1, x2) -> result`` named after this plan (the
        C operators and ufuncs show its name, docstring and signature)."""
        def call(x1, x2):
            return path(x1, x2)
        call.__name__ = call.__qualname__ = self.name
        call.__doc__ = (f"``{self.name}(x1, x2)``: the array API function (see "
                        f"``npuarray.{self.name}``), also NPUArray's operator.")
        return call

    def _general_or_defer(self, x1, x2):
        """``_general``, or NotImplemented when ``x2`` is another library's array, so
        that Python asks it (``dask_array.__radd__``), as NumPy's operators do."""
        if defers_to(x2):
            return NotImplemented
        return self._general(x1, x2)

    def _scalar_direct_plan(self, kind, dtype, reflected):
        """The ``_scalar_direct`` entry of an array of ``dtype`` with a Python
        scalar of type ``kind`` (float or int) on the right (or the left when
        ``reflected``), made once: (operator, alpha, result dtype, dtype, lowest
        and highest int that fit, scalar first), or False when the general path
        has something to do (a cast, a wider dtype, no scalar operator, pow's
        checks of integer powers); the bounds send ints that do not fit ``dtype``
        there too."""
        op = self.reflected_op if reflected else self.scalar_op
        direct = False
        try:
            compute, out_dtype = self.plan(dtype)
            promoted = _data_type.scalar_result_type(dtype, kind(1))
        except (TypeError, ValueError):
            promoted = None
        if promoted == dtype and op is not None \
                and (self.name != "pow" or dtype_kind(dtype) in "fc") \
                and compute == dtype and compute in self.scalar_supported \
                and (self.result == "bool" or out_dtype == compute):
            low, high = (np.iinfo(dtype).min, np.iinfo(dtype).max) if dtype_kind(dtype) in "iu" \
                else (-np.inf, np.inf)
            direct = (op, self._alpha(compute) if self.alpha else None, out_dtype, compute,
                      low, high, reflected and self.scalar_first)
        self._scalar_direct[(kind, dtype, reflected)] = direct
        return direct

    def __call__(self, x1, x2):
        return self.call(x1, x2)

    def _general(self, x1, x2):
        array_type = _array_type.NPUArray
        self._file_direct_plan(x1, x2)
        x1, x2 = (_transfer.implicit_upload(v, f"{self.name}()")
                  if isinstance(v, (np.ndarray, list, tuple)) else v for v in (x1, x2))
        if isinstance(x1, array_type):
            if isinstance(x2, array_type):
                return self.arrays(x1, x2)
            return self.with_scalar(x1, x2, reflected=False)
        if isinstance(x2, array_type):
            return self.with_scalar(x2, x1, reflected=True)
        raise TypeError(f"{self.name}() needs an NPUArray operand, got "
                        f"{type(x1).__name__} and {type(x2).__name__}")

    def _file_direct_plan(self, x1, x2):
        """Files the plan of these operands' types for the C fast path (``_direct`` for
        two NPUArrays, ``_scalar_direct`` for one and a Python float or int) the first
        time they are seen: C runs only plans this Python path has made."""
        array_type = _array_type.NPUArray
        if type(x1) is array_type:
            if type(x2) is array_type:
                if (x1._dtype, x2._dtype) not in self._direct:
                    self._direct_plan(x1._dtype, x2._dtype)
                return
            array, value, reflected = x1, x2, False
        elif type(x2) is array_type:
            array, value, reflected = x2, x1, True
        else:
            return
        kind = type(value)
        if (kind is float or kind is int) \
                and (kind, array._dtype, reflected) not in self._scalar_direct:
            self._scalar_direct_plan(kind, array._dtype, reflected)

    def _direct_plan(self, dtype1, dtype2):
        """The ``_direct`` entry of two array dtypes, made once; False also when
        they do not promote or the function refuses them (the general path
        raises the error)."""
        try:
            dtype = dtype1 if dtype1 == dtype2 else promote(dtype1, dtype2)
            compute, out_dtype = self.plan(dtype)
        except (TypeError, ValueError):
            return False
        direct = False  # (comparisons: bool results of operands taken as they are)
        if (compute is out_dtype or self.result == "bool") \
                and self._takes_as_they_are(dtype1, dtype2, compute):
            direct = (self._alpha(compute) if self.alpha else None, out_dtype)
        self._direct[(dtype1, dtype2)] = direct
        return direct

    def _takes_as_they_are(self, dtype1, dtype2, compute):
        """Whether one launch of the operator on operands of these dtypes computes
        NumPy's result in ``compute``: both of ``compute``, or mixed dtypes it
        takes (float64 - int32) that convert exactly to ``compute`` when CANN's
        own promotion (the higher kind's dtype, as torch's: float32 with int32 is
        float32 there) gives ``compute`` too, so no aclnnCast is launched."""
        if dtype1 == compute and dtype2 == compute:
            return True
        if self.same_bits or dtype1 not in self.supported or dtype2 not in self.supported:
            return False
        kinds = ["biufc".index(dtype_kind(d)) for d in (dtype1, dtype2)]
        operator_dtype = promote(dtype1, dtype2) if kinds[0] == kinds[1] \
            else (dtype1, dtype2)[kinds[1] > kinds[0]]
        return operator_dtype == compute and BFLOAT16 not in (dtype1, dtype2) \
            and np.can_cast(dtype1, compute, "safe") and np.can_cast(dtype2, compute, "safe")

    def arrays(self, x1, x2):
        device = x1._buffer.device
        if x2._buffer.device is not device:
            device = same_device(self.name, x1, x2)
        dtype = x1._dtype if x1._dtype is x2._dtype else promote(x1._dtype, x2._dtype)
        compute, out_dtype = self._plans.get(dtype) or self.plan(dtype)
        shape = x1._shape if x1._shape == x2._shape else broadcast_shapes(x1._shape, x2._shape)
        stream = _ops.current_stream(device)
        out = _ops.empty(shape, out_dtype, device, stream)
        if 0 in shape:
            return out
        if self._direct.get((x1._dtype, x2._dtype)):  # mixed dtypes the operator takes
            return self._run(self.op, (x1, x2), compute, out, stream)
        a, b = self._convert(x1, compute, stream), self._convert(x2, compute, stream)
        return self._run(self.op, (a, b), compute, out, stream)

    def _convert(self, x, compute, stream):
        """``x`` in the computation dtype: its bits reinterpreted for ``same_bits``
        operations on same-width integers, else cast (aclnnCast)."""
        if self.same_bits and x._dtype.itemsize == compute.itemsize and x._dtype.kind in "iu":
            return bits_as(x, compute)
        return as_dtype(x, compute, stream)

    def with_scalar(self, x, value, *, reflected):
        value, strong = scalar_operand(self.name, value)
        if strong is not None:
            dtype = promote(x._dtype, strong)
        else:
            dtype = _data_type.scalar_result_type(x._dtype, value)
        compute, out_dtype = self.plan(dtype)
        if self.name == "pow" and not reflected and dtype_kind(dtype) in "iu" and value < 0:
            raise ValueError("Integers to negative integer powers are not allowed.")
        compute = self._fit_scalar(value, dtype, compute)
        if dtype_kind(dtype) == "u" and dtype_kind(compute) == "i" and compute.itemsize == dtype.itemsize \
                and value >= 1 << (8 * compute.itemsize - 1):
            value -= 1 << (8 * compute.itemsize)  # unsigned as same-width signed: same bits
        device = x._buffer.device
        stream = _ops.current_stream(device)
        out = _ops.empty(x._shape, out_dtype, device, stream)
        if _is_empty(x._shape):
            return out
        op = self.reflected_op if reflected else self.scalar_op
        if op is None or compute not in self.scalar_supported:
            other = full_scalar(value, compute, device, stream)
            operands = (other, self._convert(x, compute, stream)) if reflected else \
                (self._convert(x, compute, stream), other)
            return self._run(self.op, operands, compute, out, stream)
        scalar = _ops.acl_scalar(value, compute)
        xc = self._convert(x, compute, stream)
        operands = (scalar, xc) if reflected and self.scalar_first else (xc, scalar)
        return self._run(op, operands, compute, out, stream)

    def _fit_scalar(self, value, dtype, compute):
        """The computation dtype for a Python int ``value`` with an array of
        ``dtype``: comparisons widen to int64 (or float64) when ``value`` does
        not fit, as NumPy 2 does; true division computes in floating point, where
        every int is a value (NumPy 2: int8 / 1000 is float64); other arithmetic
        raises OverflowError."""
        if not isinstance(value, int) or isinstance(value, builtins.bool) \
                or dtype_kind(dtype) not in "iu" or self.result == "float":
            return compute
        info = np.iinfo(dtype)
        if info.min <= value <= info.max:
            return compute
        if self.result != "bool":
            _data_type.check_scalar_fits(value, dtype)
        fits_int64 = -2**63 <= value < 2**63 and dtype != np.uint64
        return check_dtype_supported(np.dtype(np.int64 if fits_int64 else np.float64), self.supported,
                          self.name)

    def _run(self, op, operands, compute, out, stream):
        target = out
        if self.result != "bool" and out._dtype != compute:
            if self.same_bits and out._dtype.itemsize == compute.itemsize:
                target = bits_as(out, compute)
            else:
                target = _ops.empty(out._shape, compute, out._buffer.device, stream)
        if self.alpha:
            _ops.launch(op, *operands, self._alpha(compute), target, stream=stream)
        else:
            _ops.launch(op, *operands, target, stream=stream)
        if target._buffer is not out._buffer:
            _ops.copy_(out, target, stream=stream)
        return out


_NUMERIC = "biufc"
_BINARY = {spec.name: spec for spec in [
    _Binary("add", "aclnnAdd", INPUT_DTYPES["aclnnAdd"], _NUMERIC, scalar_op="aclnnAdds",
            reflected_op="aclnnAdds", alpha=True, modular=True, inplace_op="aclnnInplaceAdd"),
    _Binary("subtract", "aclnnSub", INPUT_DTYPES["aclnnSub"], "iufc", scalar_op="aclnnSubs",
            reflected_op="aclnnRsubs", scalar_supported=INPUT_DTYPES["aclnnRsubs"], alpha=True,
            modular=True, inplace_op="aclnnInplaceSub"),
    _Binary("multiply", "aclnnMul", INPUT_DTYPES["aclnnMul"], _NUMERIC, scalar_op="aclnnMuls",
            reflected_op="aclnnMuls", modular=True, inplace_op="aclnnInplaceMul"),
    _Binary("divide", "aclnnDiv", INPUT_DTYPES["aclnnDiv"], _NUMERIC, scalar_op="aclnnDivs",
            result="float", inplace_op="aclnnInplaceDiv"),
    _Binary("floor_divide", "aclnnFloorDivide", INPUT_DTYPES["aclnnFloorDivide"], "iuf",
            scalar_op="aclnnFloorDivides"),
    _Binary("remainder", "aclnnRemainderTensorTensor",
            INPUT_DTYPES["aclnnRemainderTensorTensor"], "iuf",
            scalar_op="aclnnRemainderTensorScalar", reflected_op="aclnnRemainderScalarTensor",
            scalar_first=True),
    _Binary("pow", "aclnnPowTensorTensor", INPUT_DTYPES["aclnnPowTensorTensor"], "iufc",
            scalar_op="aclnnPowTensorScalar", reflected_op="aclnnPowScalarTensor",
            scalar_first=True),
    _Binary("equal", "aclnnEqTensor", INPUT_DTYPES["aclnnEqTensor"], _NUMERIC,
            scalar_op="aclnnEqScalar", reflected_op="aclnnEqScalar", result="bool"),
    _Binary("not_equal", "aclnnNeTensor", INPUT_DTYPES["aclnnNeTensor"], _NUMERIC,
            scalar_op="aclnnNeScalar", reflected_op="aclnnNeScalar", result="bool"),
    _Binary("greater", "aclnnGtTensor", INPUT_DTYPES["aclnnGtTensor"], "biuf",
            scalar_op="aclnnGtScalar", reflected_op="aclnnLtScalar", result="bool"),
    _Binary("greater_equal", "aclnnGeTensor", INPUT_DTYPES["aclnnGeTensor"], "biuf",
            scalar_op="aclnnGeScalar", reflected_op="aclnnLeScalar",
            scalar_supported=INPUT_DTYPES["aclnnLeScalar"], result="bool"),
    _Binary("less", "aclnnLtTensor", INPUT_DTYPES["aclnnLtTensor"], "biuf",
            scalar_op="aclnnLtScalar", reflected_op="aclnnGtScalar", result="bool"),
    _Binary("less_equal", "aclnnLeTensor", INPUT_DTYPES["aclnnLeTensor"], "biuf",
            scalar_op="aclnnLeScalar", reflected_op="aclnnGeScalar", result="bool"),
    _Binary("maximum", "aclnnMaximum", INPUT_DTYPES["aclnnMaximum"], "biuf"),
    _Binary("minimum", "aclnnMinimum", INPUT_DTYPES["aclnnMinimum"], "biuf"),
    _Binary("logical_and", "aclnnLogicalAnd", INPUT_DTYPES["aclnnLogicalAnd"], _NUMERIC,
            result="bool", same_bits=True),
    _Binary("logical_or", "aclnnLogicalOr", INPUT_DTYPES["aclnnLogicalOr"], _NUMERIC,
            result="bool", same_bits=True),
]}


def plan_of(name):
    """The plan (``_Binary``) of the binary function ``name``: its aclnn operator
    ``op`` and the tables of its C fast path, for ufunc objects built on it."""
    return _BINARY[name]


def binary_operator(name):
    """The callable ``(x1, x2) -> name(x1, x2)`` of the binary function ``name``
    whose public function is its plan alone (add, subtract, multiply, divide and
    the comparisons): NPUArray's operators are bound to it. (A function, not
    the plan object: as a class attribute a function receives the array first.)
    Unlike the public function it returns NotImplemented for another library's
    array (``defers_to``). Its common case runs in C (``_ops.fast_binary_operator``)."""
    plan = _BINARY[name]
    return _ops.fast_binary_operator(plan.op, plan._direct, plan._scalar_direct, plan.operator)


def reflected_operator(name, fallback):
    """NPUArray's reflected operator of the binary function ``name`` (``__radd__``
    for "add"): ``scalar <op> x`` for a Python float or int in C when it can
    (``_ops.fast_binary_operator``), else ``fallback``, the Python operator."""
    plan = _BINARY[name]
    return _ops.fast_binary_operator(plan.op, plan._direct, plan._scalar_direct, fallback,
                                     mode="reflected")


def scalar_operator(name, fallback, mode):
    """NPUArray's operator (``mode`` "forward" or "reflected") of the binary function
    ``name`` whose public function checks arrays before its plan (pow: uint64,
    negative integer exponents): ``x ** 2.0`` for a Python scalar in C when the plan
    takes it as it is (``_scalar_direct``), everything else through ``fallback``."""
    plan = _BINARY[name]
    return _ops.fast_binary_operator(plan.op, {}, plan._scalar_direct, fallback, mode=mode)


def inplace_operator(name, fallback):
    """NPUArray's in-place operator of the binary function ``name`` (``__iadd__``
    for "add"): ``x <op>= y`` for two arrays with the plan's in-place aclnn operator
    in C when it can, else ``fallback``, the Python operator (``inplace``)."""
    plan = _BINARY[name]
    if plan.inplace_op is None:
        return fallback
    return _ops.fast_binary_operator(plan.inplace_op, plan._direct, {}, fallback,
                                     mode="in-place")


def add(x1, x2, /):
    """Element-wise ``x1 + x2`` (array API ``add``, ``numpy.add``).

    aclnnAdd (two arrays) or aclnnAdds (an array and a scalar), alpha = 1, on the
    current stream. Returns a new array of the broadcast shape and promoted dtype.
    """
    return _BINARY["add"].call(x1, x2)


def subtract(x1, x2, /):
    """Element-wise ``x1 - x2`` (array API ``subtract``, ``numpy.subtract``).

    aclnnSub, aclnnSubs (array - scalar) or aclnnRsubs (scalar - array), alpha = 1.
    bool operands raise TypeError, as in NumPy.
    """
    return _BINARY["subtract"].call(x1, x2)


def multiply(x1, x2, /):
    """Element-wise ``x1 * x2`` (array API ``multiply``): aclnnMul / aclnnMuls."""
    return _BINARY["multiply"].call(x1, x2)


def divide(x1, x2, /):
    """Element-wise true division ``x1 / x2`` (array API ``divide``): aclnnDiv /
    aclnnDivs. Integer and bool operands give the default float dtype (float64);
    division by zero gives ±inf / nan (IEEE), as NumPy."""
    return _BINARY["divide"].call(x1, x2)


def floor_divide(x1, x2, /):
    """Element-wise ``x1 // x2`` rounded towards -inf (array API ``floor_divide``,
    NumPy signs): aclnnFloorDivide / aclnnFloorDivides. Real dtypes only.

    Floating infinities follow the standard's special cases (not Python's):
    ``±inf // finite`` is ±inf and ``finite // ±inf`` a signed zero, taken from
    the true quotient (aclnnDiv) where the floor division gives NaN or the
    divisor is infinite. uint64, which aclnnFloorDivide lacks, is computed
    exactly from int64 operations (see ``_uint64_floor_divide``)."""
    if _operands_dtype(x1, x2) == _UINT64:
        return _uint64_floor_divide(*_uint64_operands("floor_divide", x1, x2))
    result = _BINARY["floor_divide"](x1, x2)
    if dtype_kind(result._dtype) != "f" or _is_empty(result._shape):
        return result
    if not is_array(x2) and builtins.abs(x2) == np.inf:
        return divide(x1, x2)   # the quotient is the answer for every x1
    take_quotient = not_equal(result, result)
    if is_array(x2):
        take_quotient = logical_or(take_quotient, equal(abs(x2), np.inf))
    return where(take_quotient, divide(x1, x2), result)


def remainder(x1, x2, /):
    """Element-wise ``x1 % x2`` with the sign of ``x2`` (array API ``remainder``,
    ``numpy.remainder``): aclnnRemainderTensorTensor / TensorScalar / ScalarTensor.
    Real dtypes only. uint64 is ``x1 - (x1 // x2) * x2`` on the device (0 where
    ``x2`` is 0, as NumPy)."""
    if _operands_dtype(x1, x2) == _UINT64:
        a, b = _uint64_operands("remainder", x1, x2)
        return _uint64_remainder(a, b)
    return _BINARY["remainder"].call(x1, x2)


def pow(x1, x2, /):  # noqa: A001  the array API name
    """Element-wise ``x1 ** x2`` (array API ``pow``, ``numpy.power``):
    aclnnPowTensorTensor / aclnnPowTensorScalar / aclnnPowScalarTensor.
    uint64, which they lack, is the int64 power of the same bits (modulo 2**64,
    as NumPy) with exponents >= 2**62 reduced on the device. A negative exponent
    of a signed integer power raises ValueError, as NumPy: an array exponent is
    checked with one device reduction read back (a synchronisation)."""
    dtype = _operands_dtype(x1, x2)
    if dtype == _UINT64:
        return _uint64_pow(*_uint64_operands("pow", x1, x2))
    if dtype is not None and dtype_kind(dtype) == "i" and is_array(x2) and dtype_kind(x2._dtype) == "i":
        _refuse_negative_exponents(x2)
    return _BINARY["pow"].call(x1, x2)


def _refuse_negative_exponents(exponent):
    if _is_empty(exponent._shape):
        return
    for hook in _transfer.host_read_hooks:
        hook("pow() of integers with an integer array exponent (negative exponents are "
             "checked on the host)")
    lowest = exponent
    if exponent._shape:  # aclnnAmin over every axis (signed integers: CANN's dtypes)
        stream = _ops.current_stream(exponent._buffer.device)
        lowest = _ops.empty((), exponent._dtype, exponent._buffer.device, stream)
        _ops.launch("aclnnAmin", exponent, _ops.dims_array(range(len(exponent._shape))),
                    False, lowest, stream=stream)
    if _transfer.to_host(lowest) < 0:
        raise ValueError("Integers to negative integer powers are not allowed.")


def equal(x1, x2, /):
    """Element-wise ``x1 == x2`` → bool array (array API ``equal``): aclnnEqTensor /
    aclnnEqScalar, compared in the promoted dtype."""
    return _BINARY["equal"].call(x1, x2)


def not_equal(x1, x2, /):
    """Element-wise ``x1 != x2`` → bool array (array API ``not_equal``):
    aclnnNeTensor / aclnnNeScalar."""
    return _BINARY["not_equal"].call(x1, x2)


def greater(x1, x2, /):
    """Element-wise ``x1 > x2`` → bool array (array API ``greater``): aclnnGtTensor /
    aclnnGtScalar (aclnnLtScalar for ``scalar > x``). Complex raises TypeError."""
    return _BINARY["greater"].call(x1, x2)


def greater_equal(x1, x2, /):
    """Element-wise ``x1 >= x2`` → bool array (array API ``greater_equal``):
    aclnnGeTensor / aclnnGeScalar (aclnnLeScalar for ``scalar >= x``)."""
    return _BINARY["greater_equal"].call(x1, x2)


def less(x1, x2, /):
    """Element-wise ``x1 < x2`` → bool array (array API ``less``): aclnnLtTensor /
    aclnnLtScalar (aclnnGtScalar for ``scalar < x``)."""
    return _BINARY["less"].call(x1, x2)


def less_equal(x1, x2, /):
    """Element-wise ``x1 <= x2`` → bool array (array API ``less_equal``):
    aclnnLeTensor / aclnnLeScalar (aclnnGeScalar for ``scalar <= x``)."""
    return _BINARY["less_equal"].call(x1, x2)


def maximum(x1, x2, /):
    """Element-wise maximum, NaN propagating (array API ``maximum``,
    ``numpy.maximum``): aclnnMaximum; a scalar operand becomes a 0-d array.
    uint64, which aclnnMaximum lacks, selects with aclnnGeTensor and aclnnSWhere."""
    if _operands_dtype(x1, x2) == _UINT64:
        return where(greater_equal(x1, x2), x1, x2)
    return _BINARY["maximum"].call(x1, x2)


def minimum(x1, x2, /):
    """Element-wise minimum, NaN propagating (array API ``minimum``,
    ``numpy.minimum``): aclnnMinimum; a scalar operand becomes a 0-d array.
    uint64 selects with aclnnLeTensor and aclnnSWhere."""
    if _operands_dtype(x1, x2) == _UINT64:
        return where(less_equal(x1, x2), x1, x2)
    return _BINARY["minimum"].call(x1, x2)


def _operands_dtype(x1, x2):
    """The promoted dtype of two operands (None when neither is an NPUArray; the
    binary function then raises)."""
    if is_array(x1):
        if is_array(x2):
            return x1._dtype if x1._dtype is x2._dtype else promote(x1._dtype, x2._dtype)
        array, scalar = x1, x2
    elif is_array(x2):
        array, scalar = x2, x1
    else:
        return None
    if isinstance(scalar, np.generic):
        return promote(array._dtype, _data_type.normalize_dtype(scalar.dtype))
    if isinstance(scalar, (builtins.bool, int, float, complex)):
        return _data_type.scalar_result_type(array._dtype, scalar)
    return None


def logical_and(x1, x2, /):
    """Element-wise truth ``x1 and x2`` → bool array (array API ``logical_and``;
    any dtype, non-zero is true, as NumPy): aclnnLogicalAnd."""
    return _BINARY["logical_and"].call(x1, x2)


def logical_or(x1, x2, /):
    """Element-wise truth ``x1 or x2`` → bool array (array API ``logical_or``):
    aclnnLogicalOr."""
    return _BINARY["logical_or"].call(x1, x2)


# ---------------------------------------------------------------------------
# Binary functions: bitwise operations and shifts, logical_xor

__all__ += ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_invert",
            "bitwise_left_shift", "bitwise_right_shift", "logical_xor"]


_BINARY.update((spec.name, spec) for spec in [
    _Binary("bitwise_and", "aclnnBitwiseAndTensor", INPUT_DTYPES["aclnnBitwiseAndTensor"], "biu",
            scalar_op="aclnnBitwiseAndScalar", reflected_op="aclnnBitwiseAndScalar",
            same_bits=True),
    _Binary("bitwise_or", "aclnnBitwiseOrTensor", INPUT_DTYPES["aclnnBitwiseOrTensor"], "biu",
            scalar_op="aclnnBitwiseOrScalar", reflected_op="aclnnBitwiseOrScalar", same_bits=True),
    _Binary("bitwise_xor", "aclnnBitwiseXorTensor", INPUT_DTYPES["aclnnBitwiseXorTensor"], "biu",
            scalar_op="aclnnBitwiseXorScalar", reflected_op="aclnnBitwiseXorScalar",
            same_bits=True),
    _Binary("bitwise_left_shift", "aclnnLeftShift", INPUT_DTYPES["aclnnLeftShift"], "iu",
            scalar_op="aclnnLeftShifts"),
    _Binary("bitwise_right_shift", "aclnnRightShift", INPUT_DTYPES["aclnnRightShift"], "iu"),
    _Binary("logical_xor", "aclnnLogicalXor", INPUT_DTYPES["aclnnLogicalXor"], _NUMERIC,
            result="bool", same_bits=True),
])


def bitwise_and(x1, x2, /):
    """Element-wise ``x1 & x2`` of integer or bool operands (array API
    ``bitwise_and``, ``numpy.bitwise_and``): aclnnBitwiseAndTensor /
    aclnnBitwiseAndScalar on the current stream (uint32 / uint64 run as the
    int32 / int64 with the same bits). Floating operands raise TypeError."""
    return _BINARY["bitwise_and"].call(x1, x2)


def bitwise_or(x1, x2, /):
    """Element-wise ``x1 | x2`` of integer or bool operands (array API
    ``bitwise_or``): aclnnBitwiseOrTensor / aclnnBitwiseOrScalar."""
    return _BINARY["bitwise_or"].call(x1, x2)


def bitwise_xor(x1, x2, /):
    """Element-wise ``x1 ^ x2`` of integer or bool operands (array API
    ``bitwise_xor``): aclnnBitwiseXorTensor / aclnnBitwiseXorScalar."""
    return _BINARY["bitwise_xor"].call(x1, x2)


def logical_xor(x1, x2, /):
    """Element-wise truth ``bool(x1) != bool(x2)`` → bool array (array API
    ``logical_xor``; any dtype, non-zero is true, as NumPy): aclnnLogicalXor."""
    return _BINARY["logical_xor"].call(x1, x2)


def bitwise_invert(x, /):
    """Element-wise ``~x`` of an integer or bool array (array API
    ``bitwise_invert``, ``numpy.invert``; ``not`` for bool): aclnnBitwiseNot on
    the current stream, unsigned dtypes it lacks computed on the same bits read
    as the signed dtype of their width. Other dtypes raise TypeError."""
    _unary_array("bitwise_invert", x)
    dtype = x._dtype
    if dtype_kind(dtype) not in "biu":
        raise TypeError(f"bitwise_invert() needs an integer or bool array, got {dtype}")
    compute = dtype if dtype in INPUT_DTYPES["aclnnBitwiseNot"] else _SIGNED_OF[dtype]
    device = x._buffer.device
    stream = _ops.current_stream(device)
    out = _ops.empty(x._shape, dtype, device, stream)
    if not _is_empty(x._shape):
        _ops.launch("aclnnBitwiseNot", bits_as(x, compute), bits_as(out, compute), stream=stream)
    return out


def _shift(name, x1, x2):
    """``name`` (a shift) with NumPy's result for counts that are negative or
    not below the bit width (0, or -1 for negative values shifted right): CANN
    documents neither, so such counts are masked out on the device."""
    if not is_array(x2):
        if not is_array(x1):
            return _BINARY[name](x1, x2)  # raises TypeError: no array operand
        return _shift_by_scalar(name, x1, x2)
    shifted = _BINARY[name](x1, x2)
    width = 8 * shifted._dtype.itemsize
    # One comparison finds both bad counts: read as unsigned, a negative count is >= 2**7.
    counts = bits_as(x2, _UNSIGNED_OF[x2._dtype]) if dtype_kind(x2._dtype) == "i" else x2
    valid = less(counts, width)
    if name == "bitwise_right_shift" and dtype_kind(shifted._dtype) == "i":
        # The sign in every bit: x1 >> (width - 1), the count typed like x2 to keep the dtype.
        sign = _BINARY[name](x1, x2._dtype.type(width - 1)) if is_array(x1) \
            else int(x1) >> (width - 1)
        return where(valid, shifted, sign)
    return where(valid, shifted, 0)


def _shift_by_scalar(name, x, count):
    if type(count) is int and 0 <= count < 8 * x._dtype.itemsize:
        return _BINARY[name](x, count)  # the common case: a count valid for x's dtype
    value, strong = scalar_operand(name, count)
    if not isinstance(value, int):
        raise TypeError(f"{name}() needs an integer shift count, got {type(count).__name__}")
    dtype = promote(x._dtype, strong) if strong is not None else \
        _data_type.scalar_result_type(x._dtype, value)
    _data_type.check_scalar_fits(value, dtype)
    width = 8 * dtype.itemsize
    if 0 <= value < width:
        return _BINARY[name](x, count)
    if name == "bitwise_right_shift" and dtype_kind(dtype) == "i":
        return _BINARY[name](x, type(count)(width - 1))  # the sign in every bit
    out = _BINARY[name](x, type(count)(0))   # the result's dtype and shape, then zeros
    _ops.fill_(out, 0, stream=_ops.stream_of(out))
    return out


def bitwise_left_shift(x1, x2, /):
    """Element-wise ``x1 << x2`` of integer operands (array API
    ``bitwise_left_shift``, ``numpy.left_shift``): aclnnLeftShift /
    aclnnLeftShifts on the current stream. Counts that are negative or not
    below the bit width of the result give 0, as in NumPy (masked on the device
    with aclnnLtScalar and aclnnSWhere). bool and floating operands raise TypeError."""
    return _shift("bitwise_left_shift", x1, x2)


def bitwise_right_shift(x1, x2, /):
    """Element-wise arithmetic ``x1 >> x2`` of integer operands (array API
    ``bitwise_right_shift``, ``numpy.right_shift``): aclnnRightShift on the
    current stream. Counts that are negative or not below the bit width give 0,
    or -1 for negative ``x1``, as in NumPy."""
    return _shift("bitwise_right_shift", x1, x2)



# ---------------------------------------------------------------------------
# clip

__all__ += ["clip"]



def _clip_bound(name, bound, dtype):
    """A scalar bound as a Python number in ``x``'s ``dtype``: integer bounds
    outside the dtype's range are moved to its edge (the standard leaves them
    unspecified; the result is the same), float bounds of integer arrays raise
    TypeError."""
    value, _ = scalar_operand("clip", bound)
    if dtype_kind(dtype) in "iu":
        if not isinstance(value, int):
            raise TypeError(f"clip(): {name}={bound!r} is not an integer, but x has dtype {dtype}")
        info = np.iinfo(dtype)
        return builtins.min(builtins.max(value, int(info.min)), int(info.max))
    if isinstance(value, complex):
        raise TypeError(f"clip(): {name} must be real, got {bound!r}")
    return float(value)


def clip(x, /, min=None, max=None):  # noqa: A002  the array API signature
    """Clamps each element of ``x`` to ``[min, max]`` (array API ``clip``,
    ``numpy.clip``). ``min`` / ``max``: None (no bound), a Python or NumPy
    scalar, or an NPUArray broadcast against ``x`` (cast to ``x.dtype``).

    Returns an array of ``x``'s dtype and the broadcast shape, on the current
    stream of ``x``'s device: scalar bounds run aclnnClamp / aclnnClampMin /
    aclnnClampMax, array bounds aclnnMaximum then aclnnMinimum; uint64, which
    those operators lack, compares and selects (aclnnGe/LeScalar, aclnnSWhere).
    A NaN bound gives NaN (the standard's special cases); where ``min > max``
    the result is ``max``, as NumPy. Raises TypeError for bool or complex ``x``
    and for float bounds of an integer ``x``; ValueError for shapes that do not
    broadcast."""
    _unary_array("clip", x)
    dtype = x._dtype
    if dtype_kind(dtype) not in "iuf":
        raise TypeError(f"clip() needs a real numeric array, got {dtype}")
    if min is None and max is None:
        return _copy(x)
    if is_array(min) or is_array(max):
        return _clip_arrays(x, min, max)
    lo = None if min is None else _clip_bound("min", min, dtype)
    hi = None if max is None else _clip_bound("max", max, dtype)
    if lo != lo or hi != hi:  # a NaN bound: every element is NaN
        out = _copy(x)
        _ops.fill_(out, np.nan, stream=_ops.stream_of(out))
        return out
    if lo is not None and hi is not None and lo > hi:
        lo = hi  # NumPy's max; CANN documents max(min(x, max), min), which would give min
    if dtype == _UINT64:
        return _clip_by_selection(x, lo, hi)
    compute = check_dtype_supported(dtype, INPUT_DTYPES["aclnnClamp"], "clip")
    stream = _ops.stream_of(x)
    out = _ops.empty(x._shape, dtype, x._buffer.device, stream)
    if _is_empty(x._shape):
        return out
    target = out if compute == dtype else _ops.empty(x._shape, compute, x._buffer.device, stream)
    xc = as_dtype(x, compute, stream)
    if lo is not None and hi is not None:
        _ops.launch("aclnnClamp", xc, _ops.acl_scalar(lo, compute), _ops.acl_scalar(hi, compute),
                    target, stream=stream)
    elif lo is not None:
        _ops.launch("aclnnClampMin", xc, _ops.acl_scalar(lo, compute), target, stream=stream)
    else:
        _ops.launch("aclnnClampMax", xc, _ops.acl_scalar(hi, compute), target, stream=stream)
    if target is not out:
        _ops.copy_(out, target, stream=stream)
    return out


def _clip_by_selection(x, lo, hi):
    """clip for dtypes without a clamp operator: compare and select."""
    if lo is not None:
        x = where(less(x, lo), lo, x)
    if hi is not None:
        x = where(greater(x, hi), hi, x)
    return x


def _clip_arrays(x, lo, hi):
    """clip with array bounds: NaN-propagating maximum then minimum, in ``x``'s dtype."""
    dtype = x._dtype
    bounds = []
    for name, bound in (("min", lo), ("max", hi)):
        if is_array(bound):
            same_device("clip", x, bound)
            if dtype_kind(bound._dtype) not in "biuf":
                raise TypeError(f"clip(): {name} must be real, got dtype {bound._dtype}")
            bound = as_dtype(bound, dtype, _ops.stream_of(x))
        elif bound is not None:
            bound = _clip_bound(name, bound, dtype)
        bounds.append(bound)
    if bounds[0] is not None:
        x = maximum(x, bounds[0])
    if bounds[1] is not None:
        x = minimum(x, bounds[1])
    return x


# ---------------------------------------------------------------------------
# Binary floating-point functions: atan2, logaddexp, and the ones CANN has no
# operator for (copysign, hypot, nextafter), composed on the device

__all__ += ["atan2", "logaddexp", "copysign", "hypot", "nextafter"]

# The signed integer dtype with each floating dtype's bits.
_BITS_OF = {np.dtype(f): np.dtype(i) for f, i in [
    ("float16", "int16"), ("float32", "int32"), ("float64", "int64")]}
_BITS_OF[BFLOAT16] = np.dtype(np.int16)
_LN2 = 0.6931471805599453


def _float_operands(name, x1, x2):
    """(a, b, dtype): the operands as NPUArrays of their floating result dtype
    (integers and bool give NumPy's float dtype, e.g. int8 → float16; Python
    scalars become 0-d arrays). TypeError for complex or non-numeric operands."""
    arrays = [x for x in (x1, x2) if is_array(x)]
    if not arrays:
        raise TypeError(f"{name}() needs an NPUArray operand, got {type(x1).__name__} and "
                        f"{type(x2).__name__}")
    for x in (x1, x2):
        if not is_array(x):
            scalar_operand(name, x)
    dtype = _operands_dtype(x1, x2)
    if dtype_kind(dtype) not in "biuf":
        raise TypeError(f"{name}() needs real operands, got dtype {dtype}")
    dtype = _FLOAT_OF.get(dtype, dtype)
    device = same_device(name, *arrays)
    stream = _ops.current_stream(device)
    a, b = (as_dtype(x, dtype, stream) if is_array(x)
            else full_scalar(scalar_operand(name, x)[0], dtype, device, stream) for x in (x1, x2))
    return a, b, dtype


def launch_binary_op(op, a, b, dtype):
    """``op(a, b)`` into a new array of the broadcast shape and ``dtype``: one launch of the
    aclnn binary operator ``op`` on the current stream of ``a``'s device (none when empty)."""
    device = a._buffer.device
    stream = _ops.current_stream(device)
    out = _ops.empty(broadcast_shapes(a._shape, b._shape), dtype, device, stream)
    if not _is_empty(out._shape):
        _ops.launch(op, a, b, out, stream=stream)
    return out


def atan2(x1, x2, /):
    """Element-wise angle of the point ``(x2, x1)``, in ``[-pi, pi]``, with the
    signs of both (array API ``atan2``, ``numpy.arctan2``): aclnnAtan2 on the
    current stream. Integer and bool operands give NumPy's float dtype; complex
    raises TypeError. IEEE special cases (signed zeros, infinities) as C99 atan2."""
    a, b, dtype = _float_operands("atan2", x1, x2)
    return launch_binary_op("aclnnAtan2", a, b, dtype)


def logaddexp(x1, x2, /):
    """Element-wise ``log(exp(x1) + exp(x2))`` without overflow (array API
    ``logaddexp``): aclnnLogAddExp for float32 / float16 / bfloat16; float64,
    which that operator cannot write, is composed on the device as
    ``max + log1p(exp(-|x1 - x2|))`` with aclnnLog1p (equal inputs, infinities
    included, give ``x1 + log(2)``). NaN propagates; +inf dominates."""
    a, b, dtype = _float_operands("logaddexp", x1, x2)
    if dtype in operator_dtypes("aclnnLogAddExp", "out"):
        return launch_binary_op("aclnnLogAddExp", a, b, dtype)
    larger = maximum(a, b)
    tail = log1p(exp(negative(abs(subtract(a, b)))))
    return where(equal(a, b), add(a, _LN2), add(larger, tail))


def copysign(x1, x2, /):
    """Element-wise ``|x1|`` with the sign bit of ``x2`` (array API ``copysign``,
    ``numpy.copysign``): no CANN operator; on the device the floats' bits are
    combined with aclnnBitwiseAndScalar and aclnnBitwiseOrTensor, so NaNs and
    signed zeros keep their payload and sign exactly."""
    a, b, dtype = _float_operands("copysign", x1, x2)
    bits = _BITS_OF[dtype]
    sign = -(1 << (8 * bits.itemsize - 1))
    magnitude = bitwise_and(bits_as(a, bits), ~sign)
    return bits_as(bitwise_or(magnitude, bitwise_and(bits_as(b, bits), sign)), dtype)


def hypot(x1, x2, /):
    """Element-wise ``sqrt(x1**2 + x2**2)`` without overflow or underflow (array
    API ``hypot``): no CANN operator; on the device as ``m * sqrt(1 + (n/m)**2)``
    with ``m``, ``n`` the larger and smaller of ``|x1|``, ``|x2|``. An infinite
    operand gives +inf even beside NaN (the standard's special case)."""
    a, b, _ = _float_operands("hypot", x1, x2)
    a, b = abs(a), abs(b)
    larger, smaller = maximum(a, b), minimum(a, b)
    ratio = divide(smaller, where(equal(larger, 0.0), 1.0, larger))
    result = multiply(larger, sqrt(add(multiply(ratio, ratio), 1.0)))
    return where(logical_or(equal(a, np.inf), equal(b, np.inf)), np.inf, result)


def nextafter(x1, x2, /):
    """Element-wise next representable value after ``x1`` towards ``x2`` (array
    API ``nextafter``, ``numpy.nextafter``): no CANN operator; on the device
    ``x1``'s bits, read as an integer, step by one (aclnnAdds / aclnnSubs and
    aclnnSWhere). From ±0 the result is the smallest subnormal with ``x2``'s
    sign; equal operands give ``x2``; NaN operands give NaN."""
    a, b, dtype = _float_operands("nextafter", x1, x2)
    bits = _BITS_OF[dtype]
    a_bits = bits_as(a, bits)
    # Away from zero the magnitude (the bits) grows: up from a positive, down from a negative.
    grows = equal(greater(b, a), greater(a, 0.0))
    stepped = bits_as(where(grows, add(a_bits, 1), subtract(a_bits, 1)), dtype)
    sign = -(1 << (8 * bits.itemsize - 1))
    tiniest = bits_as(bitwise_or(bitwise_and(bits_as(b, bits), sign), 1), dtype)
    result = where(equal(a, 0.0), tiniest, stepped)
    result = where(equal(a, b), b, result)
    return where(logical_or(not_equal(a, a), not_equal(b, b)), np.nan, result)


# ---------------------------------------------------------------------------
# uint64 arithmetic that CANN has no operator for (floor_divide, remainder,
# pow), composed exactly from int64 operators on the same bits

def _uint64_operands(name, x1, x2):
    """Both operands as uint64 NPUArrays (Python ints must fit: OverflowError)."""
    device = same_device(name, *[x for x in (x1, x2) if is_array(x)])
    stream = _ops.current_stream(device)
    operands = []
    for x in (x1, x2):
        if is_array(x):
            operands.append(as_dtype(x, _UINT64, stream))
        else:
            value, _ = scalar_operand(name, x)
            _data_type.check_scalar_fits(value, _UINT64)
            operands.append(full_scalar(value, _UINT64, device, stream))
    return operands


def _uint64_floor_divide(a, b):
    """Exact ``a // b`` of uint64 arrays (0 where ``b`` is 0, as NumPy). A
    divisor >= 2**63 gives ``a >= b``; else ``q0 = 2 * ((a >> 1) // b)`` is a
    non-negative int64 division, short of the quotient by at most one, which
    the remainder ``a - q0 * b`` (< 2b, compared unsigned) corrects."""
    a_bits, b_bits = bits_as(a, _INT64), bits_as(b, _INT64)
    large = less(b_bits, 0)
    zero = equal(b_bits, 0)
    safe_b = where(logical_or(large, zero), 1, b_bits)
    half = bits_as(_BINARY["bitwise_right_shift"](a, 1), _INT64)
    q0 = multiply(floor_divide(half, safe_b), 2)
    rest = bits_as(subtract(a_bits, multiply(q0, b_bits)), _UINT64)
    q = add(q0, _as_int64(greater_equal(rest, b)))
    q = where(large, _as_int64(greater_equal(a, b)), q)
    return bits_as(where(zero, 0, q), _UINT64)


def _as_int64(x):
    return _ops.cast(x, _INT64, stream=_ops.stream_of(x))


def _uint64_remainder(a, b):
    quotient = bits_as(_uint64_floor_divide(a, b), _INT64)
    a_bits, b_bits = bits_as(a, _INT64), bits_as(b, _INT64)
    rest = subtract(a_bits, multiply(quotient, b_bits))
    return bits_as(where(equal(b_bits, 0), 0, rest), _UINT64)


_EXPONENT_PERIOD = 1 << 62  # odd x: x ** (2**62) == 1 modulo 2**64; even x: x ** 64 == 0


def _uint64_pow(a, e):
    """``a ** e`` modulo 2**64 as the int64 power of the same bits; an exponent
    >= 2**62 (negative as int64) is replaced by ``2**62 + e % 2**62``, which
    gives the same power modulo 2**64 for every base."""
    e_bits = bits_as(e, _INT64)
    reduced = bitwise_or(bitwise_and(e_bits, _EXPONENT_PERIOD - 1), _EXPONENT_PERIOD)
    exponent = where(greater_equal(e, _EXPONENT_PERIOD), reduced, e_bits)
    return bits_as(_BINARY["pow"](bits_as(a, _INT64), exponent), _UINT64)


# ---------------------------------------------------------------------------
# Unary functions

def _unary_array(name, x):
    if not is_array(x):
        raise TypeError(f"{name}() needs an NPUArray, got {type(x).__name__}")
    return x


def _unary(name, op, x, supported, out_dtype, *, modular=False):
    """``op(x)`` into a new array of ``out_dtype``, computed in ``x``'s dtype or
    the nearest wider one ``supported`` by the operator (the result cast back).
    Operators whose result kind differs from the input's (bool results, the
    real abs of complex input) write ``out_dtype`` directly."""
    compute = check_dtype_supported(x._dtype, supported, name, modular=modular)
    if out_dtype == compute == x._dtype:  # the common case: one launch, in C
        out = _ops.unary_result(op, x, out_dtype)
        if out is not None:
            return out
    device = x._buffer.device
    stream = _ops.current_stream(device)
    out = _ops.empty(x._shape, out_dtype, device, stream)
    if _is_empty(x._shape):
        return out
    writes_out = out_dtype in (compute, BOOL) or dtype_kind(compute) == "c" != dtype_kind(out_dtype)
    target = out if writes_out else _ops.empty(x._shape, compute, device, stream)
    _ops.launch(op, as_dtype(x, compute, stream), target, stream=stream)
    if target is not out:
        _ops.copy_(out, target, stream=stream)
    return out


def _copy(x):
    stream = _ops.current_stream(x._buffer.device)
    out = _ops.empty(x._shape, x._dtype, x._buffer.device, stream)
    if not _is_empty(x._shape):
        _ops.copy_(out, x, stream=stream)
    return out


def negative(x, /):
    """Element-wise ``-x`` (array API ``negative``): aclnnNeg. Unsigned integers
    wrap around as in NumPy (computed in a signed dtype); bool raises TypeError."""
    _unary_array("negative", x)
    if x._dtype == BOOL:
        raise TypeError("negative() does not support bool; use logical_not()")
    return _unary("negative", "aclnnNeg", x, INPUT_DTYPES["aclnnNeg"], x._dtype, modular=True)


def positive(x, /):
    """Element-wise ``+x``: a copy of ``x`` (array API ``positive``,
    ``numpy.positive``) made with aclnnInplaceCopy. bool raises TypeError."""
    _unary_array("positive", x)
    if x._dtype == BOOL:
        raise TypeError("positive() does not support bool")
    return _copy(x)


def abs(x, /):  # noqa: A001  the array API name
    """Element-wise absolute value (array API ``abs``, ``numpy.absolute``):
    aclnnAbs. Unsigned integers and bool are returned as a copy; complex input
    gives the real dtype of the same precision."""
    _unary_array("abs", x)
    kind = dtype_kind(x._dtype)
    if kind in "bu":
        return _copy(x)
    if x._dtype == np.complex128:
        return _complex_abs(x)
    out_dtype = np.dtype(np.float32) if kind == "c" else x._dtype
    return _unary("abs", "aclnnAbs", x, INPUT_DTYPES["aclnnAbs"], out_dtype)


def _complex_abs(x):
    """|z| for complex128, which aclnnAbs lacks: ``hypot`` of the real and imaginary
    parts (float64 views of z's bytes), scaled by the larger part so the squares
    neither overflow nor underflow; an infinite part wins over NaN."""
    return hypot(*_parts(x))


def _float_unary(name, op, x, supported):
    _unary_array(name, x)
    out_dtype = _FLOAT_OF.get(x._dtype, x._dtype)
    if x._dtype != out_dtype:
        x = _ops.cast(x, out_dtype, stream=_ops.stream_of(x))
    return _unary(name, op, x, supported, out_dtype)


def exp(x, /):
    """Element-wise ``e**x`` (array API ``exp``): aclnnExp. Integer and bool input
    gives NumPy's float dtype (int8/uint8/bool → float16, int16/uint16 → float32,
    wider → float64)."""
    return _float_unary("exp", "aclnnExp", x, INPUT_DTYPES["aclnnExp"])


def log(x, /):
    """Element-wise natural logarithm (array API ``log``): aclnnLog; -inf at 0,
    nan below. Integer input gives NumPy's float dtype (see ``exp``)."""
    return _float_unary("log", "aclnnLog", x, INPUT_DTYPES["aclnnLog"])


def sqrt(x, /):
    """Element-wise square root (array API ``sqrt``): aclnnSqrt; nan for negative
    reals. Integer input gives NumPy's float dtype (see ``exp``)."""
    return _float_unary("sqrt", "aclnnSqrt", x, INPUT_DTYPES["aclnnSqrt"])


def logical_not(x, /):
    """Element-wise ``not x`` → bool array (array API ``logical_not``; any real
    dtype, zero is false): aclnnLogicalNot."""
    _unary_array("logical_not", x)
    return _unary("logical_not", "aclnnLogicalNot", x, INPUT_DTYPES["aclnnLogicalNot"], BOOL)


# ---------------------------------------------------------------------------
# Unary functions of the array API 2025.12: trigonometric, hyperbolic,
# logarithmic, rounding, sign and complex-part functions.
#
# Each runs the aclnn operator of its name with the dtypes of the base table of
# the operator's document in hicann/ops-math (those every Atlas A2/A3 product
# supports; the document is named beside each set). A dtype the operator lacks is
# widened (float16/bfloat16 -> float32, complex64 -> complex128, narrow integers
# -> int32); where no wider dtype exists either, the function is composed from
# other operators on the device, as its docstring says. Integer and bool input of
# the floating-point functions gives NumPy's float dtype, as exp, log and sqrt do.
# Every function returns a new array of x's shape on the current stream of x's
# device and raises TypeError for a non-NPUArray or an unsupported dtype.



def _numeric(name, x, kinds):
    """``x`` after checking it is an NPUArray whose dtype kind is in ``kinds``."""
    _unary_array(name, x)
    if dtype_kind(x._dtype) not in kinds:
        what = {"b": "bool", "c": "complex"}.get(dtype_kind(x._dtype), str(x._dtype))
        raise TypeError(f"{name}() does not support dtype {x._dtype} ({what} input is not "
                        f"defined for it by the array API standard)")
    return x


def _floating(name, x):
    """``x`` as a floating-point array: integer and bool input cast (aclnnCast) to
    NumPy's float dtype for it, as ``exp`` does."""
    _unary_array(name, x)
    float_dtype = _FLOAT_OF.get(x._dtype)
    if float_dtype is None:
        return x
    return _ops.cast(x, float_dtype, stream=_ops.stream_of(x))


def _has_kernel(dtype, supported):
    """Whether ``supported`` holds ``dtype`` or a wider dtype that holds its values."""
    while dtype is not None and dtype not in supported:
        dtype = _WIDER.get(dtype)
    return dtype is not None


def _math(name, op, x, supported, composed=None):
    """``op(x)`` for a floating-point function; ``composed(x)`` computes it for the
    dtypes the operator lacks (else TypeError)."""
    x = _floating(name, x)
    if composed is not None and not _has_kernel(x._dtype, supported):
        return composed(x)
    return _unary(name, op, x, supported, x._dtype)


# The float functions whose aclnn operator ufunc ``out=`` may write directly: name -> (the
# operator, the dtypes it computes into the same dtype: its input's and out's sets in common).
_WRITES_INTO = {
    name: (op, operator_dtypes(op) & operator_dtypes(op, "out"))
    for name, op in (("exp", "aclnnExp"), ("log", "aclnnLog"), ("sqrt", "aclnnSqrt"),
                     ("sin", "aclnnSin"), ("cos", "aclnnCos"), ("tan", "aclnnTan"),
                     ("sinh", "aclnnSinh"), ("cosh", "aclnnCosh"), ("tanh", "aclnnTanh"),
                     ("expm1", "aclnnExpm1"), ("log1p", "aclnnLog1p"), ("log2", "aclnnLog2"),
                     ("log10", "aclnnLog10"))}


def unary_into(name, x, out):
    """``name(x)`` written straight into ``out`` by one launch of its operator,
    on the current stream of ``x``'s device, when that is exactly the function's
    result: ``x`` floating of a dtype the operator computes, ``out`` of the same
    dtype and shape on the same device, with non-negative strides, and either
    another buffer than ``x``'s or the very same view (each element is read
    before it is written). Returns ``out``, or None where the caller must
    compute the result and copy it (other functions, dtypes, overlaps)."""
    entry = _WRITES_INTO.get(name)
    if entry is None or not is_array(x) or x._dtype not in entry[1] \
            or out._dtype != x._dtype or out._shape != x._shape \
            or out._buffer.device != x._buffer.device \
            or builtins.any(stride < 0 for stride in out._strides):
        return None
    if out._buffer is x._buffer and (out._offset, out._strides) != (x._offset, x._strides):
        return None
    if not _is_empty(x._shape):
        _ops.launch(entry[0], x, out, stream=_ops.current_stream(x._buffer.device))
    return out



# The binary functions whose ufunc ``out=`` may take the operator's result directly: those
# whose public function is their plan (maximum and minimum: but for uint64, which has no plan).
_BINARY_INTO = frozenset(("add", "subtract", "multiply", "divide", "maximum", "minimum", "equal",
                          "not_equal", "greater", "greater_equal", "less", "less_equal",
                          "logical_and", "logical_or"))


def binary_into(name, x1, x2, out):
    """``name(x1, x2)`` written straight into ``out`` by one launch of its aclnn
    operator (the plan's, or its scalar one), on the current stream of ``out``'s device,
    when that is exactly the function's result: two arrays whose dtypes the
    operator takes as they are (``_direct``), or an array and a Python float or
    int (``_scalar_direct``), with a result of ``out``'s dtype; the operands'
    broadcast shape ``out``'s shape or broadcasting to it; everything on ``out``'s
    device; no negative strides, ``out`` not a broadcast view; and each array
    operand either in another buffer than ``out`` or the very same view (each
    element is read before it is written). Returns ``out``, or None where the
    caller must compute the result and copy it (casts into ``out``, overlaps,
    other functions)."""
    plan = _BINARY[name] if name in _BINARY_INTO else None
    if plan is None or _unfit_out(out):
        return None
    if is_array(x1) and is_array(x2):
        operands = _arrays_into(plan, x1, x2, out)
    elif is_array(x1) or is_array(x2):
        operands = _scalar_into(plan, x1, x2, out)
    else:
        return None
    if operands is None:
        return None
    op, args = operands
    if not _is_empty(out._shape):
        _ops.launch(op, *args, out, stream=_ops.current_stream(out._buffer.device))
    return out


def _unfit_out(out):
    """Whether ``out`` cannot be an operator's output as it is: a read-only
    (broadcast, stride 0) view or one with a negative step."""
    if not out._strides or min(out._strides) > 0:
        return False
    return builtins.any(stride <= 0 and size > 1 for stride, size in zip(out._strides, out._shape))


def _arrays_into(plan, x1, x2, out):
    """(operator, its arguments but out) for ``binary_into`` of two arrays, or None."""
    direct = plan._direct.get((x1._dtype, x2._dtype))
    if direct is None:
        direct = plan._direct_plan(x1._dtype, x2._dtype)
    if not direct or direct[1] != out._dtype:
        return None
    operands = []
    for x in (x1, x2):
        x = _input_into(x, out)
        if x is None:
            return None
        operands.append(x)
    if direct[0] is not None:
        operands.append(direct[0])
    return plan.op, operands


def _scalar_into(plan, x1, x2, out):
    """(operator, its arguments but out) for ``binary_into`` of an array and a
    Python float or int, or None."""
    reflected = not is_array(x1)
    x, value = (x2, x1) if reflected else (x1, x2)
    kind = type(value)
    if kind is not float and kind is not int:
        return None
    direct = plan._scalar_direct.get((kind, x._dtype, reflected))
    if direct is None:
        direct = plan._scalar_direct_plan(kind, x._dtype, reflected)
    if not direct or direct[2] != out._dtype or not direct[4] <= value <= direct[5]:
        return None
    op, alpha, _, compute, _, _, scalar_first = direct
    x = _input_into(x, out)
    if x is None:
        return None
    scalar = _ops.acl_scalar(value, compute)
    args = [scalar, x] if scalar_first else [x, scalar]
    if alpha is not None:
        args.append(alpha)
    return op, args


def _input_into(x, out):
    """``x`` as an operand written into ``out``: itself, or its broadcast view to
    ``out``'s shape; None when it does not broadcast to it, is on another device,
    has a negative step or shares ``out``'s memory without being the same view."""
    device = x._buffer.device
    if (device is not out._buffer.device and device != out._buffer.device) or _negative_step(x):
        return None
    if x._buffer is out._buffer and (x._offset, x._strides, x._shape, x._dtype) \
            != (out._offset, out._strides, out._shape, out._dtype):
        return None
    if x._shape == out._shape:
        return x
    try:
        if broadcast_shapes(x._shape, out._shape) != out._shape:
            return None
    except ValueError:
        return None
    return _manipulation.broadcast_to(x, out._shape)

# Complex numbers as pairs of reals: a complex array's bytes viewed as its real
# and imaginary parts (strided views, no copy), and a complex array assembled from
# two real arrays by aclnnInplaceCopy into those views of a new array.

def _parts(z):
    pairs = _manipulation.complex_parts(z)
    return pairs[..., 0], pairs[..., 1]


def _complex_from(re, im, dtype):
    stream = _ops.stream_of(re)
    out = _ops.empty(re._shape, dtype, re._buffer.device, stream)
    if not _is_empty(re._shape):
        out_re, out_im = _parts(out)
        _ops.copy_(out_re, re, stream=stream)
        _ops.copy_(out_im, im, stream=stream)
    return out


def _complex_from_pairs(pairs, dtype):
    """The complex array whose (real, imaginary) pairs are the last axis of ``pairs``."""
    stream = _ops.stream_of(pairs)
    out = _ops.empty(pairs._shape[:-1], dtype, pairs._buffer.device, stream)
    if not _is_empty(pairs._shape):
        _ops.copy_(_manipulation.complex_parts(out), pairs, stream=stream)
    return out


def _times_i(z):
    """``1j * z`` exactly: (re, im) -> (-im, re)."""
    re, im = _parts(z)
    return _complex_from(negative(im), re, z._dtype)


def _times_minus_i(z):
    """``-1j * z`` exactly: (re, im) -> (im, -re)."""
    re, im = _parts(z)
    return _complex_from(im, negative(re), z._dtype)


def _cosh_composed(z):
    # C99 Annex G defines ccos(z) = ccosh(iz), so this keeps every special case.
    return cos(_times_i(z))


def _tanh_composed(x):
    if dtype_kind(x._dtype) == "c":
        # ctan(w) = -i ctanh(iw) (C99 Annex G), so tanh(z) = i tan(-iz) ...
        re, im = _parts(_times_i(tan(_times_minus_i(x))))
        # ... except that the standard wants tanh(+-inf + bj) = +-1 + 0j with the zero
        # signed as b for finite b, where C gives the sign of sin(2b).
        x_re, x_im = _parts(x)
        signed_zero = multiply(x_im, 0.0)
        im = where(logical_and(isinf(x_re), isfinite(x_im)), signed_zero, im)
        return _complex_from(re, im, x._dtype)
    # float64: sinh / cosh, which overflow to inf / inf beyond |x| ~ 710; tanh(x)
    # rounds to +-1 in float64 from |x| > 19.1.
    return where(greater(abs(x), 20.0), sign(x), divide(sinh(x), cosh(x)))


def _expm1_composed(x):
    if dtype_kind(x._dtype) == "c":
        return _expm1_complex(x)
    # float64: Kahan's method, accurate to a few ulp near 0 where exp(x) - 1 is not:
    # u = e**x, expm1 = (u - 1) * x / log(u); u == 1 gives x itself (so +-0 and tiny
    # x are exact), u - 1 == -1 gives -1, an infinite u gives +inf.
    u = exp(x)
    u_minus_1 = subtract(u, 1.0)
    kahan = divide(multiply(u_minus_1, x), log(u))
    result = where(equal(u, 1.0), x, kahan)
    result = where(equal(u_minus_1, -1.0), -1.0, result)
    return where(equal(u, np.inf), u, result)


def _expm1_complex(z):
    """expm1(a + ib) = expm1(a) cos(b) - 2 sin(b/2)**2 + i exp(a) sin(b): no cancellation
    near 0, where exp(z) - 1 loses every digit; non-finite z takes exp(z) - 1, whose
    special cases (C99 cexp's) are the standard's."""
    a, b = _parts(z)
    half_sine = sin(multiply(b, 0.5))
    re = subtract(multiply(expm1(a), cos(b)), multiply(multiply(half_sine, half_sine), 2.0))
    re = add(re, 0.0)   # expm1(-0 + 0j) = +0 + 0j, as exp(z) - 1 gives (-0 - 0 is -0)
    im = where(equal(b, 0.0), b, multiply(exp(a), sin(b)))   # inf * sin(0) would be NaN
    return where(isfinite(z), _complex_from(re, im, z._dtype), subtract(exp(z), 1.0))


def _log1p_composed(z):
    """log(1 + z) (aclnnAdds, aclnnLog), its real part near 0 as
    log1p(a (2 + a) + b**2) / 2 (aclnnLog1p), which keeps the digits log(|1 + z|) loses."""
    w_re, w_im = _parts(log(add(z, 1.0)))
    a, b = _parts(z)
    near_zero = logical_and(less(abs(a), 0.5), less(abs(b), 0.5))
    small_re = multiply(log1p(add(multiply(a, add(a, 2.0)), multiply(b, b))), 0.5)
    return _complex_from(where(near_zero, small_re, w_re), w_im, z._dtype)


# Complex inverse trigonometric and hyperbolic functions, which no CANN operator
# computes on Atlas A2 (aclnnAsin/Acos/Atan have no complex kernel; the complex
# aclnnAcosh/Asinh/Atanh are documented for Atlas A3 only). They are composed on the
# device in complex128 (complex64 input is widened, so intermediate squares neither
# overflow nor lose digits) from Kahan's formulas ("Branch Cuts for Complex
# Elementary Functions", 1987), which are accurate everywhere, including near 0,
# with complex aclnnSqrt and real aclnnAsinh / aclnnLog1p / aclnnAtan2; the
# standard's special cases for infinite and NaN parts are then set with aclnnSWhere. asin, atan and acosh follow from asinh, atanh
# and acos by the identities C99 Annex G defines them with.

_C128 = np.dtype(np.complex128)
_PI = float(np.pi)


def _widened(z):
    return z if z._dtype == _C128 else _ops.cast(z, _C128, stream=_ops.stream_of(z))


def _narrowed(z, dtype):
    return z if z._dtype == dtype else _ops.cast(z, dtype, stream=_ops.stream_of(z))


def _sqrt_parts(re, im):
    """(real, imaginary) parts of sqrt(re + i im)."""
    return _parts(sqrt(_complex_from(re, im, _C128)))


def _asinh_complex(z):
    a, b = _parts(_widened(z))
    x, y = abs(a), abs(b)   # first quadrant; asinh is odd and commutes with conj
    # asinh(z) = -i asin(iz); Kahan: asin(w) = atan2(Re w, Re(s1 s2)) + i asinh(Im(conj(s1) s2))
    # with s1 = sqrt(1 - w), s2 = sqrt(1 + w), here for w = iz = -y + ix.
    s1r, s1i = _sqrt_parts(add(y, 1.0), negative(x))
    s2r, s2i = _sqrt_parts(subtract(1.0, y), x)
    re = asinh(subtract(multiply(s1r, s2i), multiply(s1i, s2r)))
    im = atan2(y, subtract(multiply(s1r, s2r), multiply(s1i, s2i)))
    im = where(equal(y, 0.0), y, im)                     # asinh(NaN + 0j) = NaN + 0j
    angle = where(isinf(x), where(isinf(y), _PI / 4, 0.0), _PI / 2)
    angle = where(logical_or(isnan(x), isnan(y)), np.nan, angle)
    infinite = logical_or(isinf(x), isinf(y))
    re, im = where(infinite, np.inf, re), where(infinite, angle, im)
    return _narrowed(_complex_from(copysign(re, a), copysign(im, b), _C128), z._dtype)


def _atanh_complex(z):
    a, b = _parts(_widened(z))
    x, y = abs(a), abs(b)   # first quadrant; atanh is odd and commutes with conj
    # Kahan: atanh(x + iy) = log1p(4x / ((1-x)^2 + y^2)) / 4 + i atan2(2y, (1-x)(1+x) - y^2) / 2
    one_minus_x = subtract(1.0, x)
    denominator = add(multiply(one_minus_x, one_minus_x), multiply(y, y))
    re = multiply(log1p(divide(multiply(x, 4.0), denominator)), 0.25)
    im = multiply(atan2(multiply(y, 2.0), subtract(multiply(one_minus_x, add(x, 1.0)),
                                                    multiply(y, y))), 0.5)
    re = where(equal(x, 0.0), x, re)                     # atanh(+0 + NaN j) = +0 + NaN j
    # Far from the origin (and at infinity) atanh(z) = 1/z + i pi/2 to double precision.
    far = logical_and(logical_or(greater(x, 1e150), greater(y, 1e150)),
                      logical_not(isnan(add(x, y))))
    re = where(far, _parts(reciprocal(_complex_from(x, y, _C128)))[0], re)
    im = where(far, _PI / 2, im)
    # NaN beside an infinity: atanh(inf + NaN j) = +0 + NaN j, atanh(NaN + inf j) = +0 + i pi/2.
    re = where(logical_or(isinf(x), isinf(y)), 0.0, re)
    im = where(logical_and(isnan(x), isinf(y)), _PI / 2, im)
    return _narrowed(_complex_from(copysign(re, a), copysign(im, b), _C128), z._dtype)


def _acos_complex(z):
    a, b = _parts(_widened(z))
    y = abs(b)              # upper half plane; acos(conj z) = conj(acos(z))
    # Kahan: acos(z) = 2 atan2(Re s1, Re s2) + i asinh(Im(conj(s2) s1)),
    # s1 = sqrt(1 - z), s2 = sqrt(1 + z).
    s1r, s1i = _sqrt_parts(subtract(1.0, a), negative(y))
    s2r, s2i = _sqrt_parts(add(a, 1.0), y)
    re = multiply(atan2(s1r, s2r), 2.0)
    im = asinh(subtract(multiply(s2r, s1i), multiply(s2i, s1r)))
    re = where(logical_and(equal(a, 0.0), isnan(y)), _PI / 2, re)
    re = where(logical_and(isinf(a), isinf(y)), where(less(a, 0.0), 3 * _PI / 4, _PI / 4), re)
    nan_and_inf = logical_or(logical_and(isinf(a), isnan(y)), logical_and(isnan(a), isinf(y)))
    re, im = where(nan_and_inf, np.nan, re), where(nan_and_inf, -np.inf, im)
    im = where(signbit(b), negative(im), im)
    return _narrowed(_complex_from(re, im, _C128), z._dtype)


def _asin_complex(z):
    return _times_minus_i(_asinh_complex(_times_i(z)))   # asin(z) = -i asinh(iz)


def _atan_complex(z):
    return _times_minus_i(_atanh_complex(_times_i(z)))   # atan(z) = -i atanh(iz)


def _acosh_complex(z):
    # acosh(z) = i acos(z) in the upper half plane (sign bit of Im z clear), else -i acos(z)
    re, im = _parts(_acos_complex(z))
    lower = signbit(_parts(z)[1])
    return _complex_from(where(lower, im, negative(im)), where(lower, negative(re), re),
                         z._dtype)


def acos(x, /):
    """Element-wise inverse cosine, real part in [0, pi] (array API ``acos``,
    ``numpy.arccos``): aclnnAcos for real floating dtypes (bfloat16 computed in
    float32); complex input is composed on the device (see above)."""
    return _math("acos", "aclnnAcos", x, INPUT_DTYPES["aclnnAcos"], _acos_complex)


def acosh(x, /):
    """Element-wise inverse hyperbolic cosine (array API ``acosh``, ``numpy.arccosh``):
    aclnnAcosh for real floating dtypes; complex input as ``+-1j * acos(x)``
    (composed on the device, see above)."""
    return _math("acosh", "aclnnAcosh", x, INPUT_DTYPES["aclnnAcosh"], _acosh_complex)


def asin(x, /):
    """Element-wise inverse sine (array API ``asin``, ``numpy.arcsin``): aclnnAsin for
    real floating dtypes; complex input as ``-1j * asinh(1j * x)`` (composed on the
    device, see above)."""
    return _math("asin", "aclnnAsin", x, INPUT_DTYPES["aclnnAsin"], _asin_complex)


def asinh(x, /):
    """Element-wise inverse hyperbolic sine (array API ``asinh``, ``numpy.arcsinh``):
    aclnnAsinh for real floating dtypes; complex input is composed on the device
    (see above)."""
    return _math("asinh", "aclnnAsinh", x, INPUT_DTYPES["aclnnAsinh"], _asinh_complex)


def atan(x, /):
    """Element-wise inverse tangent, real part in [-pi/2, pi/2] (array API ``atan``,
    ``numpy.arctan``): aclnnAtan for real floating dtypes; complex input as
    ``-1j * atanh(1j * x)`` (composed on the device, see above)."""
    return _math("atan", "aclnnAtan", x, INPUT_DTYPES["aclnnAtan"], _atan_complex)


def atanh(x, /):
    """Element-wise inverse hyperbolic tangent (array API ``atanh``, ``numpy.arctanh``):
    aclnnAtanh for real floating dtypes; complex input is composed on the device
    (see above)."""
    return _math("atanh", "aclnnAtanh", x, INPUT_DTYPES["aclnnAtanh"], _atanh_complex)


def cos(x, /):
    """Element-wise cosine of radians (array API ``cos``, ``numpy.cos``): aclnnCos.
    Floating and complex dtypes."""
    return _math("cos", "aclnnCos", x, INPUT_DTYPES["aclnnCos"])


def cosh(x, /):
    """Element-wise hyperbolic cosine (array API ``cosh``, ``numpy.cosh``): aclnnCosh;
    complex input as ``cos(1j * x)`` with aclnnCos (exact identity of C99 Annex G)."""
    return _math("cosh", "aclnnCosh", x, INPUT_DTYPES["aclnnCosh"], _cosh_composed)


def sin(x, /):
    """Element-wise sine of radians (array API ``sin``, ``numpy.sin``): aclnnSin.
    Floating and complex dtypes."""
    return _math("sin", "aclnnSin", x, INPUT_DTYPES["aclnnSin"])


def sinh(x, /):
    """Element-wise hyperbolic sine (array API ``sinh``, ``numpy.sinh``): aclnnSinh.
    Floating and complex dtypes."""
    return _math("sinh", "aclnnSinh", x, INPUT_DTYPES["aclnnSinh"])


def tan(x, /):
    """Element-wise tangent of radians (array API ``tan``, ``numpy.tan``): aclnnTan.
    Floating and complex dtypes."""
    return _math("tan", "aclnnTan", x, INPUT_DTYPES["aclnnTan"])


def tanh(x, /):
    """Element-wise hyperbolic tangent (array API ``tanh``, ``numpy.tanh``): aclnnTanh
    for float16/bfloat16/float32. aclnnTanh has no float64 or complex kernel:
    float64 is ``sinh(x) / cosh(x)`` (``sign(x)`` beyond ``|x| > 20``) and complex is
    ``1j * tan(-1j * x)`` with aclnnTan (exact identity of C99 Annex G)."""
    return _math("tanh", "aclnnTanh", x, INPUT_DTYPES["aclnnTanh"], _tanh_composed)


def expm1(x, /):
    """Element-wise ``exp(x) - 1``, accurate near 0 (array API ``expm1``,
    ``numpy.expm1``): aclnnExpm1 for float16/bfloat16/float32. aclnnExpm1 takes no
    float64 input: float64 uses Kahan's ``(u - 1) * x / log(u)`` with ``u = exp(x)``
    (aclnnExp, aclnnLog, ...; a few ulp); complex is composed from real expm1, exp,
    sin and cos of its parts (see ``_expm1_complex``)."""
    return _math("expm1", "aclnnExpm1", x, INPUT_DTYPES["aclnnExpm1"], _expm1_composed)


def log1p(x, /):
    """Element-wise ``log(1 + x)``, accurate near 0 (array API ``log1p``,
    ``numpy.log1p``): aclnnLog1p; complex input, which aclnnLog1p lacks, as
    ``log(1 + x)`` with aclnnAdds and aclnnLog, its real part near 0 from aclnnLog1p."""
    return _math("log1p", "aclnnLog1p", x, INPUT_DTYPES["aclnnLog1p"], _log1p_composed)


def log2(x, /):
    """Element-wise base-2 logarithm (array API ``log2``, ``numpy.log2``): aclnnLog2.
    Floating and complex dtypes."""
    return _math("log2", "aclnnLog2", x, INPUT_DTYPES["aclnnLog2"])


def log10(x, /):
    """Element-wise base-10 logarithm (array API ``log10``, ``numpy.log10``):
    aclnnLog10. Floating and complex dtypes."""
    return _math("log10", "aclnnLog10", x, INPUT_DTYPES["aclnnLog10"])


def reciprocal(x, /):
    """Element-wise ``1 / x`` (array API ``reciprocal``): aclnnReciprocal. Floating
    and complex dtypes only; integer and bool input raise TypeError (NumPy's integer
    reciprocal is not the standard's)."""
    _numeric("reciprocal", x, "fc")
    return _unary("reciprocal", "aclnnReciprocal", x, INPUT_DTYPES["aclnnReciprocal"], x._dtype)


def _rounding(name, op, x, supported, composed=None):
    """A rounding function: the identity (a copy) on integers, ``op`` on floats."""
    _numeric(name, x, "iuf")
    if dtype_kind(x._dtype) in "iu":
        return _copy(x)
    if composed is not None and not _has_kernel(x._dtype, supported):
        return composed(x)
    return _unary(name, op, x, supported, x._dtype)


def ceil(x, /):
    """Element-wise smallest integer-valued number >= x, in x's dtype (array API
    ``ceil``, ``numpy.ceil``): aclnnCeil; integer input is copied. Real dtypes; bool
    and complex raise TypeError."""
    return _rounding("ceil", "aclnnCeil", x, INPUT_DTYPES["aclnnCeil"])


def floor(x, /):
    """Element-wise largest integer-valued number <= x, in x's dtype (array API
    ``floor``, ``numpy.floor``): aclnnFloor; integer input is copied. Real dtypes;
    bool and complex raise TypeError."""
    return _rounding("floor", "aclnnFloor", x, INPUT_DTYPES["aclnnFloor"])


def _trunc_composed(x):
    return where(less(x, 0.0), ceil(x), floor(x))


def trunc(x, /):
    """Element-wise rounding towards zero, in x's dtype (array API ``trunc``,
    ``numpy.trunc``): aclnnTrunc for float16/bfloat16/float32; float64, which
    aclnnTrunc lacks, is ``where(x < 0, ceil(x), floor(x))``. Integer input is
    copied; bool and complex raise TypeError."""
    return _rounding("trunc", "aclnnTrunc", x, INPUT_DTYPES["aclnnTrunc"], _trunc_composed)


def round(x, /):  # noqa: A001  the array API name
    """Element-wise rounding to the nearest integer-valued number, halves to even, in
    x's dtype (array API ``round``, ``numpy.round``): aclnnRound; complex input
    rounds its real and imaginary parts (aclnnRound on their float view); integer
    input is copied. bool raises TypeError."""
    _numeric("round", x, "iufc")
    if dtype_kind(x._dtype) == "c":
        return _complex_from_pairs(round(_manipulation.complex_parts(x)), x._dtype)
    return _rounding("round", "aclnnRound", x, INPUT_DTYPES["aclnnRound"])


def sign(x, /):
    """Element-wise sign: -1, 0 or 1 for real x (NaN stays NaN, both zeros give +0),
    ``x / |x|`` for complex x (0 at 0) (array API ``sign``, ``numpy.sign``):
    aclnnSign, int8/int16/uint8/uint16/uint32 computed in int32 or int64; unsigned
    input is ``x != 0``. Numeric dtypes; bool raises TypeError."""
    _numeric("sign", x, "iufc")
    if dtype_kind(x._dtype) == "u":
        return _ops.cast(not_equal(x, 0), x._dtype, stream=_ops.stream_of(x))
    return _unary("sign", "aclnnSign", x, INPUT_DTYPES["aclnnSign"], x._dtype)


def signbit(x, /):
    """Element-wise whether the sign bit is set -> bool array (array API ``signbit``,
    ``numpy.signbit``): true for -0.0 and for NaNs with the bit set; ``x < 0`` for
    integers. aclnnSignbit. Real dtypes; bool and complex raise TypeError."""
    _numeric("signbit", x, "iuf")
    return _unary("signbit", "aclnnSignbit", x, INPUT_DTYPES["aclnnSignbit"], BOOL)


def square(x, /):
    """Element-wise ``x * x`` in x's dtype (array API ``square``, ``numpy.square``):
    aclnnMul (CANN's aclnnSquare exists on Ascend 950 only). Numeric dtypes; bool
    raises TypeError."""
    _numeric("square", x, "iufc")
    return multiply(x, x)


def _full_like(x, value, dtype):
    stream = _ops.stream_of(x)
    out = _ops.empty(x._shape, dtype, x._buffer.device, stream)
    return _ops.fill_(out, value, stream=stream)


def isinf(x, /):
    """Element-wise whether x is +inf or -inf -> bool array (array API ``isinf``,
    ``numpy.isinf``): aclnnIsPosInf of aclnnAbs(x) for floats; complex x is infinite
    when either part is; integer and bool input gives False. Any numeric dtype."""
    _unary_array("isinf", x)
    kind = dtype_kind(x._dtype)
    if kind in "biu":
        return _filled_bool(x, False)
    if kind == "c":
        infinite = isinf(_manipulation.complex_parts(x))
        return logical_or(infinite[..., 0], infinite[..., 1])
    return _unary("isinf", "aclnnIsPosInf", abs(x), INPUT_DTYPES["aclnnIsPosInf"], BOOL)


def real(x, /):
    """Element-wise real part (array API ``real``, ``numpy.real``): aclnnReal for
    complex input (complex64 -> float32, complex128 -> float64); real input is
    copied, keeping its dtype."""
    _unary_array("real", x)
    if dtype_kind(x._dtype) != "c":
        return _copy(x)
    part = np.dtype(np.float32 if x._dtype == np.complex64 else np.float64)
    return _unary("real", "aclnnReal", x, INPUT_DTYPES["aclnnReal"], part)


def imag(x, /):
    """Element-wise imaginary part (array API ``imag``, ``numpy.imag``): a copy
    (aclnnInplaceCopy) of the imaginary parts' strided view of complex x
    (complex64 -> float32, complex128 -> float64); real input gives zeros of its
    dtype (aclnnInplaceFillScalar)."""
    _unary_array("imag", x)
    if dtype_kind(x._dtype) != "c":
        return _full_like(x, 0, x._dtype)
    return _ops.copy(_parts(x)[1])


def conj(x, /):
    """Element-wise complex conjugate (array API ``conj``, ``numpy.conj``): the real
    parts copied and the imaginary parts negated (aclnnNeg) into a new array; real
    input is copied."""
    _unary_array("conj", x)
    if dtype_kind(x._dtype) != "c":
        return _copy(x)
    re, im = _parts(x)
    return _complex_from(re, negative(im), x._dtype)


_UNARY_NOTE = """

    Returns a new array of ``x``'s shape, computed on the current stream of ``x``'s
    device. Raises TypeError for a non-NPUArray ``x`` or a dtype the function does not
    take."""
for _function in (acos, acosh, asin, asinh, atan, atanh, cos, cosh, sin, sinh, tan, tanh,
                  expm1, log1p, log2, log10, reciprocal, ceil, floor, round, trunc, sign,
                  signbit, square, isinf, real, imag, conj):
    _function.__doc__ += _UNARY_NOTE
del _function


# ---------------------------------------------------------------------------
# where and in-place operators

def where(condition, x1, x2, /):
    """Elements of ``x1`` where ``condition`` is true, else of ``x2`` (array API
    ``where``, ``numpy.where`` with three arguments): aclnnSWhere.

    ``condition`` is an NPUArray (non-bool dtypes are tested against zero with
    aclnnNeScalar); ``x1``/``x2`` are NPUArrays or Python scalars. The result
    has the broadcast shape of the three and the promoted dtype of ``x1``, ``x2``.
    """
    if not is_array(condition):
        raise TypeError(f"where() needs an NPUArray condition, got {type(condition).__name__}")
    arrays = [a for a in (condition, x1, x2) if is_array(a)]
    device = same_device("where", *arrays)
    stream = _ops.current_stream(device)
    dtype = _data_type.result_type(*[a if is_array(a) else scalar_operand("where", a)[0]
                                  for a in (x1, x2)])
    compute = check_dtype_supported(dtype, operator_dtypes("aclnnSWhere", "self"), "where")
    operands = []
    for a in (x1, x2):
        operands.append(as_dtype(a, compute, stream) if is_array(a)
                        else full_scalar(scalar_operand("where", a)[0], compute, device, stream))
    if condition._dtype != BOOL:
        condition = not_equal(condition, 0)
    shape = broadcast_shapes(condition._shape, operands[0]._shape, operands[1]._shape)
    out = _ops.empty(shape, dtype, device, stream)
    if _is_empty(shape):
        return out
    target = out if compute == dtype else _ops.empty(shape, compute, device, stream)
    _ops.launch("aclnnSWhere", condition, operands[0], operands[1], target, stream=stream)
    if target is not out:
        _ops.copy_(out, target, stream=stream)
    return out


def _inplace_fast(spec, x, other):
    """``x op= other`` with the plan's in-place operator (aclnnInplaceAdd ...) when
    both are arrays whose dtypes it takes as they are, the result has x's dtype
    and shape, and other does not overlap x (unless it is x itself): True when
    done, False for the general path (result, then a copy into x)."""
    array_type = _array_type.NPUArray
    if type(x) is not array_type or type(other) is not array_type:
        return False
    direct = spec._direct.get((x._dtype, other._dtype))
    if direct is None:
        direct = spec._direct_plan(x._dtype, other._dtype)
    if not direct or direct[1] != x._dtype:
        return False
    if x._shape != other._shape:
        try:
            if broadcast_shapes(x._shape, other._shape) != x._shape:
                return False
        except ValueError:
            return False
    if 0 in x._shape or 0 in x._strides or _negative_step(x) or _negative_step(other) \
            or (x._buffer is other._buffer and _ops.overlaps(x, other)
                and (other._offset != x._offset or other._strides != x._strides
                     or other._shape != x._shape)):
        return False  # empty, read-only, flipped or overlapping: computed apart
    if x._buffer.device is not other._buffer.device:
        return False
    alpha = (direct[0],) if direct[0] is not None else ()
    _ops.launch(spec.inplace_op, x, other, *alpha)
    return True


def _negative_step(x):
    return bool(x._strides) and min(x._strides) < 0


def _can_cast_same_kind(src, dst):
    return src == dst or _data_type.can_cast(src, dst) or dtype_kind(src) == dtype_kind(dst)


def inplace(name, x, other, function=None):
    """``x <op>= other`` for the binary function ``name`` (``"add"`` for ``+=``,
    ...), or for ``function`` when given (``"matmul"``, ``_linear_algebra.matmul``):
    computes ``function(x, other)`` and copies the result into ``x`` with
    aclnnInplaceCopy, then returns ``x``.

    Array API / NumPy in-place rules: the broadcast result must have ``x``'s
    shape (else ValueError) and its dtype must cast to ``x.dtype`` within the
    same kind (else TypeError); a read-only (broadcast) ``x`` raises ValueError;
    ``x`` is unchanged when an error is raised.
    """
    spec = _BINARY.get(name)
    if spec is not None and spec.inplace_op is not None and _inplace_fast(spec, x, other):
        return x
    _manipulation.check_writable(x)
    if function is None:
        function = globals().get(name) if name in _BINARY else None
        if function is None:
            raise ValueError(f"no in-place form of {name!r}")
    result = function(x, other)
    if result._shape != x._shape:
        raise ValueError(f"non-broadcastable output operand with shape {x._shape} "
                         f"doesn't match the broadcast shape {result._shape}")
    if not _can_cast_same_kind(result._dtype, x._dtype):
        raise TypeError(f"cannot cast {name} output from {result._dtype} to {x._dtype} "
                        f"with casting rule 'same_kind'")
    if not _is_empty(x._shape):
        _ops.copy_(x, result, stream=_ops.stream_of(x))
    return x


# ---------------------------------------------------------------------------
# Classification: isnan, isfinite



def isnan(x, /):
    """Element-wise test for NaN → bool array of ``x``'s shape (array API
    ``isnan``, ``numpy.isnan``): ``x != x`` with aclnnNeTensor, true for a
    complex element when either part is NaN; all false for bool and integers."""
    _unary_array("isnan", x)
    if dtype_kind(x._dtype) in "biu":
        return _filled_bool(x, False)
    return not_equal(x, x)


def isfinite(x, /):
    """Element-wise test for finite values → bool array of ``x``'s shape (array
    API ``isfinite``, ``numpy.isfinite``): aclnnIsFinite for real floating dtypes;
    complex elements are finite when both parts are, tested as ``x - x == 0``
    (aclnnSub, aclnnEqScalar: inf - inf and NaN give NaN); all true for bool and
    integers."""
    _unary_array("isfinite", x)
    kind = dtype_kind(x._dtype)
    if kind in "biu":
        return _filled_bool(x, True)
    if kind == "c":
        return equal(subtract(x, x), 0)
    return _unary("isfinite", "aclnnIsFinite", x, INPUT_DTYPES["aclnnIsFinite"], BOOL)


def _filled_bool(x, value):
    stream = _ops.stream_of(x)
    out = _ops.empty(x._shape, BOOL, x._buffer.device, stream)
    return _ops.fill_(out, value, stream=stream)
