"""The API reference's pages, written from the code at every build (``docs/conf.py``).

One page per NumPy reference chapter, from the namespace module of that chapter
(``npuarray/_<topic>.py``: its ``__all__`` and the first line of its docstring), then
the runtime, data types, transfers and errors, then the subpackages (``linalg``,
``fft``, ``random``, ``profiler``, ``dask``, ``testing``) and the ``NPUArray`` class.
Every public name of these modules gets a page of its own (autosummary); a name in
none of them fails the build, so nothing public goes undocumented.
"""
import importlib
import inspect
import pathlib
import pkgutil

import numpy as np

import npuarray

# Public names that belong to no topic module, by section (module -> its public names).
OTHER_SECTIONS = [
    ("runtime", "Runtime: devices, streams, events, graphs and memory",
     ["npuarray.runtime", "npuarray.runtime._memory_pool"]),
    ("dtypes", "Data types", ["npuarray._core._data_type"]),
    ("transfers", "Transfers between host and device",
     [("asnumpy", "transfer_guard", "ImplicitTransferError")]),
    ("constants", "Constants and inspection",
     ["npuarray._constants", ("__array_namespace_info__",)]),
    ("errors", "Errors and the loaded provider",
     [("AclError", "OutOfMemoryError", "InvalidValueError", "CaptureError",
       "NotSupportedError", "backend")]),
]
SUBPACKAGES = [("linalg", "npuarray.linalg"), ("fft", "npuarray.fft"),
               ("random", "npuarray.random"), ("profiler", "npuarray.profiler"),
               ("dask", "npuarray.dask"), ("testing", "npuarray.testing")]


def numpy_function_names():
    """Dotted names of NumPy's public callables (``numpy.add``, ``numpy.linalg.norm``,
    ``numpy.random.Generator.normal``, ``numpy.ndarray.sum``)."""
    names = set()
    for module in (np, np.linalg, np.fft, np.random):
        for name in getattr(module, "__all__", dir(module)):
            if not name.startswith("_") and callable(getattr(module, name, None)):
                names.add(f"{module.__name__}.{name}")
    for cls, prefix in ((np.ndarray, "numpy.ndarray"), (np.random.Generator,
                                                         "numpy.random.Generator")):
        names.update(f"{prefix}.{n}" for n in dir(cls) if not n.startswith("_"))
    return names


def _title(module):
    """The first sentence of a module's docstring, up to its chapter's name."""
    first = inspect.getdoc(module).split("\n\n")[0].replace("\n", " ")
    return first.split(" (NumPy's chapter)")[0].split(":")[0].strip()


def _topic_modules():
    """npuarray's namespace modules, one per NumPy chapter, in the namespace's order."""
    found = []
    for info in pkgutil.iter_modules(npuarray.__path__):
        if info.name.startswith("_") and not info.name.startswith("__") and not info.ispkg \
                and info.name not in (
                "_api_table", "_numpy_dispatch", "_numpy_adapters", "_operands",
                "_dask_hook", "_npusim", "_constants", "_inspection"):
            module = importlib.import_module(f"npuarray.{info.name}")
            if getattr(module, "__all__", None):
                found.append(module)
    return found


def _page(title, module_name, names, current="npuarray"):
    lines = [title, "=" * len(title), "", f".. currentmodule:: {current}", "",
             ".. autosummary::", "   :toctree: generated/", ""]
    lines += [f"   {name}" for name in names]
    return "\n".join(lines) + "\n"


def _public(module):
    return [n for n in module.__all__ if not n.startswith("__")]


def write_reference(folder):
    """Writes ``folder/index.rst`` and one page per section; returns the names covered."""
    folder = pathlib.Path(folder)
    folder.mkdir(exist_ok=True)
    pages, covered = [], set()
    exported = list(dict.fromkeys(npuarray.__all__))
    for module in _topic_modules():
        names = [n for n in _public(module) if n in exported and n not in covered]
        if names:
            slug = module.__name__.rsplit(".", 1)[1].lstrip("_")
            pages.append((slug, _page(_title(module), module.__name__, names)))
            covered.update(names)
    for slug, title, sources in OTHER_SECTIONS:
        names = []
        for source in sources:
            listed = source if isinstance(source, tuple) else _public(
                importlib.import_module(source))
            names += [n for n in listed if n in exported and n not in covered and n not in names]
        covered.update(names)
        pages.append((slug, _page(title, None, names)))
    left = [n for n in exported if n not in covered and n != "NPUArray"]
    if left:
        raise RuntimeError(f"public names in no reference section: {', '.join(left)}")
    for slug, dotted in SUBPACKAGES:
        module = importlib.import_module(dotted)
        title = f"``{dotted}``"
        pages.append((slug, _page(title, dotted, _public(module), current=dotted)))
    pages.append(("ndarray", _page("The array: ``NPUArray``", None, ["NPUArray"])))
    index = ["API reference", "=============", "",
             "Every public name of npuarray by NumPy's reference chapters, each page naming",
             "the aclnn operators behind the function, the stream it runs on and the NumPy",
             "function it mirrors (linked).", "", ".. toctree::", "   :maxdepth: 1", ""]
    index += [f"   {slug}" for slug, _ in pages]
    _write(folder / "index.rst", "\n".join(index) + "\n")
    for slug, text in pages:
        _write(folder / f"{slug}.rst", text)
    return covered


def _write(path, text):
    # Unchanged pages keep their time stamp, so Sphinx rebuilds only what changed.
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
