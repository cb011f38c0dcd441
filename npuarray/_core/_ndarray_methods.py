"""NumPy's ndarray methods that the array API standard does not have, for NPUArray.

Code written for NumPy (scikit-learn, SciPy, Dask's chunk functions) calls
``x.std(ddof=1)``, ``x.take(indices)``, ``x.sort()``, ``x.real`` ... on arrays.
Each method here has ``numpy.ndarray``'s signature and semantics (in-place
``sort``/``partition``/``put``, flattening when ``axis`` is None for ``take``,
``argsort``, ``cumsum``, ``ddof`` for ``std``/``var``) and runs npuarray's
function of the same name on the current stream of the array's device; see
that function for the aclnn operators behind it. ``out=`` takes an NPUArray of
the result's shape. Arguments NumPy has but a device cannot honour raise:
``order=`` (structured dtypes) ValueError, ``mode=`` other than NumPy's
default ValueError.
"""
import operator

from . import _namespace

__all__ = []  # internal: NPUArray inherits NDArrayMethods


def _npx():
    # The package namespace (NumPy's names): it is built on the core, which therefore
    # takes it from the namespace hand-over when called, never by importing it.
    return _namespace.module


def into_out(result, out):
    """``result``, or the NPUArray ``out`` after ``out[...] = result`` (NumPy's
    ``out=``; ValueError when the shapes differ, TypeError for host arrays)."""
    if out is None:
        return result
    if not isinstance(out, NDArrayMethods):
        raise TypeError(f"out must be an NPUArray, got {type(out).__name__}")
    if out.shape != result.shape:
        raise ValueError(f"out has shape {out.shape}, the result has shape {result.shape}")
    out[...] = result
    return out


def _refuse_order(order):
    if order is not None:
        raise ValueError("order= sorts structured arrays by field; NPUArray dtypes have none")


def _refuse_mode(mode, default="raise"):
    if mode != default:
        raise ValueError(f"mode={mode!r} is not supported (only NumPy's default {default!r})")


def _flat_or(x, axis):
    """(x flattened, 0) when ``axis`` is None, as NumPy's methods do, else (x, axis)."""
    return (x.reshape(-1), 0) if axis is None else (x, axis)


def _device_indices(x, indices):
    """``indices`` as an NPUArray of ``x``'s device (an explicit upload for host ints)."""
    npx = _npx()
    if isinstance(indices, npx.NPUArray):
        return indices
    return npx.asarray(indices, dtype=npx.int64, device=x.device)


class NDArrayMethods:
    """Mixin of NPUArray: ``numpy.ndarray``'s methods outside the array API."""
    __slots__ = ()

    # -- reductions --------------------------------------------------------------------------
    def all(self, axis=None, out=None, keepdims=False):
        """``numpy.ndarray.all``: ``npuarray.all`` (aclnnAll)."""
        return into_out(_npx().all(self, axis=axis, keepdims=keepdims), out)

    def any(self, axis=None, out=None, keepdims=False):
        """``numpy.ndarray.any``: ``npuarray.any`` (aclnnAny)."""
        return into_out(_npx().any(self, axis=axis, keepdims=keepdims), out)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """``numpy.ndarray.prod``: ``npuarray.prod`` (aclnnProd)."""
        return into_out(_npx().prod(self, axis=axis, dtype=dtype, keepdims=keepdims), out)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """``numpy.ndarray.std``: ``npuarray.std`` with ``correction=ddof``, then cast
        to ``dtype`` when given."""
        return into_out(self._moment("std", axis, dtype, ddof, keepdims), out)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        """``numpy.ndarray.var``: ``npuarray.var`` with ``correction=ddof``, then cast
        to ``dtype`` when given."""
        return into_out(self._moment("var", axis, dtype, ddof, keepdims), out)

    def _moment(self, name, axis, dtype, ddof, keepdims):
        result = getattr(_npx(), name)(self, axis=axis, correction=ddof, keepdims=keepdims)
        return result if dtype is None else result.astype(dtype)

    def cumsum(self, axis=None, dtype=None, out=None):
        """``numpy.ndarray.cumsum`` (flattened when ``axis`` is None): aclnnCumsum."""
        return _npx().cumsum(self, axis=axis, dtype=dtype, out=out)

    def cumprod(self, axis=None, dtype=None, out=None):
        """``numpy.ndarray.cumprod`` (flattened when ``axis`` is None): aclnnCumprod."""
        return _npx().cumprod(self, axis=axis, dtype=dtype, out=out)

    def trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
        """``numpy.ndarray.trace``: ``npuarray.trace``."""
        return _npx().trace(self, offset=offset, axis1=axis1, axis2=axis2, dtype=dtype,
                            out=out)

    # -- sorting and searching ---------------------------------------------------------------
    def sort(self, axis=-1, kind=None, order=None):
        """``numpy.ndarray.sort``: sorts in place (stable radix sort, aclnnSort)
        along ``axis``; returns None. ValueError for a read-only (broadcast) view."""
        _refuse_order(order)
        self[...] = _npx().sort(self, axis=axis)

    def argsort(self, axis=-1, kind=None, order=None):
        """``numpy.ndarray.argsort`` (flattened when ``axis`` is None): int64 indices of
        a stable sort (aclnnArgsort)."""
        _refuse_order(order)
        x, axis = _flat_or(self, axis)
        return _npx().argsort(x, axis=axis)

    def partition(self, kth, axis=-1, kind="introselect", order=None):
        """``numpy.ndarray.partition``: partitions in place around ``kth``; returns None."""
        _refuse_order(order)
        self[...] = _npx().partition(self, kth, axis=axis)

    def argpartition(self, kth, axis=-1, kind="introselect", order=None):
        """``numpy.ndarray.argpartition``: ``npuarray.argpartition``."""
        _refuse_order(order)
        return _npx().argpartition(self, kth, axis=axis)

    def searchsorted(self, v, side="left", sorter=None):
        """``numpy.ndarray.searchsorted``: insertion indices of ``v`` (an NPUArray or a
        Python number) into this sorted 1-D array (aclnnSearchSorted)."""
        npx = _npx()
        values = v if isinstance(v, npx.NPUArray) else npx.asarray(v, dtype=self.dtype,
                                                                   device=self.device)
        return npx.searchsorted(self, values, side=side, sorter=sorter)

    def nonzero(self):
        """``numpy.ndarray.nonzero``: a tuple of int64 index arrays (aclnnNonzero)."""
        return _npx().nonzero(self)

    # -- selection ---------------------------------------------------------------------------
    def take(self, indices, axis=None, out=None, mode="raise"):
        """``numpy.ndarray.take``: elements at ``indices`` (NPUArray or host ints, uploaded)
        along ``axis``, of the flattened array when ``axis`` is None (aclnnIndexSelect).
        IndexError for an index out of range."""
        _refuse_mode(mode)
        x, axis = _flat_or(self, axis)
        indices = _device_indices(self, indices)
        taken = _npx().take(x, indices.reshape(-1), axis=axis)   # checks the axis
        axis = operator.index(axis) % x.ndim
        shape = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
        return into_out(taken.reshape(shape), out)

    def put(self, indices, values, mode="raise"):
        """``numpy.ndarray.put``: writes ``values`` at the flat ``indices`` (NPUArrays or
        scalars, as ``npuarray.put`` takes them), in place."""
        _npx().put(self, indices, values, mode=mode)

    def compress(self, condition, axis=None, out=None):
        """``numpy.ndarray.compress``: ``npuarray.compress(condition, self, axis)``."""
        return _npx().compress(condition, self, axis=axis, out=out)

    def choose(self, choices, out=None, mode="raise"):
        """``numpy.ndarray.choose``: ``npuarray.choose(self, choices)``."""
        return _npx().choose(self, choices, out=out, mode=mode)

    def repeat(self, repeats, axis=None):
        """``numpy.ndarray.repeat``: ``npuarray.repeat`` (flattened when ``axis`` is None)."""
        return _npx().repeat(self, repeats, axis=axis)

    def diagonal(self, offset=0, axis1=0, axis2=1):
        """``numpy.ndarray.diagonal``: ``npuarray.diagonal``."""
        return _npx().diagonal(self, offset=offset, axis1=axis1, axis2=axis2)

    # -- element-wise and shape --------------------------------------------------------------
    def clip(self, min=None, max=None, out=None):
        """``numpy.ndarray.clip``: ``npuarray.clip`` (aclnnClamp and friends)."""
        return into_out(_npx().clip(self, min, max), out)

    def round(self, decimals=0, out=None):
        """``numpy.ndarray.round``: ``npuarray.around`` (half to even, as NumPy)."""
        return into_out(_npx().around(self, decimals=decimals), out)

    def conj(self):
        """``numpy.ndarray.conj``: ``npuarray.conj``."""
        return _npx().conj(self)

    conjugate = conj

    @property
    def real(self):
        """``numpy.ndarray.real``: ``npuarray.real`` (a strided view for complex input)."""
        return _npx().real(self)

    @property
    def imag(self):
        """``numpy.ndarray.imag``: ``npuarray.imag`` (zeros for real input)."""
        return _npx().imag(self)

    def swapaxes(self, axis1, axis2):
        """``numpy.ndarray.swapaxes``: a view with the two axes exchanged."""
        return _npx().swapaxes(self, axis1, axis2)

    def dot(self, b, out=None):
        """``numpy.ndarray.dot``: ``npuarray.dot`` (aclnnMatmul and friends)."""
        return _npx().dot(self, b, out=out)
