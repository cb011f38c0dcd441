"""NumPy's functional programming chapter (``numpy.vectorize``,
``apply_along_axis``, ``apply_over_axes``, ``piecewise``) for NPUArrays.

The Python functions given are called with NPUArrays (whole arrays, or the
1-D views ``apply_along_axis`` iterates over), so the work they do runs on the
device as the npuarray operations they call; the results are joined on the
device (aclnnCat, aclnnSWhere, aclnnCast) on the current stream. Only
``vectorize`` of a function that needs element values in Python copies to the
host (see its docstring).
"""
import itertools

import numpy as np

from ._core._creation import zeros_like
from ._core._data_type import normalize_dtype
from ._core._elementwise import logical_not, where
from ._core._manipulation import (astype, broadcast_arrays, broadcast_to, copy_array, expand_dims,
                            moveaxis, normalize_axis_tuple, permute_dims, reshape, stack)
from ._operands import as_device, is_array
from ._core._transfer import asarray
from ._core._utility import any as _any
from .linalg._host import on_host

__all__ = ["vectorize", "apply_along_axis", "apply_over_axes", "piecewise"]

# Arguments vectorize broadcasts (host sequences too, to refuse them clearly);
# Python scalars stay operands, as in npuarray's operators.
_ARRAY_LIKE = (np.generic, np.ndarray, list, tuple)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis``
    (``numpy.apply_along_axis``).

    ``func1d(a, *args, **kwargs)`` receives device views of shape
    ``(arr.shape[axis],)`` and returns an NPUArray or scalar; all results must
    share one shape, and they take the first result's dtype, as in NumPy. The
    result has shape ``arr.shape[:axis] + result.shape + arr.shape[axis+1:]``.
    The calls run one after another from Python (as NumPy's loop does); the
    results are stacked on the device (aclnnStack). Raises AxisError for a bad
    ``axis`` and ValueError when an iteration dimension is 0.
    """
    arr = as_device(arr, "apply_along_axis")
    (axis,) = normalize_axis_tuple(axis, arr.ndim)
    moved = moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    if 0 in outer:
        raise ValueError("Cannot apply_along_axis when any iteration dimensions are 0")
    results = [as_device(func1d(moved[index], *args, **kwargs), "apply_along_axis")
               for index in itertools.product(*map(range, outer))]
    first = results[0]
    if any(r.shape != first.shape for r in results):
        raise ValueError("could not broadcast the results of func1d: they differ in shape")
    joined = reshape(astype(stack(results), first.dtype, copy=False), outer + first.shape)
    # The result's own axes go where ``axis`` was, as NumPy places them.
    order = (tuple(range(axis)) + tuple(range(len(outer), joined.ndim))
             + tuple(range(axis, len(outer))))
    return joined if order == tuple(range(joined.ndim)) else permute_dims(joined, order)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` applied for each axis of ``axes`` in turn, each result
    fed to the next (``numpy.apply_over_axes``).

    ``func`` must keep the number of dimensions or drop exactly ``axis`` (the
    axis is then re-inserted with length 1, so the result has ``a.ndim``
    dimensions); otherwise ValueError, as NumPy's. Negative axes count from
    the end. Runs wherever ``func`` runs (the device, for npuarray reductions).
    """
    a = as_device(a, "apply_over_axes")
    ndim = a.ndim
    for axis in np.atleast_1d(np.asarray(axes)).tolist():
        if axis < 0:
            axis += ndim
        result = as_device(func(a, axis), "apply_over_axes")
        if result.ndim != ndim:
            result = expand_dims(result, axis=axis)
            if result.ndim != ndim:
                raise ValueError("function is not returning an array of the correct shape")
        a = result
    return a


def _single_condition(x, condlist):
    """NumPy's test for one condition given bare rather than in a list: a
    scalar, or (for non-0-d ``x``) a sequence whose first item is a scalar."""
    if isinstance(condlist, (bool, np.bool_)):
        return True
    if x.ndim == 0:
        return False
    if is_array(condlist):
        return condlist.ndim <= 1
    return (isinstance(condlist, list) and len(condlist) > 0
            and not isinstance(condlist[0], (list, np.ndarray)) and not is_array(condlist[0]))


def _conditions(x, condlist):
    """``condlist`` as a list of boolean NPUArrays, a bare condition wrapped."""
    if _single_condition(x, condlist):
        condlist = [condlist]
    conditions = []
    for cond in condlist:
        if isinstance(cond, (list, np.ndarray)):
            raise TypeError("piecewise: conditions must be NPUArrays or Python bools; upload "
                            "host data with npuarray.asarray()")
        cond = as_device(cond, "piecewise")
        conditions.append(cond if cond.dtype == np.bool_ else astype(cond, np.bool_))
    return conditions


def piecewise(x, condlist, funclist, *args, **kw):
    """``funclist[i]`` where ``condlist[i]`` holds, 0 elsewhere
    (``numpy.piecewise``); later conditions win where several hold.

    ``condlist``: boolean NPUArrays (or one) of ``x``'s shape; one more
    function than conditions gives the value where none holds (ValueError for
    any other count). Each entry of ``funclist`` is a scalar or a callable; a
    callable is called once with the whole of ``x`` (``f(x, *args, **kw)``,
    which must therefore be element-wise) and its values are kept where its
    condition holds (aclnnSWhere), where NumPy calls it with ``x[cond]``. The
    result has ``x``'s shape and dtype.
    """
    x = as_device(x, "piecewise")
    conditions = _conditions(x, condlist)
    if len(conditions) == len(funclist) - 1:
        others = _any(stack(conditions), axis=0) if conditions else as_device(False, "piecewise")
        conditions.append(logical_not(others))
    elif len(conditions) != len(funclist):
        raise ValueError(f"with {len(conditions)} condition(s), either {len(conditions)} or "
                         f"{len(conditions) + 1} functions are expected")
    y = zeros_like(x)
    for cond, func in zip(conditions, funclist):
        value = func(x, *args, **kw) if callable(func) else func
        if is_array(value) and value.dtype != x.dtype:
            value = astype(value, x.dtype)
        y = where(cond, value, y)
        if y.dtype != x.dtype:
            y = astype(y, x.dtype)
    return y


def _device_results(result):
    if isinstance(result, tuple):
        return tuple(asarray(np.asarray(r)) for r in result)
    return asarray(np.asarray(result))


class vectorize:
    """``numpy.vectorize`` for NPUArrays: ``vectorize(pyfunc)(*args)``
    broadcasts the array arguments and calls ``pyfunc`` ONCE with the whole
    NPUArrays, so a ``pyfunc`` written with npuarray operations (operators,
    ``npx.where``, ``npx.exp``, ...) runs on the device as they do, on the
    current stream.

    A ``pyfunc`` that needs element values in Python (``if x > 0:``,
    ``math.sin(x)``) raises TypeError or ValueError on whole arrays; then, as
    for any function npuarray cannot run on the device, the call is repeated
    on host copies by ``numpy.vectorize`` (one Python call per element) and the
    result uploaded: an implicit transfer, logged under
    ``transfer_guard("log")`` and refused with ImplicitTransferError under
    ``"disallow"``. ``pyfunc`` is then called a second time.

    ``otypes``: a string of type characters or a list of dtypes, one per
    output; outputs are cast to them. ``excluded``: positions or names of
    arguments passed to ``pyfunc`` unchanged. ``doc``: the docstring (default
    ``pyfunc``'s). ``cache`` is accepted and has no effect (``pyfunc`` is called
    once per call on the device path anyway). ``signature`` (generalised
    ufuncs) is not supported: TypeError.
    """

    def __init__(self, pyfunc, otypes=None, doc=None, excluded=None, cache=False,
                 signature=None):
        if not callable(pyfunc):
            raise TypeError(f"vectorize: pyfunc must be callable, got {type(pyfunc).__name__}")
        if signature is not None:
            raise TypeError("vectorize: the argument signature= is not supported by npuarray")
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.pyfunc = pyfunc
        self.otypes = None if otypes is None else [normalize_dtype(np.dtype(t)) for t in otypes]
        self.excluded = set(excluded or ())
        self.cache = cache
        self.signature = signature
        self.__doc__ = pyfunc.__doc__ if doc is None else doc

    def _vectorized(self, key, value):
        return key not in self.excluded and (is_array(value) or isinstance(value, _ARRAY_LIKE))

    def __call__(self, *args, **kwargs):
        items = list(enumerate(args)) + list(kwargs.items())
        keys = [key for key, value in items if self._vectorized(key, value)]
        values = dict(items)
        if keys:
            arrays = broadcast_arrays(*(as_device(values[k], "vectorize") for k in keys))
            values.update(zip(keys, arrays))
        positional = [values[i] for i in range(len(args))]
        try:
            result = self.pyfunc(*positional, **{k: values[k] for k in kwargs})
        except (TypeError, ValueError):
            if not keys:
                raise
            return self._on_host(args, kwargs, keys)
        shape = arrays[0].shape if keys else ()
        if isinstance(result, tuple):
            return tuple(self._output(r, shape, i) for i, r in enumerate(result))
        return self._output(result, shape, 0)

    def _on_host(self, args, kwargs, keys):
        """``numpy.vectorize(pyfunc)`` on host copies of the array arguments,
        the results uploaded (npuarray's host-fallback rule)."""
        items = dict(enumerate(args)) | kwargs
        devices = [k for k in keys if is_array(items[k])]

        def compute(*hosts):
            values = items | dict(zip(devices, hosts, strict=True))
            function = np.vectorize(self.pyfunc, otypes=self.otypes, excluded=self.excluded)
            return function(*(values[i] for i in range(len(args))),
                            **{k: values[k] for k in kwargs})

        if not devices:  # NumPy scalars only: nothing to copy
            return _device_results(compute())
        return on_host("vectorize", compute, *(items[k] for k in devices))

    def _output(self, value, shape, index):
        value = as_device(value, "vectorize")
        if value.shape != shape:  # a constant result fills the broadcast shape
            value = copy_array(broadcast_to(value, shape))
        if self.otypes is not None:
            if index >= len(self.otypes):
                raise ValueError(f"vectorize: {len(self.otypes)} otypes for more outputs")
            value = astype(value, self.otypes[index])
        return value
