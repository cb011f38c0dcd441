"""Dask with NPUArray chunks: ``npuarray.dask``.

- Importing this package (or selecting the backend below) registers Dask's
  array dispatches for NPUArray lazily (:mod:`._dispatch`): ``concatenate``,
  ``tensordot``, ``take``, ``percentile``, ``numel``, ``nannumel``,
  ``to_numpy_dispatch`` and ``empty`` (meta arrays) run npuarray's own
  functions on the chunk's device instead of downloading chunks to NumPy.
- ``dask.config.set({"array.backend": "npuarray"})`` (entry point declared in
  ``pyproject.toml``, :class:`NPUArrayBackendEntrypoint`) makes ``da.ones``,
  ``da.zeros``, ``da.empty`` and ``da.full`` produce NPUArray chunks.
- :class:`LocalNPUCluster` starts one ``dask.distributed`` worker process per
  NPU, each seeing only its device; chunks move between workers through pinned
  host memory (:mod:`._serialize`).

Needs ``pip install "npuarray[dask]"`` (``dask[array,distributed]``).
"""
from dask.array.backends import array_creation_dispatch

from ._backend import NPUArrayBackendEntrypoint
from ._dispatch import register, register_lazily

__all__ = ["LocalNPUCluster", "NPUArrayBackendEntrypoint", "register"]

register_lazily()
# The entry point finds the backend in an installed npuarray; this also serves a
# source checkout.
array_creation_dispatch.register_backend("npuarray", NPUArrayBackendEntrypoint())


def __getattr__(name):
    # dask.distributed loads on first use only.
    if name == "LocalNPUCluster":
        from ._cluster import LocalNPUCluster
        return LocalNPUCluster
    raise AttributeError(f"module 'npuarray.dask' has no attribute {name!r}")
