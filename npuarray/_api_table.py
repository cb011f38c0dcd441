"""The NumPy / npuarray comparison table, generated from the code:
``python -m npuarray._api_table [--output docs/numpy-comparison.md]``.

For every name of NumPy's namespace (top-level routines, scalar types and
constants, ``numpy.linalg``, ``numpy.fft``, ``numpy.random`` and its
``Generator``, ``numpy.ndarray``'s members) the table says whether npuarray
has it and how it runs, read from the objects themselves:

- **operators**: the CANN operators (``aclnn*``, ``aclblas*``, ``aclfft*``)
  its docstring names, or, when it names none, those of the npuarray
  functions and helpers its code calls (found by resolving the names its
  bytecode loads, transitively);
- **composed**: it calls public npuarray functions, rather than launching
  through the operator layer itself;
- **host**: its code reaches an explicit host read (``asnumpy``,
  ``to_host``, ``on_host``) — all its work when it names no operator
  (I/O, printing, host fallbacks), else values read to decide a shape or a
  branch; the reasons registered in ``npuarray.show_config()``'s host
  fallbacks are quoted;
- **NumPy's**: the object is NumPy's own (types, printing options), as in CuPy.
"""
import argparse
import inspect
import numbers
import re
import sys
import types

import numpy as np

import npuarray
from npuarray.runtime import _config

_OPERATOR = re.compile(r"\bacl(?:nn|blas|fft|solver)[A-Z]\w*")
# Where the launch layer and the runtime begin: the walk stops there (every
# operator is reachable from them, so they say nothing about one function).
_LAYER_PREFIXES = ("npuarray._core._ops", "npuarray._acl", "npuarray.runtime",
                   "npuarray.profiler")
_HOST_READ_NAMES = ("asnumpy", "to_host", "on_host")
_UPLOAD_NAMES = ("asarray", "upload")  # transfers, not operators of their callers
_ON_HOST = re.compile(r"\bon the host\b")
_CONSTANT_TYPES = (numbers.Number, str, dict, tuple, list, np.generic, type(None))


class _Walker:
    """Resolves what a function reaches; memoised per object."""

    def __init__(self, public):
        self.public = public  # id -> True for every exported npuarray object
        self.host_reads = self._objects(_HOST_READ_NAMES)
        self.uploads = self._objects(_UPLOAD_NAMES)
        self.memo = {}

    @staticmethod
    def _objects(names):
        """The functions of these names defined anywhere in npuarray (found in
        the loaded modules, wherever the layout puts them)."""
        found = set()
        for module_name, module in list(sys.modules.items()):
            if not module_name.startswith("npuarray") or module is None:
                continue
            for name in names:
                obj = getattr(module, name, None)
                if isinstance(obj, types.FunctionType) and obj.__module__ == module_name:
                    found.add(id(obj))
        return found

    def callees(self, function):
        """The npuarray objects a function's bytecode names (globals, module
        attributes, closure cells), nested code included."""
        code = getattr(function, "__code__", None)
        if code is None:
            return []
        scope = dict(function.__globals__)
        names = set()
        stack = [code]
        while stack:
            c = stack.pop()
            names.update(c.co_names)
            stack.extend(k for k in c.co_consts if isinstance(k, types.CodeType))
        names = sorted(names)  # a fixed walk order: the same table whatever the hash seed
        found = [scope[n] for n in names if n in scope]
        if any(_returns_package(scope[n]) for n in names if n in scope):
            found.append(npuarray)  # ``_npx().name``: the package looked up at call time
        owner = _owner_class(function)
        if owner is not None:  # ``self.name``: the class's own members
            found.extend(_lookup(owner, n) for n in names if _lookup(owner, n) is not None)
        for module in [v for v in found if isinstance(v, types.ModuleType)
                       and v.__name__.startswith("npuarray")]:
            found.extend(getattr(module, n) for n in names if hasattr(module, n))
        for cell in function.__closure__ or ():
            try:
                found.append(cell.cell_contents)
            except ValueError:
                continue
        return [f for f in found if _in_namespace_layer(f) and f is not function]

    def facts(self, obj):
        """(operators, composed, reads_host) of an npuarray object: reads_host
        when its code reaches a download, or when it names no operator, says
        it works "on the host" and reaches an upload (a reader of host data)."""
        operators, composed, downloads, uploads = self._walk(obj)
        doc = (inspect.getdoc(obj) or "") if _documented(obj) else ""
        host = downloads or (uploads and not operators and bool(_ON_HOST.search(doc)))
        return operators, composed, host

    def _walk(self, obj):
        """(operators, composed, downloads, uploads), memoised."""
        key = id(obj)
        if key in self.memo:
            return self.memo[key]
        self.memo[key] = (frozenset(), False, False, False)  # recursion guard
        doc = (inspect.getdoc(obj) or "") if _documented(obj) else ""
        own = set(_OPERATOR.findall(doc))
        reached, composed, downloads, uploads = set(), False, key in self.host_reads, False
        for function in _functions_of(obj):
            for callee in self.callees(function):
                if isinstance(callee, types.ModuleType):
                    continue
                composed |= id(callee) in self.public
                if id(callee) in self.host_reads:
                    downloads = True
                elif id(callee) in self.uploads:
                    uploads = True
                elif not isinstance(callee, type):  # a class named: not all its methods run
                    ops, _, callee_downloads, callee_uploads = self._walk(callee)
                    reached |= ops
                    downloads |= callee_downloads
                    uploads |= callee_uploads
        result = (frozenset(own or reached), composed, downloads, uploads)
        self.memo[key] = result
        return result


def _returns_package(obj):
    """True for a function whose code only fetches the ``npuarray`` package."""
    code = getattr(obj, "__code__", None)
    return code is not None and "npuarray" in code.co_consts and code.co_argcount == 0


def _owner_class(function):
    """The npuarray class whose body defines ``function``, or None."""
    owner = function.__qualname__.rpartition(".")[0]
    if not owner or "<" in owner:
        return None
    klass = function.__globals__.get(owner.split(".")[0])
    return klass if isinstance(klass, type) else None


def _documented(obj):
    return callable(obj) or isinstance(obj, property)


def _functions_of(obj):
    """The Python functions whose code makes up ``obj``."""
    if isinstance(obj, property):
        return [f for f in (obj.fget, obj.fset) if f is not None]
    if isinstance(obj, (staticmethod, classmethod)):
        return [obj.__func__]
    if isinstance(obj, types.MethodType):
        return [obj.__func__]
    if isinstance(obj, types.FunctionType):
        return [obj]
    if isinstance(getattr(obj, "__wrapped__", None), types.FunctionType):
        return [obj.__wrapped__]  # a C stand-in for a Python function (npuarray/_core/_fastpath.c)
    if isinstance(obj, type):
        return [f for f in vars(obj).values() if isinstance(f, types.FunctionType)]
    call = getattr(type(obj), "__call__", None)
    return [call] if isinstance(call, types.FunctionType) else []


def _in_namespace_layer(obj):
    module = getattr(obj, "__module__", None) if not isinstance(obj, types.ModuleType) \
        else obj.__name__
    if not isinstance(module, str) or not module.startswith("npuarray"):
        return False
    return not module.startswith(_LAYER_PREFIXES)


def _public_objects():
    spaces = [npuarray, npuarray.linalg, npuarray.fft, npuarray.random]
    return {id(getattr(space, n)) for space in spaces for n in getattr(space, "__all__", ())
            if hasattr(space, n)}


# -- NumPy's names --------------------------------------------------------------------------

def _is_scalar_type(value):
    return isinstance(value, type) and issubclass(value, np.generic)


def numpy_groups():
    """NumPy's names by group: [(title, prefix, [(name, numpy object)], npuarray space)]."""
    top = [n for n in np.__all__ if not n.startswith("__")
           and not isinstance(getattr(np, n), types.ModuleType)]
    routines = [n for n in top if not _is_scalar_type(getattr(np, n))
                and not isinstance(getattr(np, n), _CONSTANT_TYPES)]
    scalars = [n for n in top if _is_scalar_type(getattr(np, n))]
    constants = [n for n in top if n not in routines and n not in scalars]
    random_space = getattr(npuarray, "random", None)
    generator = getattr(random_space, "Generator", None)
    members = [n for n in dir(np.ndarray) if not n.startswith("_")]
    generator_members = [n for n in dir(np.random.Generator) if not n.startswith("_")]
    return [
        ("Top-level routines", "", [(n, getattr(np, n)) for n in routines], npuarray),
        ("Scalar types", "", [(n, getattr(np, n)) for n in scalars], npuarray),
        ("Constants", "", [(n, getattr(np, n)) for n in constants], npuarray),
        ("numpy.linalg", "linalg.", [(n, getattr(np.linalg, n)) for n in np.linalg.__all__],
         npuarray.linalg),
        ("numpy.fft", "fft.", [(n, getattr(np.fft, n)) for n in np.fft.__all__], npuarray.fft),
        ("numpy.random", "random.", [(n, getattr(np.random, n)) for n in np.random.__all__],
         random_space),
        ("numpy.random.Generator", "random.Generator.",
         [(n, getattr(np.random.Generator, n)) for n in generator_members], generator),
        ("numpy.ndarray members", "ndarray.",
         [(n, getattr(np.ndarray, n)) for n in members], npuarray.NPUArray),
    ]


def _lookup(space, name):
    """npuarray's object for ``name`` in ``space`` (a class's own attribute
    without calling descriptors), or None."""
    if space is None:
        return None
    if isinstance(space, type):
        for klass in space.__mro__:
            if name in vars(klass):
                return vars(klass)[name]
        return None
    return getattr(space, name, None) if hasattr(space, name) else None


def _host_reason(qualified):
    for key, why in _config.host_fallbacks.items():
        if key == qualified or (key.endswith("*") and qualified.startswith(key[:-1])):
            return why
    return ""


def describe(walker, group_prefix, name, numpy_obj, ours):
    """(status, operators, note) of one NumPy name."""
    if ours is None and not (group_prefix == "" and hasattr(npuarray, name)):
        return "missing", "", ""
    if ours is numpy_obj or (isinstance(ours, type) and ours is numpy_obj):
        return ("NumPy's", "", "NumPy's own object, as in CuPy")
    if isinstance(ours, _CONSTANT_TYPES) or (_is_scalar_type(numpy_obj) and ours is not None):
        return "value", "", ""
    operators, composed, host = walker.facts(ours)
    fallback = _host_reason(group_prefix + name)
    note = f"host fallback: {fallback}" if fallback else ""
    if host and not operators:
        status = "host"
    elif operators:
        status = "device, composed" if composed else "device"
        if host and not fallback:
            note = "reads values on the host"
    else:
        status = "no operator"
    return status, ", ".join(sorted(operators)), note


STATUSES = ("device", "device, composed", "host", "NumPy's", "value", "no operator",
            "missing")


def build():
    """The table's rows: {group title: [(name, status, operators, note)]}."""
    walker = _Walker(_public_objects())
    table = {}
    for title, prefix, names, space in numpy_groups():
        rows = []
        for name, numpy_obj in sorted(names):
            ours = _lookup(space, name)
            rows.append((prefix + name, *describe(walker, prefix, name, numpy_obj, ours)))
        table[title] = rows
    return table


def render(table):
    """The Markdown page."""
    lines = ["# NumPy and npuarray", "",
             f"Generated from the code by `python -m npuarray._api_table --output "
             f"docs/numpy-comparison.md` against NumPy {np.__version__}; do not edit by hand.",
             "",
             "Status: **device** launches CANN operators itself; **device, composed** calls "
             "other npuarray functions on the device; **host** does its work on the host "
             "(I/O, printing, host fallbacks), explicitly; **NumPy's** is NumPy's own object "
             "(types, printing options); **value** a constant or type npuarray defines; "
             "**no operator** launches nothing (views, allocation, metadata, dtype logic); "
             "**missing** is not in npuarray. Operators are those named by the function's "
             "docstring or reached by its code.", "",
             "| group | NumPy names | in npuarray | " + " | ".join(STATUSES[:-1]) + " |",
             "|---|---|---|" + "---|" * (len(STATUSES) - 1)]
    for title, rows in table.items():
        counts = [sum(1 for r in rows if r[1] == s) for s in STATUSES]
        present = len(rows) - counts[-1]
        lines.append(f"| {title} | {len(rows)} | {present} | "
                     + " | ".join(str(c) for c in counts[:-1]) + " |")
    for title, rows in table.items():
        lines += ["", f"## {title}", "", "| NumPy | npuarray | operators | notes |",
                  "|---|---|---|---|"]
        for name, status, operators, note in rows:
            lines.append(f"| `{name}` | {status} | {operators} | {note} |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m npuarray._api_table",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the Markdown here (default: standard output)")
    args = parser.parse_args(argv)
    text = render(build())
    if args.output:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
