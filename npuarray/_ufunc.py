"""NumPy's universal functions on the device: ``npuarray.add``, ``npuarray.exp``...

Every element-wise function of the namespace whose NumPy namesake is a
``numpy.ufunc`` is a ``npuarray.ufunc`` (as CuPy's are ``cupy.ufunc``):
``add(x1, x2, /, out=None, *, where=True, casting="same_kind", order="K",
dtype=None, subok=True, signature=None)`` and the methods ``reduce``,
``accumulate``, ``outer``, ``at``, with NumPy's attributes ``nin``, ``nout``,
``nargs``, ``identity``, ``types``, ``__name__``. NumPy's other names of one
function share its object (``power is pow``, ``absolute is abs``).

Operands: NPUArrays; Python scalars (weak, NEP 50) and NumPy scalars (their
dtype); host arrays and sequences are uploaded (an implicit transfer, under
``transfer_guard``). A call whose operands are all scalars returns a 0-d device
array of NumPy 2's dtype (``divide(2, 3)``: float64), as CuPy.

The call without keywords stays the element-wise function's own path (the C
fast path of ``add``, ``multiply``... included): keywords are handled only when
given. Reductions use aclnn's where one exists (``add.reduce`` is aclnnReduceSum,
``multiply`` aclnnProd, ``maximum`` aclnnAmax, ``minimum`` aclnnAmin,
``logical_and`` / ``logical_or`` aclnnAll / aclnnAny); other ufuncs reduce and
accumulate by composing the function itself on the device: log2(n) launches on
halves for associative ones, one per element along the axis otherwise.
"""
import builtins

import numpy as np

from . import _bitwise, _indexing, _linear_algebra, _logic, _math, _set, _statistics
from . import _creation as _creation_names, _manipulation as _manipulation_names
from . import _sorting as _sorting_names
from ._core import _elementwise as ew
from ._core import _creation, _manipulation, _ops, _sorting, _statistical, _transfer, _utility
from ._core._data_type import normalize_dtype
from ._core._array import NPUArray
from ._operands import check_cast, operands, ordered, out_array, out_arrays, store

__all__ = ["ufunc"]

_SCALARS = (builtins.bool, int, float, complex, np.generic)
_NO_VALUE = np._NoValue
# The type characters of npuarray's dtypes (bool, integers, float16/32/64, complex).
_TYPE_CODES = set("?bBhHiIlLqQefdFD->")


class ufunc:
    """A NumPy universal function on the device (``numpy.ufunc``, ``cupy.ufunc``).

    Calling it computes the element-wise function (see its ``__doc__``) on the
    current stream of the operands' device; ``out=`` (an NPUArray), ``where=``
    (a bool array or scalar: elements of ``out`` kept where False), ``dtype=`` /
    ``signature=`` (the loop's dtype: inputs are cast to it, as ``casting``
    allows), ``casting=`` (NumPy's rules, also for the cast into ``out``),
    ``order=`` ('C', 'F', 'A', 'K') as NumPy's. ``subok`` is accepted (there are
    no subclasses). TypeError for other keywords, operands or casts refused.
    A result of ``out``'s dtype and shape is written into ``out`` by the operator
    itself (one launch: the float unary functions, and arithmetic, comparisons,
    maximum / minimum and logical and / or of two operands) where nothing needs
    a cast or a copy apart; otherwise it is computed, then copied into ``out``.
    """

    def __init__(self, name, function, numpy_ufunc, *, fast_call=None):
        self.__name__ = self.__qualname__ = name
        self._function = function
        self._numpy = numpy_ufunc
        self.nin, self.nout, self.nargs = numpy_ufunc.nin, numpy_ufunc.nout, numpy_ufunc.nargs
        self.identity = numpy_ufunc.identity
        self.signature = numpy_ufunc.signature
        self.__doc__ = function.__doc__
        self._fast_call = fast_call

    @property
    def types(self):
        """NumPy's loops of this ufunc (``'ff->f'``...) whose dtypes npuarray has."""
        return [t for t in self._numpy.types if set(t) <= _TYPE_CODES]

    @property
    def ntypes(self):
        return len(self.types)

    def __repr__(self):
        return f"<ufunc '{self.__name__}'>"

    def __reduce__(self):
        return self.__name__

    # -- calls with NumPy's keywords -------------------------------------------------------
    def _call(self, *args, out=None, where=True, casting="same_kind", order="K", dtype=None,
              subok=True, signature=None, **unknown):
        """The call with keywords or positional ``out``: see the class docstring."""
        name = self.__name__
        if unknown:
            raise TypeError(f"{name}() got an unexpected keyword argument "
                            f"{next(iter(unknown))!r}")
        if len(args) > self.nargs:
            raise TypeError(f"{name}() takes from {self.nin} to {self.nargs} positional "
                            f"arguments but {len(args)} were given")
        if len(args) > self.nin:
            if out is not None:
                raise TypeError(f"{name}() got multiple values for argument 'out'")
            out = args[self.nin:]
            out = out[0] if len(out) == 1 else out
            args = args[:self.nin]
        if len(args) != self.nin:
            raise TypeError(f"{name}() takes from {self.nin} to {self.nargs} positional "
                            f"arguments but {len(args)} were given")
        if signature is not None and dtype is None:
            dtype = signature if not isinstance(signature, (tuple, str)) or \
                isinstance(signature, str) and len(signature) == 1 else None
            if dtype is None:
                raise TypeError(f"{name}(): only a single-dtype signature= is supported")
        outs = out_arrays(out, self.nout)
        inputs = operands(name, args)
        if self.nin == 1 and self.nout == 1 and outs[0] is not None and where is True and dtype is None:
            written = ew.unary_into(name, inputs[0], outs[0])  # no result to copy
            if written is not None:
                return written
        if self.nin == 2 and self.nout == 1 and outs[0] is not None and where is True \
                and dtype is None and casting in ("same_kind", "safe", "unsafe"):
            written = ew.binary_into(name, inputs[0], inputs[1], outs[0])  # (inputs cast safely)
            if written is not None:
                return written
        if dtype is not None:
            inputs = self._cast_inputs(inputs, normalize_dtype(dtype), casting)
        results = self._function(*inputs)
        results = results if self.nout > 1 else (results,)
        if where is not True and not isinstance(where, builtins.bool):
            where = operands(name, [where])[0]
        final = []
        for result, target in zip(results, outs):
            if dtype is not None and result.dtype.kind != "b" \
                    and result.dtype != np.dtype(dtype):
                result = _manipulation.astype(result, dtype)
            if target is None:
                final.append(ordered(result, order, inputs))
            else:
                final.append(store(name, result, target, where, casting))
        return tuple(final) if self.nout > 1 else final[0]

    def _cast_inputs(self, inputs, dtype, casting):
        converted = []
        for value in inputs:
            if isinstance(value, NPUArray):
                check_cast(self.__name__, value.dtype, dtype, casting, "input")
                value = _manipulation.astype(value, dtype, copy=False)
            converted.append(value)
        return converted

    # -- methods -----------------------------------------------------------------------------
    @property
    def _reorderable(self):
        """Whether folds may regroup the operands, as NumPy's reorderable ufuncs (those
        with an identity, and the extrema)."""
        return self.__name__ in _ASSOCIATIVE or self.identity is not None

    def _binary_only(self, method):
        if self.nin != 2 or self.nout != 1:
            raise ValueError(f"{method} only supported for binary functions")

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False,
               initial=_NO_VALUE, where=True):
        """``numpy.ufunc.reduce``: ``array`` folded with this function along ``axis``
        (int, tuple or None for all). The aclnn reduction where there is one, else
        this function composed on the device. ``initial`` starts the fold;
        ``where`` selects the elements (needs ``initial`` without an identity).
        ValueError for an empty axis without identity nor ``initial``."""
        self._binary_only("reduce")
        name = self.__name__
        array = operands(name, [array])[0]
        if dtype is not None:
            array = _manipulation.astype(array, dtype, copy=False)
        identity = self.identity
        fill = initial if initial is not _NO_VALUE and initial is not None else identity
        if where is not True:
            if fill is None:
                raise ValueError(f"reduction operation '{name}' does not have an identity, "
                                 f"so to use a where mask one has to specify 'initial'")
            array = ew.where(operands(name, [where])[0], array, fill)
        axes = tuple(range(array.ndim)) if axis is None else \
            tuple(_manipulation.normalize_axis_tuple(axis, array.ndim))
        if len(axes) > 1 and not self._reorderable:
            raise ValueError(f"reduction operation '{name}' is not reorderable, so at most "
                             f"one axis may be specified")
        result = self._reduce_axes(array, axes, keepdims, fill)
        if initial is not _NO_VALUE and initial is not None:
            result = self._function(result, initial)
            if result.dtype != array.dtype and self.__name__ not in _BOOL_RESULTS:
                result = _manipulation.astype(result, array.dtype)
        return store(name, result, out_array(out), True, "unsafe")

    def _reduce_axes(self, array, axes, keepdims, fill):
        reduction = _REDUCTIONS.get(self.__name__)
        if reduction is not None:
            return reduction(array, axis=axes, keepdims=keepdims)
        moved = _manipulation.permute_dims(
            array, axes + tuple(a for a in range(array.ndim) if a not in axes))
        rest = moved.shape[len(axes):]
        count = 1
        for a in axes:
            count *= array.shape[a]
        flat = _manipulation.reshape(moved, (count,) + rest)
        if count == 0:
            if fill is None:
                raise ValueError(f"zero-size array to reduction operation {self.__name__} "
                                 f"which has no identity")
            result = _creation.full(rest, fill, dtype=array.dtype, device=array.device)
        else:
            result = self._fold(flat)
        if keepdims:
            shape = tuple(1 if a in axes else n for a, n in enumerate(array.shape))
            result = _manipulation.reshape(result, shape)
        return result

    def _fold(self, flat):
        """The fold of ``flat`` along its first axis."""
        if self._reorderable:
            while flat.shape[0] > 1:
                half = flat.shape[0] // 2
                combined = self._function(flat[:half], flat[half:2 * half])
                if flat.shape[0] % 2:
                    combined = _manipulation.concat([combined, flat[2 * half:]], axis=0)
                flat = combined
            return flat[0]
        result = flat[0]
        for i in range(1, flat.shape[0]):
            result = self._function(result, flat[i])
        return result

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """``numpy.ufunc.accumulate``: the running fold along ``axis``. aclnnCumsum /
        aclnnCumprod for add / multiply; others composed on the device (log2(n)
        doubling steps for associative ufuncs, one launch per element otherwise)."""
        self._binary_only("accumulate")
        array = operands(self.__name__, [array])[0]
        if array.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        axis = _manipulation.normalize_axis_tuple(axis, array.ndim)[0]
        scan = _ACCUMULATIONS.get(self.__name__)
        if scan is not None:
            result = scan(array, axis=axis, dtype=dtype)
        else:
            if dtype is not None:
                array = _manipulation.astype(array, dtype, copy=False)
            result = _manipulation.moveaxis(self._scan(_manipulation.moveaxis(array, axis, 0)),
                                            0, axis)
        return store(self.__name__, result, out_array(out), True, "unsafe")

    def _scan(self, x):
        n = x.shape[0]
        if n == 0:
            return x
        if self.__name__ in _ASSOCIATIVE:
            shift = 1
            while shift < n:
                x = _manipulation.concat([x[:shift], self._function(x[shift:], x[:n - shift])],
                                         axis=0)
                shift *= 2
            return x
        rows = [x[0]]
        for i in range(1, n):
            rows.append(self._function(rows[-1], x[i]))
        return _manipulation.stack(rows, axis=0)

    def outer(self, a, b, /, **kwargs):
        """``numpy.ufunc.outer``: ``result[i..., j...] = f(a[i...], b[j...])``."""
        self._binary_only("outer")
        a, b = (v if isinstance(v, NPUArray) else _transfer.asarray(v)
                if isinstance(v, _SCALARS) else operands(self.__name__, [v])[0]
                for v in (a, b))
        expanded = _manipulation.reshape(a, a.shape + (1,) * b.ndim)
        return self(expanded, b, **kwargs)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """``numpy.ufunc.reduceat``: reductions over the slices
        ``indices[i]:indices[i+1]`` along ``axis`` (one ``reduce`` per slice; an
        index not below the next gives ``array[indices[i]]``, as NumPy)."""
        self._binary_only("reduceat")
        array = operands(self.__name__, [array])[0]
        axis = _manipulation.normalize_axis_tuple(axis, array.ndim)[0]
        starts = [int(i) for i in np.asarray(
            indices.to_host() if isinstance(indices, NPUArray) else indices).ravel()]
        moved = _manipulation.moveaxis(array, axis, 0)
        n = moved.shape[0]
        parts = []
        for k, start in enumerate(starts):
            if not 0 <= start < n:
                raise IndexError(f"index {start} out-of-bounds in {self.__name__}.reduceat "
                                 f"[0, {n})")
            stop = starts[k + 1] if k + 1 < len(starts) else n
            parts.append(self.reduce(moved[start:stop], axis=0, dtype=dtype)
                         if stop > start else moved[start])
        result = _manipulation.moveaxis(_manipulation.stack(parts, axis=0), 0, axis)
        return store(self.__name__, result, out_array(out), True, "unsafe")

    def at(self, a, indices, b=None, /):
        """``numpy.ufunc.at``: unbuffered in-place ``a[indices] = f(a[indices], b)``.
        add / subtract scatter with aclnnIndexPutImpl(accumulate=true), so repeated
        indices all count; the other ufuncs gather, compute and write back, which
        needs distinct indices (checked with one read of their count)."""
        return _at(self, a, indices, b)


def _index_array(index, n):
    """One axis's integer index of ``ufunc.at`` as a flat int64 device array,
    negative entries wrapped by the axis length ``n``."""
    if not isinstance(index, NPUArray):
        index = _transfer.asarray(np.asarray(index, dtype=np.int64))
    if index.dtype.kind not in "iu":
        raise TypeError(f"ufunc.at: indices must be integers, got {index.dtype}")
    index = _manipulation.reshape(_manipulation.astype(index, np.int64, copy=False), (-1,))
    return ew.where(ew.less(index, 0), ew.add(index, n), index)


def _at(function, a, indices, b):
    name = function.__name__
    key = indices if isinstance(indices, tuple) else (indices,)
    if builtins.any(isinstance(i, slice) for i in key):
        raise TypeError(f"{name}.at: slices in the indices are not supported")
    arrays = [_index_array(i, n) for i, n in zip(key, a.shape)]
    if name in ("add", "subtract") and b is not None:
        if isinstance(b, NPUArray):
            values = ew.negative(b) if name == "subtract" else b
        else:
            values = _transfer.asarray(np.asarray(b), device=a.device)
            values = ew.negative(values) if name == "subtract" else values
        target_shape = arrays[0].shape + a.shape[len(arrays):]
        values = _manipulation.astype(_manipulation.broadcast_to(values, target_shape),
                                      a.dtype)
        stream = _ops.stream_of(a)
        _ops.launch("aclnnIndexPutImpl", a, _ops.acl_tensor_list(arrays, stream),
                    _ops.copy(values), True, False, stream=stream)
        return None
    flat = arrays[0] if len(arrays) == 1 else None
    if flat is None or _unique_count(flat) != flat.shape[0]:
        raise TypeError(f"{name}.at: repeated or multi-axis indices are supported for add "
                        f"and subtract only")
    current = a[flat]
    a[flat] = function(current) if b is None else function(current, b)
    return None


def _unique_count(index):
    """The number of distinct values of the 1-D ``index`` (a sort on the device,
    one count read back)."""
    if index.shape[0] < 2:
        return index.shape[0]
    ordered = _sorting.sort(index)
    return 1 + int(_statistical.sum(ew.not_equal(ordered[1:], ordered[:-1])).to_host())


# The aclnn reduction of a ufunc, and its scan.
_REDUCTIONS = {"add": _statistical.sum, "multiply": _statistical.prod,
               "maximum": _statistical.max, "minimum": _statistical.min,
               "logical_and": _utility.all, "logical_or": _utility.any}
_ACCUMULATIONS = {"add": _statistical.cumulative_sum, "multiply": _statistical.cumulative_prod}
# Ufuncs whose fold may be regrouped (halves, doubling scans).
_ASSOCIATIVE = {"add", "multiply", "maximum", "minimum", "fmax", "fmin", "logical_and",
                "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
                "gcd", "lcm"}
_BOOL_RESULTS = {"logical_and", "logical_or", "logical_xor", "equal", "not_equal", "less",
                 "less_equal", "greater", "greater_equal"}
# The binary functions that are their plan alone: the C fast path is their call.
_PLAN_ONLY = ("add", "subtract", "multiply", "divide", "equal", "not_equal", "greater",
              "greater_equal", "less", "less_equal", "logical_and", "logical_or")


def _plain_binary(args):
    """Whether ``args`` are two operands the element-wise function takes as they are:
    an NPUArray and an NPUArray or scalar."""
    if len(args) != 2:
        return False
    a, b = args
    if isinstance(a, NPUArray):
        return isinstance(b, (NPUArray, *_SCALARS))
    return isinstance(b, NPUArray) and isinstance(a, _SCALARS)


def _entry(u, function):
    """The callable behind ``u(...)``: ``function`` itself for a call without
    keywords (in C for the plan-only binary functions), ``u._call`` otherwise."""
    general = u._call
    nin = u.nin
    if u.__name__ in _PLAN_ONLY and function.__name__ == u.__name__:
        plan = ew.plan_of(u.__name__)

        def fallback(*args, **kwargs):
            if kwargs or not _plain_binary(args):
                out = kwargs.get("out") if len(kwargs) == 1 else None
                if type(out) is NPUArray and _plain_binary(args):  # out= alone: no keyword work
                    written = ew.binary_into(u.__name__, args[0], args[1], out)
                    if written is not None:
                        return written
                return general(*args, **kwargs)
            return function(*args)
        return _ops.fast_binary_operator(plan.op, plan._direct, plan._scalar_direct, fallback)
    if nin == 1:
        def call(x, out=None, /, *args, **kwargs):
            if out is None and not kwargs and type(x) is NPUArray and not args:
                return function(x)
            return general(x, *((out,) if out is not None else ()), *args, **kwargs)
    else:
        def call(*args, **kwargs):
            if kwargs or not _plain_binary(args):
                return general(*args, **kwargs)
            return function(*args)
    call.__name__ = u.__name__
    return call


def make_ufunc(name, function, numpy_ufunc):
    """The ``ufunc`` of the element-wise ``function`` mirroring ``numpy_ufunc``: an
    instance of its own subclass, whose ``__call__`` is the entry (a class attribute
    so that the call needs no extra Python frame)."""
    kind = type("ufunc", (ufunc,), {"__module__": "npuarray"})
    u = kind(name, function, numpy_ufunc)
    kind.__call__ = staticmethod(_entry(u, function))
    return u


def _namespace_ufuncs(modules):
    """name -> ufunc for every exported function of ``modules`` whose NumPy namesake
    is an element-wise ``numpy.ufunc`` (not a generalized one such as matmul);
    aliases of one function share one ufunc, named after NumPy's ufunc."""
    made = {}
    result = {}
    for module in modules:
        for name in module.__all__:
            function = getattr(module, name)
            numpy_ufunc = getattr(np, name, None)
            if isinstance(numpy_ufunc, np.ufunc) and numpy_ufunc.signature is None \
                    and callable(function) and not isinstance(function, ufunc):
                result[name] = function
    for name, function in list(result.items()):
        numpy_ufunc = getattr(np, name)
        key = (id(function), numpy_ufunc)
        if key not in made:
            made[key] = make_ufunc(numpy_ufunc.__name__, function, numpy_ufunc)
        result[name] = made[key]
    return result


UFUNCS = _namespace_ufuncs([_creation_names, _manipulation_names, _math, _logic, _bitwise,
                            _sorting_names, _statistics, _set, _indexing, _linear_algebra])
"""Namespace name -> ufunc (``"power"`` and ``"pow"`` -> one ufunc)."""
BY_NUMPY = {u._numpy: u for u in UFUNCS.values()}
"""numpy.ufunc -> the npuarray ufunc, for ``__array_ufunc__``."""
globals().update(UFUNCS)
__all__ += sorted(UFUNCS)
