"""Dask's array dispatches for NPUArray, without ``import npuarray.dask``.

Dask registers CuPy's dispatches lazily: ``Dispatch.register_lazy("cupy", ...)``
in ``dask.array.backends`` runs the registration the first time a lookup meets
a ``cupy.ndarray``. Dask cannot name npuarray there, so npuarray asks for the
same treatment itself (``npuarray.dask._dispatch.register_lazily``), at the
first moment both are loaded:

- ``dask.array`` already imported when npuarray is: right away;
- otherwise: a ``sys.meta_path`` finder watches for ``dask.array`` and asks as
  soon as that package has finished executing, then removes itself.

Users who never import Dask pay one finder that compares module names; Dask is
never imported from here.
"""
import importlib.util
import sys
import warnings

_WATCHED = "dask.array"


def _register_lazily():
    # npuarray.dask imports Dask: only called once dask.array is complete.
    try:
        from .dask._dispatch import register_lazily
        register_lazily()
    except Exception as error:  # never break the user's `import dask.array`
        warnings.warn(f"npuarray could not register its Dask dispatches: {error!r}; "
                      "`import npuarray.dask` registers them explicitly", RuntimeWarning,
                      stacklevel=2)


class _DaskArrayFinder:
    """A ``sys.meta_path`` finder (only ``find_spec`` is needed) that finds nothing
    itself: when ``dask.array`` is imported, it wraps the real loader so that
    npuarray's lazy registrations follow the package's code."""

    def find_spec(self, fullname, path, target=None):
        if fullname != _WATCHED:
            return None
        sys.meta_path.remove(self)  # once; importlib.util.find_spec below must not see it
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            _register_lazily()
        spec.loader.exec_module = exec_module
        return spec


def install():
    """Registers now when ``dask.array`` is loaded, else when it will be."""
    if _WATCHED in sys.modules:
        _register_lazily()
    elif not any(isinstance(finder, _DaskArrayFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _DaskArrayFinder())
