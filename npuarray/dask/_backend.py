"""The ``npuarray`` Dask array backend: ``dask.config.set({"array.backend": "npuarray"})``.

Declared as the entry point ``npuarray`` of the group ``dask.array.backends``
in ``pyproject.toml``. With it, ``da.ones``, ``da.zeros``, ``da.empty``,
``da.full`` and ``da.arange`` build every chunk with npuarray's creation
functions (aclnnInplaceOne, aclnnInplaceZero, aclnnInplaceFillScalar,
aclnnArange) on the current device and stream of the thread that computes the
chunk; ``da.random.default_rng(seed)`` and ``da.random.RandomState(seed)``
draw every chunk with ``npuarray.random`` (:mod:`._random`); and
``Array.to_backend("npuarray")`` uploads NumPy chunks (``npuarray.asarray``).
"""
import dask
import dask.array as da
import numpy as np
from dask.array.backends import ArrayBackendEntrypoint
from dask.array.wrap import w
from dask.utils import Dispatch

import npuarray as npx

from .._dask_hook import register_lazily
from ._random import Philox, RandomState

__all__ = ["NPUArrayBackendEntrypoint", "to_npuarray_dispatch"]

register_lazily()

to_npuarray_dispatch = Dispatch("to_npuarray")


@to_npuarray_dispatch.register(np.ndarray)
def _numpy_to_npuarray(data, **kwargs):
    """An explicit upload of a NumPy chunk (``npuarray.asarray``, aclrtMemcpy H2D)."""
    return npx.asarray(data, **kwargs)


@to_npuarray_dispatch.register(npx.NPUArray)
def _npuarray_to_npuarray(data, **kwargs):
    return data


def _chunk(create):
    """``create(shape, dtype=)`` as Dask's chunk function. ``meta`` is Dask's and not
    the chunk's business; NumPy's ``order=`` (``da.ones_like`` & co. pass it) is
    accepted for C order only, as npuarray arrays are C-ordered (ValueError else)."""
    def make(shape, dtype=None, meta=None, order="C", **kwargs):
        if order not in ("C", "K", "A", None):
            raise ValueError(f"npuarray creates C-ordered arrays only, got order={order!r}")
        return create(shape, dtype=dtype, **kwargs)
    make.__name__ = create.__name__
    return make


def _meta(shape, dtype):
    """An empty NPUArray of ``shape``'s rank: Dask's template for the chunk type."""
    return npx.empty((0,) * len(shape if isinstance(shape, (tuple, list)) else (shape,)),
                     dtype=dtype)


_ones = w(_chunk(npx.ones))
_zeros = w(_chunk(npx.zeros))
_empty = w(_chunk(npx.empty))
_full = w(_chunk(npx.full))


class NPUArrayBackendEntrypoint(ArrayBackendEntrypoint):
    """Dask array creation that makes NPUArray chunks (as ``CupyBackendEntrypoint``)."""

    @classmethod
    def to_backend_dispatch(cls):
        return to_npuarray_dispatch

    @classmethod
    def to_backend(cls, data, **kwargs):
        if isinstance(data._meta, npx.NPUArray):
            return data
        return data.map_blocks(to_npuarray_dispatch, meta=_meta(data.shape, data.dtype),
                               **kwargs)

    @property
    def RandomState(self):
        """``da.random.RandomState``'s per-chunk generator (:class:`._random.RandomState`)."""
        return RandomState

    @property
    def default_bit_generator(self):
        """``da.random.default_rng``'s bit generator (:class:`._random.Philox`)."""
        return Philox

    @staticmethod
    def arange(*args, like=None, **kwargs):
        """``da.arange`` with chunks made by ``numpy.arange(..., like=NPUArray)``
        (aclnnArange), as Dask's CuPy backend does."""
        like = npx.empty(()) if like is None else like
        with dask.config.set({"array.backend": "numpy"}):
            return da.arange(*args, like=like, **kwargs)

    @staticmethod
    def ones(shape, *, dtype=None, meta=None, **kwargs):
        dtype = np.dtype(dtype or np.float64)
        return _ones(shape, dtype=dtype, meta=_meta(shape, dtype), **kwargs)

    @staticmethod
    def zeros(shape, *, dtype=None, meta=None, **kwargs):
        dtype = np.dtype(dtype or np.float64)
        return _zeros(shape, dtype=dtype, meta=_meta(shape, dtype), **kwargs)

    @staticmethod
    def empty(shape, *, dtype=None, meta=None, **kwargs):
        dtype = np.dtype(dtype or np.float64)
        return _empty(shape, dtype=dtype, meta=_meta(shape, dtype), **kwargs)

    @staticmethod
    def full(shape, fill_value, *, dtype=None, meta=None, **kwargs):
        dtype = np.dtype(dtype if dtype is not None else np.result_type(fill_value))
        return _full(shape, fill_value=fill_value, dtype=dtype, meta=_meta(shape, dtype), **kwargs)
