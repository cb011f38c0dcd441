"""NumPy's dispatch protocols for NPUArray: NumPy calls on device arrays run on the device.

``numpy.add(x, y, dtype=..., out=..., where=..., casting=...)``,
``numpy.add.reduce / accumulate / outer / at``, ``numpy.concatenate``,
``numpy.median``, ``numpy.linalg.norm``... with NPUArray operands call the
npuarray function of the same meaning (NEP 13 ``__array_ufunc__``, NEP 18
``__array_function__``) and return NPUArrays computed on the current stream
of the operands' device: nothing is copied to the host.

Host operands mixed in (NumPy arrays, sequences) are uploaded; a NumPy function
or ufunc npuarray does not implement (``numpy.may_share_memory(x, a)``,
``numpy.average(a, weights=x)``...) runs on host copies and returns NumPy's host
result, as JAX does. Both are implicit transfers under ``transfer_guard``
("log" reports the caller's line, "disallow" raises ImplicitTransferError naming
the function). Another library's arrays get NotImplemented.

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

from ._core import _creation as core_creation, _searching as core_searching, _set as core_set
from ._core import _elementwise as ew
from ._core import _manipulation, _transfer
from ._core._array import NPUArray
from . import _creation, _indexing, _linear_algebra, _logic, _manipulation as nm, _math, _set
from . import _bitwise, _dtype_routines, _functional, _io, _memory_ranges, _polynomial
from . import _sorting, _statistics, _window
from . import _numpy_adapters as _adapters
from . import _ufunc
from . import fft, linalg

__all__ = []

_SCALARS = (builtins.bool, int, float, complex, np.generic)



# ---------------------------------------------------------------------------
# __array_ufunc__

def _is_operand(value):
    """Whether NumPy's protocols take ``value`` with NPUArrays: device arrays, scalars,
    host arrays and sequences (uploaded or, for what runs on the host, kept)."""
    return isinstance(value, (NPUArray, np.ndarray, list, tuple, slice, *_SCALARS)) \
        or value is None or value is Ellipsis


def _host_values(value, what):
    """``value`` with every NPUArray in it (in lists, tuples and dicts too) copied to
    the host: an implicit transfer for ``what``."""
    if isinstance(value, NPUArray):
        return _transfer.implicit_to_host(value, what, "npuarray.asnumpy(x) first")
    if isinstance(value, (list, tuple)):
        return type(value)(_host_values(v, what) for v in value)
    if isinstance(value, dict):
        return {k: _host_values(v, what) for k, v in value.items()}
    return value


def _holds_device_array(value):
    if isinstance(value, NPUArray):
        return True
    if isinstance(value, (list, tuple)):
        return builtins.any(_holds_device_array(v) for v in value)
    if isinstance(value, dict):
        return builtins.any(_holds_device_array(v) for v in value.values())
    return False


def _not_implemented(what):
    raise TypeError(f"{what} is not implemented by npuarray")


def on_host(function, what, args, kwargs):
    """``function(*args, **kwargs)`` run by NumPy on host copies of the NPUArrays in
    the arguments (implicit transfers under ``transfer_guard``, which names
    ``what``); NumPy's host result."""
    return function(*_host_values(args, what), **_host_values(kwargs, what))


# NumPy's generalised ufuncs of linear algebra, which npuarray has as functions.
_PRODUCTS = {np.matmul: _linear_algebra.matmul, np.matvec: _linear_algebra.matvec,
             np.vecmat: _linear_algebra.vecmat, np.vecdot: _linear_algebra.vecdot}


def _has_host_out(out):
    outs = out if isinstance(out, tuple) else (out,)
    return builtins.any(isinstance(o, np.ndarray) for o in outs)


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: ``ufunc(*inputs)``, ``ufunc.reduce``, ``accumulate``, ``outer``,
    ``reduceat`` and ``at`` on the device through the npuarray ufunc of the same
    name (``npuarray.ufunc``: ``out=``, ``dtype=``, ``where=``, ``casting=``,
    ``order=``); host operands are uploaded. A ufunc npuarray lacks, or a NumPy
    ``out=``, runs on host copies and returns NumPy's result (implicit transfers
    under ``transfer_guard``). NotImplemented for another library's arrays."""
    out = kwargs.get("out")
    values = inputs + (out if isinstance(out, tuple) else (out,))
    if not builtins.all(_is_operand(v) for v in values):
        return NotImplemented
    device_ufunc = _ufunc.BY_NUMPY.get(ufunc)
    what = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}")
    product = _PRODUCTS.get(ufunc) if method == "__call__" else None
    if product is not None and not _has_host_out(out):
        return product(*inputs, **kwargs)
    if device_ufunc is None or _has_host_out(out):
        return on_host(getattr(ufunc, method), what, inputs, kwargs)
    if method == "__call__":
        return device_ufunc._call(*inputs, **kwargs)
    return getattr(device_ufunc, method)(*inputs, **kwargs)


# ---------------------------------------------------------------------------
# __array_function__

def _function_table():
    """NumPy function -> npuarray implementation with NumPy's signature."""
    table = {}
    # The NumPy names each namespace module defines with NumPy's signature (not the array
    # API functions it re-exports from the core, whose signatures are the standard's, nor
    # NumPy's own objects that some re-export).
    for module in (_creation, _indexing, _linear_algebra, nm, _logic, _math, _set, _sorting,
                   _statistics, _bitwise, _io, _polynomial, _window, _functional,
                   _dtype_routines, _memory_ranges):
        for name in module.__all__:
            function = getattr(module, name)
            target = getattr(np, name, None)
            if (callable(target) and not isinstance(target, (type, np.ufunc))
                    and getattr(function, "__module__", None) == module.__name__):
                table[target] = function
    a = _adapters
    table.update({
        np.stack: a.stack, np.count_nonzero: a.count_nonzero, np.diff: a.diff,
        np.broadcast_to: a.broadcast_to, np.broadcast_arrays: a.broadcast_arrays,
        np.astype: a.astype, np.copyto: a.copyto, np.result_type: a.result_type,
        np.can_cast: a.can_cast, np.shape: a.shape, np.ndim: a.ndim, np.size: a.size,
        np.iscomplexobj: a.iscomplexobj, np.isrealobj: a.isrealobj, np.tensordot: a.tensordot,
        np.concat: nm.concatenate, np.permute_dims: nm.transpose,
        np.matmul: _linear_algebra.matmul,
    })
    # The array API functions NumPy has under the same name, unless a namespace module
    # defines the function with NumPy's signature and the standard's (tile, tril, real...).
    for numpy_function, function in _SAME_FUNCTIONS():
        table.setdefault(numpy_function, _keyword_adapter(numpy_function, function))
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
    m = _manipulation
    return [(np.squeeze, m.squeeze), (np.expand_dims, m.expand_dims), (np.flip, m.flip),
            (np.roll, m.roll), (np.tile, m.tile), (np.repeat, m.repeat),
            (np.moveaxis, m.moveaxis), (np.swapaxes, m.swapaxes),
            (np.matrix_transpose, m.matrix_transpose), (np.unstack, m.unstack),
            (np.nonzero, core_searching.nonzero), (np.tril, core_creation.tril),
            (np.triu, core_creation.triu), (np.real, ew.real), (np.imag, ew.imag),
            (np.unique_all, core_set.unique_all), (np.unique_counts, core_set.unique_counts),
            (np.unique_inverse, core_set.unique_inverse),
            (np.unique_values, core_set.unique_values)]



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
    if isinstance(fill_value, NPUArray) or np.ndim(fill_value):
        fill = _transfer.asarray(fill_value, device=device)
        shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
        return _manipulation.astype(_manipulation.broadcast_to(fill, shape),
                                    fill.dtype if dtype is None else dtype, copy=True)
    dtype = np.asarray(fill_value).dtype if dtype is None else dtype
    return core_creation.full(shape, fill_value, dtype=dtype, device=device)


def _like_arange(like_device, start=None, stop=None, step=None, dtype=None, *, device=None):
    """``numpy.arange([start,] stop[, step], dtype)``: aclnnArange."""
    if stop is None:
        start, stop = 0, start
    elif start is None:
        start = 0
    if stop is None:
        raise TypeError("numpy.arange() requires stop")
    return core_creation.arange(start, stop, 1 if step is None else step, dtype=dtype,
                                  device=_target(device, like_device))


def _like_eye(like_device, N, M=None, k=0, dtype=float, order="C", *, device=None):
    _c_order(order, "eye")
    return core_creation.eye(N, M, k=k, dtype=dtype, device=_target(device, like_device))


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


def _like_asfortranarray(like_device, a, dtype=None):
    """``numpy.asfortranarray``: ``a`` uploaded to like's device, in Fortran order."""
    return _creation.asfortranarray(_transfer.asarray(a, dtype=dtype, device=like_device))


def _like_table():
    creation = core_creation
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
    if not builtins.all(issubclass(t, (NPUArray, np.ndarray)) for t in types):
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
        if not _holds_device_array((args, kwargs)):
            # Only like=self brought NumPy here: a creation function without a device
            # version, whose host result would not be the NPUArray asked for.
            _not_implemented(f"{module}.{func.__name__}(like=NPUArray)")
        return on_host(func, f"{module}.{func.__name__}", args, kwargs)
    return implementation(*args, **kwargs)
