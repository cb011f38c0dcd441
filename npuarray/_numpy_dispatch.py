"""NumPy's dispatch protocols for NPUArray: NumPy calls on device arrays run on the device.

``numpy.add(x, y, dtype=..., out=..., where=..., casting=...)``,
``numpy.add.reduce / accumulate / outer / at``, ``numpy.concatenate``,
``numpy.median``, ``numpy.linalg.norm``... with NPUArray operands call the
npuarray function of the same meaning (NEP 13 ``__array_ufunc__``, NEP 18
``__array_function__``) and return NPUArrays computed on the current stream
of the operands' device: nothing is copied to the host.

A NumPy function or ufunc npuarray does not implement raises TypeError naming
it, instead of downloading the data silently (as CuPy does); the way to
NumPy's own version is an explicit ``x.to_host()`` / ``npuarray.asnumpy(x)``.
NumPy arrays mixed with NPUArrays are not uploaded either (NotImplemented:
NumPy raises TypeError).

NumPy's creation functions called with ``like=`` an NPUArray (NEP 35:
``numpy.asarray(data, like=x)``, ``numpy.zeros(shape, like=x)``, ``numpy.arange``,
``numpy.eye``, ``numpy.fromfunction``, ...) return NPUArrays on ``x``'s device, made
on its current stream (host data is uploaded explicitly); Dask makes its small
helper arrays this way.

The array class binds these as ``__array_ufunc__`` and ``__array_function__``.
"""
import builtins
import inspect

import numpy as np

from ._core import _elementwise as ew
from ._core import _manipulation, _ops, _statistical, _transfer, _utility
from . import _creation, _indexing, _linear_algebra, _logic, _manipulation as nm, _math, _set
from . import _sorting, _statistics
from . import (_bitpacking, _dtype_routines, _functional, _io, _memory_ranges, _polynomial,
               _window)
from . import _numpy_adapters as _adapters

__all__ = []

_SCALARS = (builtins.bool, int, float, complex, np.generic)


def _array_type():
    return _ops._array_type or _ops._npuarray_type()


# ---------------------------------------------------------------------------
# __array_ufunc__

_UFUNCS = {
    np.add: ew.add, np.subtract: ew.subtract, np.multiply: ew.multiply,
    np.divide: ew.divide, np.floor_divide: ew.floor_divide, np.remainder: ew.remainder,
    np.power: ew.pow, np.negative: ew.negative, np.positive: ew.positive,
    np.absolute: ew.abs, np.fabs: _math.fabs, np.exp: ew.exp, np.exp2: _math.exp2,
    np.expm1: ew.expm1, np.log: ew.log, np.log2: ew.log2, np.log10: ew.log10,
    np.log1p: ew.log1p, np.sqrt: ew.sqrt, np.square: ew.square, np.cbrt: _math.cbrt,
    np.reciprocal: ew.reciprocal, np.sin: ew.sin, np.cos: ew.cos, np.tan: ew.tan,
    np.arcsin: ew.asin, np.arccos: ew.acos, np.arctan: ew.atan, np.arctan2: ew.atan2,
    np.sinh: ew.sinh, np.cosh: ew.cosh, np.tanh: ew.tanh, np.arcsinh: ew.asinh,
    np.arccosh: ew.acosh, np.arctanh: ew.atanh, np.hypot: ew.hypot,
    np.logaddexp: ew.logaddexp, np.copysign: ew.copysign, np.nextafter: ew.nextafter,
    np.equal: ew.equal, np.not_equal: ew.not_equal, np.greater: ew.greater,
    np.greater_equal: ew.greater_equal, np.less: ew.less, np.less_equal: ew.less_equal,
    np.maximum: ew.maximum, np.minimum: ew.minimum, np.fmax: _math.fmax,
    np.fmin: _math.fmin, np.logical_and: ew.logical_and, np.logical_or: ew.logical_or,
    np.logical_xor: ew.logical_xor, np.logical_not: ew.logical_not,
    np.bitwise_and: ew.bitwise_and, np.bitwise_or: ew.bitwise_or,
    np.bitwise_xor: ew.bitwise_xor, np.invert: ew.bitwise_invert,
    np.left_shift: ew.bitwise_left_shift, np.right_shift: ew.bitwise_right_shift,
    np.isnan: ew.isnan, np.isinf: ew.isinf, np.isfinite: ew.isfinite,
    np.signbit: ew.signbit, np.sign: ew.sign, np.floor: ew.floor, np.ceil: ew.ceil,
    np.trunc: ew.trunc, np.rint: _math.rint, np.conjugate: ew.conj,
    np.deg2rad: _math.deg2rad, np.rad2deg: _math.rad2deg, np.heaviside: _math.heaviside,
    np.matmul: _linear_algebra.matmul,
}

# ufunc.reduce: (device reduction, identity used for ``where=``).
_REDUCTIONS = {
    np.add: (_statistical.sum, 0), np.multiply: (_statistical.prod, 1),
    np.maximum: (_statistical.max, None), np.minimum: (_statistical.min, None),
    np.logical_and: (_utility.all, True), np.logical_or: (_utility.any, False),
    np.fmax: (_math.nanmax, None), np.fmin: (_math.nanmin, None),
}
# ufunc.accumulate.
_ACCUMULATIONS = {np.add: _statistical.cumulative_sum, np.multiply: _statistical.cumulative_prod}


def _is_device_operand(value):
    return isinstance(value, (_array_type(), *_SCALARS))


def _not_implemented(what):
    raise TypeError(f"{what} is not implemented for NPUArray by npuarray; copy the data "
                    f"to the host explicitly (x.to_host() or npuarray.asnumpy(x)) to use "
                    f"NumPy's version")


def _out_array(out):
    """The one output NPUArray of ``out=`` (None, an array or a 1-tuple)."""
    if isinstance(out, tuple):
        if len(out) != 1:
            raise TypeError(f"npuarray ufuncs have one output, got out= of length {len(out)}")
        out = out[0]
    if out is not None and not isinstance(out, _array_type()):
        raise TypeError(f"out must be an NPUArray, got {type(out).__name__}")
    return out


def _check_cast(ufunc, source, target, casting, what):
    if not np.can_cast(source, target, casting=casting):
        raise TypeError(f"Cannot cast ufunc {ufunc.__name__!r} {what} from {source!r} to "
                        f"{target!r} with casting rule {casting!r}")


def _cast_inputs(ufunc, inputs, dtype, casting):
    """The inputs converted to ``dtype`` (NumPy's ``dtype=``: the loop's type)."""
    dtype = np.dtype(dtype)
    converted = []
    for value in inputs:
        if isinstance(value, _array_type()):
            _check_cast(ufunc, value.dtype, dtype, casting, "input")
            value = _manipulation.astype(value, dtype, copy=False)
        converted.append(value)
    return converted


def _store(ufunc, result, out, where, casting):
    """``result`` written into ``out`` (cast by ``casting``) where ``where`` holds."""
    if where is not True:
        if out is not None:
            result = ew.where(where, result, out)
        # Without out=, NumPy leaves the masked-out elements uninitialised; they keep
        # the computed values here.
    if out is None:
        return result
    _check_cast(ufunc, result.dtype, out.dtype, casting, "output")
    if out.shape != result.shape:
        result = _manipulation.broadcast_to(result, out.shape)
    _ops.copy_(out, result)
    return out


def _call(ufunc, inputs, out, kwargs):
    function = _UFUNCS.get(ufunc)
    if function is None:
        _not_implemented(f"numpy.{ufunc.__name__}")
    dtype = kwargs.pop("dtype", None)
    where = kwargs.pop("where", True)
    casting = kwargs.pop("casting", "same_kind")
    kwargs.pop("subok", None)
    if kwargs.pop("order", "K") not in ("K", "C", "A"):
        raise TypeError(f"numpy.{ufunc.__name__}: only C order results are supported")
    if kwargs:
        raise TypeError(f"numpy.{ufunc.__name__}: the arguments {sorted(kwargs)} are not "
                        f"supported on NPUArrays by npuarray")
    if dtype is not None:
        inputs = _cast_inputs(ufunc, inputs, dtype, casting)
    return _store(ufunc, function(*inputs), out, where, casting)


def _reduce(ufunc, array, axis=0, dtype=None, out=None, keepdims=False,
            initial=np._NoValue, where=True):
    entry = _REDUCTIONS.get(ufunc)
    if entry is None:
        _not_implemented(f"numpy.{ufunc.__name__}.reduce")
    function, identity = entry
    if where is not True:
        if identity is None:
            raise TypeError(f"numpy.{ufunc.__name__}.reduce: where= is not supported")
        array = ew.where(where, array, identity)
    options = {"dtype": dtype} if function in (_statistical.sum, _statistical.prod) else {}
    if dtype is not None and not options:
        array = _manipulation.astype(array, dtype, copy=False)
    result = function(array, axis=axis, keepdims=keepdims, **options)
    if initial is not np._NoValue and initial is not None:
        result = _UFUNCS[ufunc](result, initial)
    return _store(ufunc, result, _out_array(out), True, "unsafe")


def _accumulate(ufunc, array, axis=0, dtype=None, out=None):
    function = _ACCUMULATIONS.get(ufunc)
    if function is None:
        _not_implemented(f"numpy.{ufunc.__name__}.accumulate")
    if array.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    return _store(ufunc, function(array, axis=axis, dtype=dtype), _out_array(out), True,
                  "unsafe")


def _outer(ufunc, a, b, **kwargs):
    a, b = (x if isinstance(x, _array_type()) else _creation.array(x) for x in (a, b))
    expanded = _manipulation.reshape(a, a.shape + (1,) * b.ndim)
    return _call(ufunc, [expanded, b], _out_array(kwargs.pop("out", None)), kwargs)


def _at(ufunc, a, indices, b=None):
    """``ufunc.at(a, indices, b)``: unbuffered in place. add / subtract scatter
    with aclnnIndexPutImpl(accumulate=true), so repeated indices all count;
    other ufuncs gather, compute and write back, which needs distinct indices
    (checked: one read of their count)."""
    if ufunc not in _UFUNCS:
        _not_implemented(f"numpy.{ufunc.__name__}.at")
    key = indices if isinstance(indices, tuple) else (indices,)
    arrays = [_indexing._int_indices(i, "at") if not isinstance(i, slice) else i
              for i in key]
    if builtins.any(isinstance(i, slice) for i in arrays):
        raise TypeError(f"numpy.{ufunc.__name__}.at: slices in the indices are not supported")
    arrays = [ew.where(ew.less(i, 0), ew.add(i, n), i) for i, n in zip(arrays, a.shape)]
    if ufunc in (np.add, np.subtract) and b is not None:
        values = ew.negative(b) if ufunc is np.subtract and isinstance(b, _array_type()) \
            else (-b if ufunc is np.subtract else b)
        target_shape = arrays[0].shape + a.shape[len(arrays):]
        values = _manipulation.astype(_manipulation.broadcast_to(
            values if isinstance(values, _array_type()) else
            _creation.array(values, dtype=a.dtype, device=a.device), target_shape), a.dtype)
        stream = _ops.stream_of(a)
        _ops.launch("aclnnIndexPutImpl", a, _ops.acl_tensor_list(arrays, stream),
                    _ops.copy(values), True, False, stream=stream)
        return None
    flat = arrays[0] if len(arrays) == 1 else None
    if flat is None or _set.unique(flat).shape[0] != flat.shape[0]:
        raise TypeError(f"numpy.{ufunc.__name__}.at: repeated or multi-axis indices are "
                        f"supported for add and subtract only")
    current = a[flat]
    a[flat] = _UFUNCS[ufunc](current) if b is None else _UFUNCS[ufunc](current, b)
    return None


def array_ufunc(self, ufunc, method, *inputs, out=None, **kwargs):
    """NEP 13: ``ufunc(*inputs)``, ``ufunc.reduce``, ``ufunc.accumulate``,
    ``ufunc.outer`` and ``ufunc.at`` on the device, with ``out=``, ``dtype=``,
    ``where=`` and ``casting=``. TypeError naming the ufunc (and method) for
    what npuarray does not implement; NotImplemented for host arrays mixed in."""
    if not builtins.all(_is_device_operand(v) for v in inputs):
        return NotImplemented
    if method == "__call__":
        return _call(ufunc, inputs, _out_array(out), kwargs)
    if method == "reduce":
        return _reduce(ufunc, *inputs, out=out, **kwargs)
    if method == "accumulate":
        return _accumulate(ufunc, *inputs, out=out, **kwargs)
    if method == "outer":
        return _outer(ufunc, *inputs, out=out, **kwargs)
    if method == "at":
        return _at(ufunc, *inputs)
    _not_implemented(f"numpy.{ufunc.__name__}.{method}")


# ---------------------------------------------------------------------------
# __array_function__

def _function_table():
    """NumPy function -> npuarray implementation with NumPy's signature."""
    table = {}
    # The NumPy names each namespace module defines with NumPy's signature (not the array
    # API functions it re-exports from the core, whose signatures are the standard's, nor
    # NumPy's own objects that some re-export).
    for module in (_creation, _indexing, _linear_algebra, nm, _logic, _math, _set, _sorting,
                   _statistics, _io, _polynomial, _window, _functional, _bitpacking,
                   _dtype_routines, _memory_ranges):
        for name in module.__all__:
            function = getattr(module, name)
            target = getattr(np, name, None)
            if (callable(target) and not isinstance(target, (type, np.ufunc))
                    and getattr(function, "__module__", None) == module.__name__):
                table[target] = function
    a = _adapters
    table.update({
        np.sum: _math.numpy_sum, np.prod: _math.numpy_prod,
        np.mean: _statistics.numpy_mean, np.std: _statistics.numpy_std,
        np.var: _statistics.numpy_var, np.max: _math.amax, np.min: _math.amin,
        np.round: a.round_, np.around: a.round_, np.argmax: a.argmax, np.argmin: a.argmin,
        np.sort: a.sort, np.argsort: a.argsort, np.where: a.where, np.clip: a.clip,
        np.reshape: a.reshape, np.stack: a.stack, np.take: a.take,
        np.searchsorted: a.searchsorted, np.count_nonzero: a.count_nonzero,
        np.all: a.all_, np.any: a.any_, np.diff: a.diff, np.zeros_like: a.zeros_like,
        np.ones_like: a.ones_like, np.empty_like: a.empty_like, np.full_like: a.full_like,
        np.broadcast_to: a.broadcast_to, np.broadcast_arrays: a.broadcast_arrays,
        np.meshgrid: a.meshgrid, np.isin: a.isin, np.astype: a.astype, np.copyto: a.copyto,
        np.result_type: a.result_type, np.can_cast: a.can_cast, np.shape: a.shape,
        np.ndim: a.ndim, np.size: a.size, np.iscomplexobj: a.iscomplexobj,
        np.isrealobj: a.isrealobj, np.tensordot: a.tensordot, np.concat: nm.concatenate,
        np.permute_dims: nm.transpose, np.matmul: _linear_algebra.matmul,
        np.cumulative_sum: a.cumulative(_statistical.cumulative_sum, "cumulative_sum"),
        np.cumulative_prod: a.cumulative(_statistical.cumulative_prod, "cumulative_prod"),
    })
    for numpy_function, function in _SAME_FUNCTIONS():
        table[numpy_function] = _keyword_adapter(numpy_function, function)
    from . import fft, linalg
    for numpy_module, module in ((np.linalg, linalg), (np.fft, fft)):
        for name in module.__all__:
            numpy_function = getattr(numpy_module, name, None)
            if callable(numpy_function) and not isinstance(numpy_function, (type, np.ufunc)):
                table[numpy_function] = _keyword_adapter(numpy_function, getattr(module, name))
    table[np.linalg.norm] = _adapters.norm
    return table


def _SAME_FUNCTIONS():
    """NumPy functions whose array API namesake npuarray has: same meaning, the
    standard's positional-only / keyword-only split."""
    from ._core import _creation as cr, _searching as se, _set
    m = _manipulation
    return [(np.squeeze, m.squeeze), (np.expand_dims, m.expand_dims), (np.flip, m.flip),
            (np.roll, m.roll), (np.tile, m.tile), (np.repeat, m.repeat),
            (np.moveaxis, m.moveaxis), (np.swapaxes, m.swapaxes),
            (np.matrix_transpose, m.matrix_transpose), (np.unstack, m.unstack),
            (np.take_along_axis, _take_along_axis()), (np.nonzero, se.nonzero),
            (np.tril, cr.tril), (np.triu, cr.triu), (np.real, ew.real), (np.imag, ew.imag),
            (np.unique_all, _set.unique_all), (np.unique_counts, _set.unique_counts),
            (np.unique_inverse, _set.unique_inverse),
            (np.unique_values, _set.unique_values)]


def _take_along_axis():
    from ._core._indexing import take_along_axis
    return take_along_axis


def _keyword_adapter(numpy_function, function):
    """``function`` called with NumPy's arguments: the leading ones it takes
    positionally, the rest by NumPy's parameter names (an argument it lacks is
    a TypeError naming it)."""
    numpy_signature = inspect.signature(numpy_function)
    positional = builtins.sum(
        1 for p in inspect.signature(function).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.VAR_POSITIONAL))
    name = f"numpy.{numpy_function.__name__}"

    def call(*args, **kwargs):
        try:
            arguments = list(numpy_signature.bind(*args, **kwargs).arguments.items())
        except TypeError as error:
            raise TypeError(f"{name}: {error}") from None
        leading = [value for _, value in arguments[:positional]]
        if arguments and numpy_signature.parameters[arguments[0][0]].kind == \
                inspect.Parameter.VAR_POSITIONAL:
            leading = list(arguments[0][1])
            arguments = arguments[1:]
        else:
            arguments = arguments[positional:]
        return function(*leading, **dict(arguments))
    call.__name__ = numpy_function.__name__
    call.__doc__ = f"{name} on NPUArrays: {function.__module__}.{function.__name__}."
    return call


# ---------------------------------------------------------------------------
# like=: NumPy's creation functions with ``like=`` an NPUArray (NEP 35)
#
# ``numpy.zeros(3, like=x)`` calls ``x.__array_function__`` with the function and
# its other arguments; these functions reach NPUArray only that way, so ``self`` is
# the ``like`` array and its device is the result's. Host data (sequences, NumPy
# arrays, parsed text) is uploaded: an explicit transfer, as ``npuarray.asarray``.

def _target(device, like_device):
    """The result's device: like's. NumPy's own ``device=`` can only name the host
    ("cpu"), which contradicts ``like=NPUArray``: ValueError."""
    if device is not None:
        raise ValueError(f"device={device!r} with like=NPUArray: the result is made on "
                         f"like's device ({like_device!r}); leave device= out")
    return like_device


def _c_order(order, name):
    if order not in (None, "K", "A", "C"):
        raise ValueError(f"numpy.{name}(like=NPUArray): npuarray arrays are C-ordered, "
                         f"got order={order!r}")


def _like_asarray(like_device, a, dtype=None, order=None, *, device=None, copy=None):
    """``numpy.asarray`` / ``asanyarray``: ``npuarray.asarray`` on like's device."""
    _c_order(order, "asarray")
    return _transfer.asarray(a, dtype=dtype, device=_target(device, like_device), copy=copy)


def _like_array(like_device, object, dtype=None, *, copy=True, order="K", subok=False,  # noqa: A002
                ndmin=0, ndmax=0, device=None):
    """``numpy.array``: a copy (unless ``copy`` allows sharing) on like's device."""
    _c_order(order, "array")
    if ndmax:
        raise TypeError("numpy.array(like=NPUArray): ndmax is not supported")
    return _creation.array(object, dtype, copy=copy, order=order, ndmin=ndmin,
                           device=_target(device, like_device))


def _like_ascontiguousarray(like_device, a, dtype=None, *, device=None):
    return _creation.ascontiguousarray(
        _transfer.asarray(a, device=_target(device, like_device)), dtype)


def _like_filled(fill):
    """``numpy.zeros`` / ``ones`` / ``empty`` (NumPy's default dtype float64)."""
    def create(like_device, shape, dtype=None, order="C", *, device=None):
        _c_order(order, fill.__name__)
        return fill(shape, dtype=np.float64 if dtype is None else dtype,
                    device=_target(device, like_device))
    return create


def _like_full(like_device, shape, fill_value, dtype=None, order="C", *, device=None):
    """``numpy.full``: aclnnInplaceFillScalar for a scalar ``fill_value`` (dtype from
    it as NumPy when not given); an array ``fill_value`` is broadcast and copied."""
    _c_order(order, "full")
    device = _target(device, like_device)
    if isinstance(fill_value, _array_type()) or np.ndim(fill_value):
        fill = _transfer.asarray(fill_value, device=device)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        return _manipulation.astype(_manipulation.broadcast_to(fill, shape),
                                    fill.dtype if dtype is None else dtype, copy=True)
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return _npx_creation().full(shape, fill_value, dtype=dtype, device=device)


def _like_arange(like_device, start=None, stop=None, step=None, dtype=None, *, device=None):
    """``numpy.arange([start,] stop[, step], dtype)``: aclnnArange."""
    if stop is None:
        start, stop = 0, start
    elif start is None:
        start = 0
    if stop is None:
        raise TypeError("numpy.arange() requires stop")
    return _npx_creation().arange(start, stop, 1 if step is None else step, dtype=dtype,
                                  device=_target(device, like_device))


def _like_eye(like_device, N, M=None, k=0, dtype=float, order="C", *, device=None):
    _c_order(order, "eye")
    return _npx_creation().eye(N, M, k=k, dtype=dtype, device=_target(device, like_device))


def _like_identity(like_device, n, dtype=None, *, device=None):
    return _creation.identity(n, np.float64 if dtype is None else dtype,
                              device=_target(device, like_device))


def _like_tri(like_device, N, M=None, k=0, dtype=float, *, device=None):
    return _creation.tri(N, M, k, dtype, device=_target(device, like_device))


def _like_fromfunction(like_device, function, shape, *, dtype=float, **kwargs):
    """``numpy.fromfunction``: ``function`` called with one index grid per axis
    (aclnnArange, broadcast) on like's device."""
    grids = _creation.indices(shape, dtype=dtype, device=like_device)
    return function(*_manipulation.unstack(grids), **kwargs)


_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "A": "A", "ALIGNED": "A",
                 "W": "W", "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E",
                 "ENSUREARRAY": "E", "F": "F", "F_CONTIGUOUS": "F", "FORTRAN": "F"}


def _like_require(like_device, a, dtype=None, requirements=None):
    """``numpy.require``: an NPUArray on like's device that is aligned, writeable and
    an array already; "C" makes it C-contiguous, "O" a copy owning its memory; "F"
    (Fortran order) raises ValueError as npuarray arrays are C-ordered."""
    given = list(requirements or ())  # a string is a sequence of one-letter flags, as in NumPy
    unknown = [r for r in given if str(r).upper() not in _REQUIREMENTS]
    if unknown:
        raise ValueError(f"numpy.require: unknown requirements {unknown}")
    wanted = {_REQUIREMENTS[r.upper()] for r in given}
    if "F" in wanted:
        raise ValueError("numpy.require(like=NPUArray): npuarray arrays are C-ordered")
    result = _transfer.asarray(a, dtype=dtype, device=like_device)
    if "O" in wanted:
        return _manipulation.copy_array(result)
    return _creation.ascontiguousarray(result) if "C" in wanted and result.ndim else result


def _like_parsed(parse):
    """``numpy.fromiter`` / ``frombuffer`` / ``fromstring`` / ``fromfile`` /
    ``loadtxt`` / ``genfromtxt``: NumPy reads the host data, then it is uploaded."""
    def read(like_device, *args, **kwargs):
        return _transfer.asarray(parse(*args, **kwargs), device=like_device)
    read.__name__ = parse.__name__
    return read


def _npx_creation():
    from ._core import _creation as array_api_creation
    return array_api_creation


def _like_asfortranarray(like_device, a, dtype=None):
    """``numpy.asfortranarray``: ``a`` uploaded to like's device, in Fortran order."""
    return _creation.asfortranarray(_transfer.asarray(a, dtype=dtype, device=like_device))


def _like_table():
    creation = _npx_creation()
    table = {np.asarray: _like_asarray, np.asanyarray: _like_asarray, np.array: _like_array,
             np.ascontiguousarray: _like_ascontiguousarray, np.zeros: _like_filled(creation.zeros),
             np.ones: _like_filled(creation.ones), np.empty: _like_filled(creation.empty),
             np.full: _like_full, np.arange: _like_arange, np.eye: _like_eye,
             np.identity: _like_identity, np.tri: _like_tri, np.fromfunction: _like_fromfunction,
             np.require: _like_require, np.asfortranarray: _like_asfortranarray}
    for parse in (np.fromiter, np.frombuffer, np.fromstring, np.fromfile, np.loadtxt,
                  np.genfromtxt):
        table[parse] = _like_parsed(parse)
    return table


_LIKE = None  # built on first use, as _FUNCTIONS


_FUNCTIONS = None  # built on first use: the npuarray modules import this one


def array_function(self, func, types, args, kwargs):
    """NEP 18: the npuarray implementation of ``func`` with NumPy's signature
    when npuarray has one (the result stays on the device). TypeError naming
    ``func`` when it has none; NotImplemented when non-NPUArray array types
    take part (NumPy then raises TypeError)."""
    global _FUNCTIONS, _LIKE
    array_type = _array_type()
    if not builtins.all(issubclass(t, array_type) for t in types):
        return NotImplemented
    if _FUNCTIONS is None:
        _FUNCTIONS = _function_table()
    if _LIKE is None:
        _LIKE = _like_table()
    like = _LIKE.get(func)
    if like is not None:  # called with like=self: the result goes to self's device
        return like(self.device, *args, **kwargs)
    implementation = _FUNCTIONS.get(func)
    if implementation is None:
        module = getattr(func, "__module__", "numpy") or "numpy"
        module = "numpy" if module.startswith("numpy._core") or module == "numpy" else module
        _not_implemented(f"{module}.{func.__name__}")
    return implementation(*args, **kwargs)
