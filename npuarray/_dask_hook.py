"""Dask's array dispatches for NPUArray, without ``import npuarray.dask``.

Dask registers CuPy's dispatches lazily: ``Dispatch.register_lazy("cupy", ...)``
in ``dask.array.backends`` runs the registration the first time a lookup meets
a ``cupy.ndarray``. Dask cannot name npuarray there, so npuarray asks for the
same treatment itself (``npuarray._dask_dispatch.register_lazily``), at the
first moment both are loaded:

- ``dask.array`` already imported when npuarray is: right away;
- otherwise: a ``sys.meta_path`` finder watches for ``dask.array`` and asks as
  soon as that package has finished executing, then removes itself.

The chunk serialisers (``npuarray._dask_serialize``) are registered the way
``distributed`` registers CuPy's: ``dask_serialize.register_lazy("npuarray")``
as soon as ``distributed.protocol`` has loaded (a second finder), so a client
that never imports ``npuarray.dask`` still receives NPUArray results.

Users who never import Dask pay two finders that compare module names; Dask is
never imported from here (the registrations import it inside their functions, once it
is loaded).
"""
import importlib.util
import sys
import warnings

from . import _dask_dispatch, _dask_serialize

_WATCHED = "dask.array"


def _register_lazily():
    # Only called once dask.array is complete.
    try:
        _dask_dispatch.register_lazily()
    except Exception as error:  # never break the user's `import dask.array`
        warnings.warn(f"npuarray could not register its Dask dispatches: {error!r}; "
                      "`import npuarray.dask` registers them explicitly", RuntimeWarning,
                      stacklevel=2)


def _register_serializers_lazily():
    try:
        # distributed is optional: imported here, once it has loaded.
        from distributed.protocol import dask_deserialize, dask_serialize
        dask_serialize.register_lazy("npuarray")(_dask_serialize.register)
        dask_deserialize.register_lazy("npuarray")(_dask_serialize.register)
    except Exception as error:  # never break the user's `import distributed`
        warnings.warn(f"npuarray could not register its chunk serialisers: {error!r}; "
                      "`import npuarray.dask` registers them explicitly", RuntimeWarning,
                      stacklevel=2)


class _ImportWatcher:
    """A ``sys.meta_path`` finder (only ``find_spec`` is needed) that finds nothing
    itself: when the ``watched`` module is imported, it wraps the real loader so
    that ``register`` follows the module's code."""
    watched = None
    register = None

    def find_spec(self, fullname, path, target=None):
        if fullname != self.watched:
            return None
        sys.meta_path.remove(self)  # once; importlib.util.find_spec below must not see it
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module
        register = type(self).register

        def exec_module(module):
            execute(module)
            register()
        spec.loader.exec_module = exec_module
        return spec


class _DaskArrayFinder(_ImportWatcher):
    watched = _WATCHED
    register = staticmethod(_register_lazily)


class _DistributedProtocolFinder(_ImportWatcher):
    watched = "distributed.protocol"
    register = staticmethod(_register_serializers_lazily)


def install():
    """Registers now what is loaded (``dask.array``, ``distributed.protocol``),
    the rest when it will be."""
    for finder in (_DaskArrayFinder, _DistributedProtocolFinder):
        if finder.watched in sys.modules:
            finder.register()
        elif not any(isinstance(f, finder) for f in sys.meta_path):
            sys.meta_path.insert(0, finder())
