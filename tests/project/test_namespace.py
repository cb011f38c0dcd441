"""The namespace itself: __array_api_version__, __array_namespace__ and the constants."""
import ast
import math
import pathlib

import numpy as np
import pytest

import npuarray as npx

PUBLISHED = ["2021.12", "2022.12", "2023.12", "2024.12", "2025.12"]


def test_array_api_version():
    assert npx.__array_api_version__ == "2025.12"


@pytest.mark.parametrize("version", [None, *PUBLISHED])
def test_array_namespace_accepts_every_published_version(version):
    x = npx.ones(2)
    assert x.__array_namespace__(api_version=version) is npx
    assert npx.ones(()).__array_namespace__(api_version=version) is npx


@pytest.mark.parametrize("version", ["2020.12", "2026.12", "2023", "", 2023.12])
def test_array_namespace_refuses_other_versions(version):
    x = npx.ones(2)
    with pytest.raises(ValueError, match="unsupported array API version"):
        x.__array_namespace__(api_version=version)
    assert x.__array_namespace__() is npx


def test_array_namespace_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        npx.ones(2).__array_namespace__("2025.12")


# The standard's "Constants" chapter (constants.rst): name -> value.
CONSTANTS = {"e": math.e, "inf": math.inf, "pi": math.pi}


@pytest.mark.parametrize("name", sorted(CONSTANTS))
def test_float_constants(name):
    value = getattr(npx, name)
    assert type(value) is float
    assert value == CONSTANTS[name] == getattr(np, name)
    x = npx.asarray(value)
    assert x.dtype == np.float64 and x.shape == ()
    assert x.to_host() == value


def test_nan():
    assert type(npx.nan) is float and math.isnan(npx.nan)
    assert math.isnan(npx.asarray(npx.nan).to_host())


def test_newaxis_inserts_an_axis(rng):
    host = rng.standard_normal((2, 3))
    assert npx.newaxis is None
    x = npx.asarray(host)
    np.testing.assert_array_equal(x[:, npx.newaxis].to_host(), host[:, np.newaxis])
    np.testing.assert_array_equal(x[npx.newaxis, ..., npx.newaxis].to_host(),
                                  host[np.newaxis, ..., np.newaxis])


def test_every_public_name_exists():
    for name in npx.__all__:
        assert hasattr(npx, name), name
    for name in ("e", "inf", "nan", "newaxis", "pi", "__array_namespace_info__"):
        assert name in npx.__all__


# -- layering (docs/design.md "One picture") ------------------------------------------------------

PACKAGE = pathlib.Path(npx.__file__).parent


def _imported_modules(path):
    """The modules ``path`` imports, relative ones as ``..name`` / ``.name``."""
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            if node.module is None:
                names.update(base + alias.name for alias in node.names)
            else:
                names.add(base)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


CORE_MAY_IMPORT = ("npuarray._core", "npuarray._acl", "npuarray.runtime",
                   "npuarray._npusim")  # the binding's extension (its C launch helper)


def _absolute_imports(path):
    """(line, absolute module name) of each npuarray module ``path`` imports."""
    package = ["npuarray", *path.relative_to(PACKAGE).parent.parts]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = package[:len(package) - node.level + 1]
            if node.module:
                yield node.lineno, ".".join(base + [node.module])
            else:
                yield from ((node.lineno, ".".join(base + [a.name])) for a in node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names = [node.module] if isinstance(node, ast.ImportFrom) else [
                a.name for a in node.names]
            yield from ((node.lineno, n) for n in names if n.split(".")[0] == "npuarray")


@pytest.mark.parametrize("path", sorted((PACKAGE / "_core").glob("*.py")), ids=lambda p: p.name)
def test_core_imports_only_the_binding_the_runtime_and_itself(path):
    for line, name in _absolute_imports(path):
        assert name.startswith(CORE_MAY_IMPORT), f"_core/{path.name} line {line} imports {name}"
    assert "sys.modules[" not in path.read_text(), f"_core/{path.name} looks modules up by name"


@pytest.mark.parametrize("path", sorted((PACKAGE / "runtime").glob("*.py")), ids=lambda p: p.name)
def test_runtime_never_imports_the_array_layer(path):
    for name in _imported_modules(path):
        if name.startswith(".."):
            assert name == ".._acl", f"runtime/{path.name} imports {name}"
        assert not name.startswith("npuarray") or name.startswith("npuarray.runtime"), name


@pytest.mark.parametrize("path", sorted(p for p in [*PACKAGE.glob("*.py"), *PACKAGE.glob("_core/*.py")]
                                       if p.name != "_ops.py"),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_only_ops_calls_the_aclnn_binding(path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in ("lib", "ffi"):
            assert not (isinstance(node.value, ast.Name) and node.value.id == "_acl"), \
                f"{path.name} line {node.lineno} uses _acl.{node.attr}"
        if isinstance(node, ast.ImportFrom) and node.module == "_acl":
            assert not {a.name for a in node.names} & {"lib", "ffi"}, path.name


@pytest.mark.parametrize("path", sorted(
    p for p in PACKAGE.rglob("*.py") if p.name != "_ops.py" and "_acl" not in p.parts),
    ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_module_but_ops_launches_aclnn_operators(path):
    # Subpackages may drive CANN's other libraries (aclfft, aclblas) through the binding,
    # as CuPy drives cuFFT and cuBLAS; aclnn operators go through _ops.launch only.
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("aclnn"), \
                f"{path.relative_to(PACKAGE)} line {node.lineno} uses {node.attr}"



# -- the core's imports point one way (docs/design.md "One picture") ------------------------------

CORE = sorted((PACKAGE / "_core").glob("*.py"))


def _core_imports(path):
    """(line, _core module name) of each import of a core module in ``path``, at any depth."""
    for line, name in _absolute_imports(path):
        parts = name.split(".")
        if parts[:2] == ["npuarray", "_core"] and len(parts) > 2:
            yield line, parts[2]


def _cycle(graph):
    """One import cycle of ``graph`` (module -> imported modules) as a list, or None."""
    state = {}

    def visit(module, path):
        state[module] = "open"
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return path[path.index(target):] + [target]
            if target not in state:
                cycle = visit(target, path + [target])
                if cycle:
                    return cycle
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module, [module])
            if cycle:
                return cycle
    return None


def test_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_core_has_no_import_cycles():
    # NPUArray's class body names the operator modules' functions, so _array imports them
    # and they take the class from _array_type: every import in _core points down.
    graph = {p.stem: {m for _, m in _core_imports(p) if m != p.stem} for p in CORE}
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))
    assert "_array" not in set().union(*graph.values()), "a core module imports _array"


def _is_npuarray_import(node):
    if isinstance(node, ast.ImportFrom):
        return bool(node.level) or (node.module or "").split(".")[0] == "npuarray"
    return isinstance(node, ast.Import) and any(
        a.name.split(".")[0] == "npuarray" for a in node.names)


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_imports_nothing_inside_functions(path):
    for scope in ast.walk(ast.parse(path.read_text())):
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for node in ast.walk(scope):
                assert not _is_npuarray_import(node), \
                    f"_core/{path.name} line {node.lineno} imports inside {scope.name}"


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_imports_before_its_first_definition(path):
    body = ast.parse(path.read_text()).body
    first = min((n.lineno for n in body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))),
                default=float("inf"))
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                assert node.lineno < first, \
                    f"_core/{path.name} line {node.lineno} imports after its first definition"


_EXTENSIONS = ("_fastpath", "_dlpack", "_npusim")  # compiled modules (no .py file)
_KNOWN_PRIVATE_USES = set()  # none left: keep it so


def _is_module(directory, name):
    return (name in _EXTENSIONS or (directory / f"{name}.py").exists()
            or (directory / name).is_dir())


def _imported_from(node, path):
    """The directory of the npuarray module an ``ImportFrom`` names, or None."""
    if node.level:
        package = path.relative_to(PACKAGE).parent.parts
        directory = PACKAGE.joinpath(*package[:len(package) - node.level + 1])
        return directory.joinpath(*node.module.split(".")) if node.module else directory
    if (node.module or "").split(".")[0] == "npuarray":
        return PACKAGE.parent.joinpath(*node.module.split("."))
    return None


@pytest.mark.parametrize("path", sorted([*CORE, *PACKAGE.glob("*.py")]),
                         ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_private_names_cross_modules(path):
    # ``from ._elementwise import _full`` or ``_elementwise._full``: another module's
    # private helper, which its module may change without looking here.
    tree = ast.parse(path.read_text())
    modules = set()  # local names of the npuarray modules imported
    for node in ast.walk(tree):
        directory = _imported_from(node, path) if isinstance(node, ast.ImportFrom) else None
        for alias in node.names if directory else ():
            if _is_module(directory, alias.name):
                modules.add(alias.asname or alias.name)
            else:
                assert not alias.name.startswith("_") or alias.name.startswith("__"), \
                    f"{path.name} line {node.lineno} imports the private {alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) \
                and node.value.id in modules and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            use = f"{node.value.id}.{node.attr}"
            assert node.attr in _EXTENSIONS or (path.name, use) in _KNOWN_PRIVATE_USES, \
                f"{path.name} line {node.lineno} uses {use}"

def test_current_stream_accessor_matches_get_current_stream(in_fresh_thread):
    from npuarray._core import _ops
    from npuarray.runtime._stream import current_stream_of
    for device in (npx.Device(0), npx.Device(1)):
        assert current_stream_of(device) is npx.get_current_stream(device)
        assert current_stream_of(device) is npx.default_stream(device)
    one = npx.Device(1)
    with npx.Stream(1) as stream:
        assert current_stream_of(one) is stream is _ops.current_stream(one)
        assert current_stream_of(npx.Device(0)) is npx.default_stream(0)
        x = npx.ones(2, device=1)
        assert _ops.stream_of(x) is stream
        # thread-local: another thread sees the default stream
        assert in_fresh_thread(current_stream_of, one) is npx.default_stream(1)
    assert current_stream_of(one) is npx.default_stream(1)


def test_host_reads_are_refused_during_capture_by_the_runtime_guard():
    from npuarray._core import _transfer
    from npuarray.runtime import _capture_guard
    assert _capture_guard.check_host_read in _transfer.host_read_hooks
    x = npx.ones(3)
    with npx.Stream():
        graph = npx.Graph()
        with pytest.raises(npx.CaptureError):
            with graph.capture():
                x.to_host()
    assert x.to_host().tolist() == [1.0, 1.0, 1.0]


# -- the whole package's imports point one way (docs/design.md "Import structure") -----------------
# _acl and runtime, then _core, then the chapter modules (npuarray/_<topic>.py), the
# subpackages built on them (linalg, fft, random, ...), the namespace (npuarray/__init__.py),
# and last what plugs npuarray into others (dask). Every import sits at the top of its module.

MODULES = sorted(PACKAGE.rglob("*.py"))
OUTSIDE_CORE = [p for p in MODULES if "_core" not in p.relative_to(PACKAGE).parts]
# Loaded inside a function on purpose, each an optional part that may be absent:
# the simulator's compiled module (not built where only CANN is used; loaded when npusim
# is the provider) and the module built on dask.distributed (npuarray.dask works with
# dask.array alone; ``npuarray.dask.LocalNPUCluster`` loads it on first use).
_LAZY_OPTIONAL = {("_acl/_loader.py", "npuarray._npusim"),
                  ("dask/__init__.py", "npuarray.dask._cluster")}


def _module_name(path):
    parts = ["npuarray", *path.relative_to(PACKAGE).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_package_module(name):
    """Whether the dotted ``name`` is a module of the package (a .py file, a package or a
    compiled extension)."""
    path = PACKAGE.parent.joinpath(*name.split("."))
    return (path.with_suffix(".py").exists() or (path / "__init__.py").exists()
            or any(path.parent.glob(path.name + ".*.so")))


def _imports_in(tree, path):
    """(import statement, npuarray module) pairs of the module ``tree`` parsed from
    ``path``: ``from a import b`` names the module ``a.b`` when there is one, else ``a``."""
    package = _module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((node, a.name) for a in node.names if a.name.split(".")[0] == "npuarray")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[:len(package) - node.level + 1] + [node.module or ""])
            elif (node.module or "").split(".")[0] == "npuarray":
                base = node.module
            else:
                continue
            base = base.rstrip(".")
            for alias in node.names:
                name = f"{base}.{alias.name}"
                yield node, name if _is_package_module(name) else base


def _package_graph():
    """Module -> the npuarray modules importing it runs: those it names, and the packages
    above them (their ``__init__`` runs first) but for the importer's own."""
    graph = {}
    for path in MODULES:
        name = _module_name(path)
        targets = graph.setdefault(name, set())
        for _, target in _imports_in(ast.parse(path.read_text()), path):
            parts = target.split(".")
            targets.update(".".join(parts[:end]) for end in range(2, len(parts))
                           if not name.startswith(".".join(parts[:end]) + "."))
            targets.add(target)
        targets.discard(name)
    return graph


def _function_local_imports(tree, path):
    """(line, module) of each npuarray import inside a def or class of ``tree``."""
    scopes = [s for s in ast.walk(tree)
              if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    nested = {node for scope in scopes for node in ast.walk(scope)}
    return [(node.lineno, module) for node, module in _imports_in(tree, path) if node in nested]


def _late_imports(tree):
    """Lines of the module-level imports of ``tree`` below its first def or class."""
    first = min((n.lineno for n in tree.body
                 if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))),
                default=float("inf"))
    return [n.lineno for n in tree.body
            if isinstance(n, (ast.Import, ast.ImportFrom)) and n.lineno > first]


def test_the_package_has_no_import_cycle():
    graph = _package_graph()
    assert len(graph) > 100  # every module is in it
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_graph_holds_the_imports():
    # The cycle test would pass vacuously if the graph missed imports.
    graph = _package_graph()
    assert {"npuarray._creation", "npuarray.linalg", "npuarray._core._array"} <= graph["npuarray"]
    assert "npuarray" in graph["npuarray.dask._backend"]  # import npuarray as npx
    assert "npuarray.runtime._device" in graph["npuarray.runtime._stream"]
    assert "npuarray._npusim" in graph["npuarray._acl._loader"]  # the compiled extension
    assert "npuarray.linalg" in graph["npuarray.random._multivariate"]  # its __init__ runs


# Above the namespace, its users: Dask's integration and the command-line tools
# (``python -m npuarray``, the comparison table's generator).
_ABOVE_THE_NAMESPACE = ("npuarray.dask", "npuarray.__main__", "npuarray._api_table")


def test_only_the_namespace_users_import_the_top_level_package():
    # Below the namespace nothing imports ``npuarray`` itself (a subpackage imports the
    # modules it needs directly), and nothing but npuarray.dask imports npuarray.dask.
    for name, targets in _package_graph().items():
        if not name.startswith(_ABOVE_THE_NAMESPACE):
            assert "npuarray" not in targets, f"{name} imports the npuarray package"
            assert not any(t.startswith("npuarray.dask") for t in targets), name


@pytest.mark.parametrize("path", OUTSIDE_CORE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_no_import_inside_a_function(path):
    where = str(path.relative_to(PACKAGE))
    for line, module in _function_local_imports(ast.parse(path.read_text()), path):
        assert (where, module) in _LAZY_OPTIONAL, \
            f"{where} line {line} imports {module} inside a function"


def test_the_lazy_imports_are_still_needed():
    found = {(str(p.relative_to(PACKAGE)), module) for p in OUTSIDE_CORE
             for _, module in _function_local_imports(ast.parse(p.read_text()), p)}
    assert found == _LAZY_OPTIONAL


@pytest.mark.parametrize("path", OUTSIDE_CORE, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_imports_before_the_first_definition(path):
    lines = _late_imports(ast.parse(path.read_text()))
    assert not lines, f"{path.relative_to(PACKAGE)} imports after its first definition: {lines}"


def test_the_import_rules_see_a_module_breaking_them():
    tree = ast.parse("import os\n\n\ndef f():\n    from . import _core\n    import json\n\n\n"
                     "from .runtime import _device\nimport numpy\n")
    path = PACKAGE / "_example.py"
    assert _function_local_imports(tree, path) == [(5, "npuarray._core")]
    assert _late_imports(tree) == [9, 10]
    assert sorted(m for _, m in _imports_in(tree, path)) == ["npuarray._core",
                                                             "npuarray.runtime._device"]
