"""Dask with NPUArray chunks: ``npuarray.dask``.

- ``import npuarray`` registers Dask's array dispatches for NPUArray lazily
  as soon as ``dask.array`` is loaded, in either import order, without
  importing Dask itself (``npuarray._dask_hook``; importing this package
  registers them too): ``concatenate``, ``tensordot``, ``einsum``, ``take``,
  ``divide``, ``percentile``, ``numel``, ``nannumel``, ``to_numpy_dispatch``,
  ``empty`` (meta arrays) and ``dask.sizeof`` run npuarray's own functions on
  the chunk's device instead of downloading chunks to NumPy, and NPUArray is a
  registered chunk type (Dask arrays and NPUArrays mix in arithmetic).
- ``dask.config.set({"array.backend": "npuarray"})`` (entry point declared in
  ``pyproject.toml``, :class:`NPUArrayBackendEntrypoint`) makes ``da.ones``,
  ``da.zeros``, ``da.empty``, ``da.full``, ``da.arange`` and ``da.random``
  (``default_rng`` and the legacy ``RandomState``, drawn by ``npuarray.random``)
  produce NPUArray chunks.
- :class:`LocalNPUCluster` starts one ``dask.distributed`` worker process per
  NPU, each seeing only its device; chunks move between workers through pinned
  host memory (:mod:`npuarray._dask_hook`). ``dask npu worker SCHEDULER`` (:mod:`._cli`;
  also ``python -m npuarray.dask worker``) does the same on each machine of a
  cluster. Workers spill least recently used chunks to pinned host memory and
  disk past their spill threshold (:mod:`._spill`); :func:`device_reports` gives
  each worker's device memory, spill tiers and transfer counts.

Needs ``pip install "npuarray[dask]"`` (``dask[array,distributed]``).
"""
from dask.array.backends import array_creation_dispatch

from ._backend import NPUArrayBackendEntrypoint
from .._dask_hook import register, register_lazily

__all__ = ["LocalNPUCluster", "NPUArrayBackendEntrypoint", "device_reports", "register"]

register_lazily()
# The entry point finds the backend in an installed npuarray; this also serves a
# source checkout.
array_creation_dispatch.register_backend("npuarray", NPUArrayBackendEntrypoint())


def __getattr__(name):
    # dask.distributed (optional: npuarray.dask works with dask.array alone, and heavy)
    # loads on first use only, with the module built on it.
    if name in ("LocalNPUCluster", "device_reports"):
        from . import _cluster
        return getattr(_cluster, name)
    raise AttributeError(f"module 'npuarray.dask' has no attribute {name!r}")
