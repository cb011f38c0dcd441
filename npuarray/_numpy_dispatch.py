"""NumPy's dispatch protocols for NPUArray: NumPy calls on device arrays run on the device.

``numpy.add(x, y)``, ``numpy.exp(x)``, ``numpy.add.reduce(x, axis=0)``,
``numpy.sum(x, axis=1)``, ``numpy.where(c, x, y)``, ``numpy.matmul(x, y)``...
with NPUArray operands call the npuarray function of the same meaning
(NEP 13 ``__array_ufunc__``, NEP 18 ``__array_function__``) and return
NPUArrays on the current stream. What has no device implementation (another
ufunc or function, a ufunc method other than ``__call__`` / ``reduce``,
unsupported keywords, NumPy arrays mixed with NPUArrays) returns
``NotImplemented``, so NumPy raises TypeError instead of silently copying
device data to the host (as CuPy does). ``out=`` takes one NPUArray, written
in place with aclnnInplaceCopy.

The array class binds these as ``__array_ufunc__ = array_ufunc`` and
``__array_function__ = array_function``.
"""
import builtins
import inspect

import numpy as np

from . import _elementwise, _linear_algebra, _ops, _searching, _statistical

__all__ = []

_UFUNCS = {
    np.add: _elementwise.add, np.subtract: _elementwise.subtract,
    np.multiply: _elementwise.multiply, np.divide: _elementwise.divide,
    np.floor_divide: _elementwise.floor_divide, np.remainder: _elementwise.remainder,
    np.power: _elementwise.pow, np.negative: _elementwise.negative,
    np.positive: _elementwise.positive, np.absolute: _elementwise.abs,
    np.exp: _elementwise.exp, np.log: _elementwise.log, np.sqrt: _elementwise.sqrt,
    np.equal: _elementwise.equal, np.not_equal: _elementwise.not_equal,
    np.greater: _elementwise.greater, np.greater_equal: _elementwise.greater_equal,
    np.less: _elementwise.less, np.less_equal: _elementwise.less_equal,
    np.maximum: _elementwise.maximum, np.minimum: _elementwise.minimum,
    np.logical_and: _elementwise.logical_and, np.logical_or: _elementwise.logical_or,
    np.logical_not: _elementwise.logical_not, np.matmul: _linear_algebra.matmul,
}
# ufunc.reduce with a device reduction behind it.
_REDUCTIONS = {np.add: _statistical.sum, np.maximum: _statistical.max,
               np.minimum: _statistical.min}


def _reduction(function, *, with_dtype=False):
    def call(a, axis=None, dtype=None, out=None, keepdims=False):
        kwargs = {"dtype": dtype} if with_dtype else {}
        if dtype is not None and not with_dtype:
            return NotImplemented
        return _into(function(a, axis=axis, keepdims=keepdims, **kwargs), out)
    return call


def _search(function):
    def call(a, axis=None, out=None, *, keepdims=False):
        return _into(function(a, axis=axis, keepdims=keepdims), out)
    return call


def _mean(a, axis=None, dtype=None, out=None, keepdims=False):
    if dtype is not None:
        return NotImplemented
    return _into(_statistical.mean(a, axis=axis, keepdims=keepdims), out)


_FUNCTIONS = {
    np.sum: _reduction(_statistical.sum, with_dtype=True),
    np.max: _reduction(_statistical.max), np.amax: _reduction(_statistical.max),
    np.min: _reduction(_statistical.min), np.amin: _reduction(_statistical.min),
    np.mean: _mean,
    np.argmax: _search(_searching.argmax), np.argmin: _search(_searching.argmin),
    np.where: lambda condition, x, y: _elementwise.where(condition, x, y),
    np.matmul: lambda x1, x2: _linear_algebra.matmul(x1, x2),
}


def _is_device_operand(value):
    array_type = _ops._array_type or _ops._npuarray_type()
    return isinstance(value, (array_type, builtins.bool, int, float, complex, np.generic))


def _into(result, out):
    """``result``, or ``out`` (an NPUArray of the result's shape) holding it."""
    if result is NotImplemented or out is None:
        return result
    if isinstance(out, tuple):
        if len(out) != 1:
            return NotImplemented
        out = out[0]
    if not isinstance(out, _ops._array_type or _ops._npuarray_type()):
        return NotImplemented
    if out.shape != result.shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
    return _ops.copy_(out, result)


def array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    """NEP 13: ``ufunc(*inputs)`` (method ``"__call__"``) and ``ufunc.reduce``
    for the ufuncs npuarray implements; NotImplemented otherwise."""
    if not builtins.all(_is_device_operand(v) for v in inputs):
        return NotImplemented
    if method == "__call__" and ufunc in _UFUNCS and not kwargs:
        return _into(_UFUNCS[ufunc](*inputs), out)
    if method == "reduce" and ufunc in _REDUCTIONS and len(inputs) == 1:
        axis = kwargs.pop("axis", 0)  # ufunc.reduce reduces the first axis by default
        keepdims = kwargs.pop("keepdims", False)
        dtype = kwargs.pop("dtype", None)
        if kwargs or (dtype is not None and ufunc is not np.add):
            return NotImplemented
        extra = {"dtype": dtype} if ufunc is np.add else {}
        return _into(_REDUCTIONS[ufunc](inputs[0], axis=axis, keepdims=keepdims, **extra),
                     out)
    return NotImplemented


def array_function(self, func, types, args, kwargs):
    """NEP 18: the npuarray implementation of ``func`` when it has one and the
    arguments are NPUArrays / scalars; NotImplemented otherwise."""
    implementation = _FUNCTIONS.get(func)
    if implementation is None:
        return NotImplemented
    array_type = _ops._array_type or _ops._npuarray_type()
    if not builtins.all(issubclass(t, array_type) for t in types):
        return NotImplemented
    try:  # arguments the device version lacks (initial=, where=, ...): not ours
        inspect.signature(implementation).bind(*args, **kwargs)
    except TypeError:
        return NotImplemented
    return implementation(*args, **kwargs)
