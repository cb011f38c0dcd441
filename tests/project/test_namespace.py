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
