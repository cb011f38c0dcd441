"""The package's import structure, measured from its source (``ast``; only ``--walk`` imports
the package).

``python tools/import_structure.py [--root DIR] [--walk]`` prints, for the ``npuarray``
package under ``DIR`` (default: this checkout):

- the ten largest modules: lines and fan-in (how many npuarray modules import them);
- the import cycles: strongly connected components of the module graph with more than
  one module (or a module importing itself), each with its size;
- function-local imports of npuarray modules, compiled ones included (an import inside a
  ``def`` or ``class``);
- imports below a module's first definition (``def``/``class`` at module level);
- when the graph has no cycle, a Markdown table of the package's parts (the binding,
  ``runtime``, ``_core``, the subpackages, the chapter modules, the namespace) by layer:
  a part's layer is one more than the highest layer of the parts it imports;
- with ``--walk``: the modules one argument visits from ``npuarray.asarray`` to the
  binding's library and back, in call order (calls, returns to the caller, calls into the
  compiled modules), and how many of the visits return to a module already left.

The architecture page ``docs/design.md`` ("Import structure") quotes these numbers;
run this script to regenerate them.
"""
import argparse
import ast
import collections
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent.parent


def modules(root):
    """Module name -> path of every ``.py`` file of the package under ``root``."""
    package = root / "npuarray"
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _targets(node, name, is_package, found):
    """The npuarray modules an import statement names: ``from a import b`` names
    ``a.b`` when that is a module, else ``a``."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    if isinstance(node, ast.Import):
        return [a.name for a in node.names if a.name.split(".")[0] == "npuarray"]
    if node.level:
        base = package[:len(package) - node.level + 1]
    elif (node.module or "").split(".")[0] == "npuarray":
        base = []
    else:
        return []
    module = ".".join(base + ([node.module] if node.module else []))
    return [f"{module}.{a.name}" if a.name != "*" and _is_module(f"{module}.{a.name}", found)
            else module for a in node.names]


def _is_module(name, found):
    """Whether ``name`` is a module: a ``.py`` file of the package or a compiled one."""
    if name in found:
        return True
    package = name.rsplit(".", 1)[0]
    directory = found[package].parent if package in found else None
    return bool(directory) and any(directory.glob(name.rsplit(".", 1)[1] + ".*.so"))


def imports(root):
    """Per module: a list of (line, imported module, where) with ``where`` one of
    ``"top"``, ``"function"`` (inside a def or class) or ``"late"`` (module level, below
    the first definition)."""
    found = modules(root)
    result = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text())
        first = min((n.lineno for n in tree.body if isinstance(
            n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))), default=float("inf"))
        nested = set()
        for scope in ast.walk(tree):
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                nested.update(id(n) for n in ast.walk(scope)
                              if isinstance(n, (ast.Import, ast.ImportFrom)))
        rows = []
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            where = ("function" if id(node) in nested
                     else "late" if node.lineno > first else "top")
            is_package = path.name == "__init__.py"
            for target in _targets(node, name, is_package, found):
                if _is_module(target, found) and target != name:
                    rows.append((node.lineno, target, where))
        result[name] = sorted(set(rows))
    return result


def graph(table):
    """Module -> set of the modules it imports (importing ``a.b`` runs ``a`` first)."""
    edges = collections.defaultdict(set)
    for name, rows in table.items():
        edges[name]
        for _, target, _ in rows:
            edges[name].add(target)
            parts = target.split(".")
            for i in range(1, len(parts)):
                parent = ".".join(parts[:i])
                if parent in table and parent != name and not name.startswith(parent + "."):
                    edges[name].add(parent)
    return edges


def cycles(edges):
    """Strongly connected components with a cycle (Tarjan's algorithm, iterative)."""
    index, low, stack, on, found = {}, {}, [], set(), []
    for start in sorted(edges):
        if start in index:
            continue
        work = [(start, iter(sorted(edges[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges[child]))))
                    break
                if child in on:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1 or node in edges[node]:
                        found.append(sorted(component))
    return found


def layers(edges):
    """Module -> its layer: 0 for a module importing no npuarray module, else one more
    than the highest layer it imports (defined only for an acyclic graph)."""
    depth = {}

    def layer(module):
        if module not in depth:
            depth[module] = 0 if not edges[module] else 1 + max(map(layer, edges[module]))
        return depth[module]

    sys.setrecursionlimit(10000)
    for module in edges:
        layer(module)
    return depth


def largest(root, table, count=10):
    """(lines, fan-in, module) of the ``count`` largest modules."""
    fan_in = collections.Counter(
        target for rows in table.values() for target in {t for _, t, _ in rows})
    sizes = [(len(path.read_text().splitlines()), fan_in[name], name)
             for name, path in modules(root).items()]
    return sorted(sizes, reverse=True)[:count]


# The parts of the package the layer table names, as (name, what it holds, test of a
# module's dotted name split in parts); the first part whose test passes holds a module.
PARTS = [
    ("binding", "`_acl`, `_npusim`", lambda p: p[1:2] in (["_acl"], ["_npusim"])),
    ("runtime", "`runtime/`", lambda p: p[1:2] == ["runtime"]),
    ("core", "`_core/`", lambda p: p[1:2] == ["_core"]),
    *((name, f"`{name}`", lambda p, name=name: p[1:2] == [name])
      for name in ("linalg", "fft", "random", "profiler", "pyacl", "testing")),
    ("users", "`dask/`, `__main__`, `_api_table`",
     lambda p: p[1:2] in (["dask"], ["__main__"], ["_api_table"])),
    ("namespace", "`__init__`, `_numpy_dispatch`, `_dask_hook`",
     lambda p: p in (["npuarray"], ["npuarray", "_numpy_dispatch"], ["npuarray", "_dask_hook"])),
    ("chapters", "`npuarray/_<topic>.py` and their helpers", lambda p: True),
]


def part(module):
    return next(name for name, _, test in PARTS if test(module.split(".")))


def part_table(edges):
    """Markdown table of the parts by layer (one more than the highest part a part
    imports), with the parts each imports; ``None`` when the parts import each other."""
    imports = collections.defaultdict(set)
    members = collections.Counter(part(m) for m in edges)
    for module, targets in edges.items():
        imports[part(module)].update(part(t) for t in targets if part(t) != part(module))
    if cycles({p: imports[p] for p in members}):
        return None
    depth = layers({p: imports[p] for p in members})
    order = [name for name, _, _ in PARTS]
    holds = {name: what for name, what, _ in PARTS}
    rows = ["| layer | part | holds | modules | imports |", "|---|---|---|---|---|"]
    for name in sorted(members, key=lambda p: (depth[p], order.index(p))):
        below = ", ".join(sorted(imports[name], key=order.index)) or "—"
        rows.append(f"| {depth[name]} | {name} | {holds[name]} | {members[name]} | {below} |")
    return "\n".join(rows)


def report(root):
    table = imports(root)
    edges = graph(table)
    out = [f"modules: {len(table)}", "", "ten largest modules (lines, fan-in):"]
    out += [f"  {lines:6d} {fan:4d}  {name}" for lines, fan, name in largest(root, table)]
    found = cycles(edges)
    out += ["", f"import cycles: {len(found)}"]
    out += [f"  {len(c)} modules: {' '.join(c)}" for c in found]
    for where, title in (("function", "function-local imports of npuarray modules"),
                         ("late", "imports below the first definition")):
        sites = sorted({(name, line) for name, rows in table.items()
                        for line, _, w in rows if w == where})
        out += ["", f"{title}: {len(sites)}"]
        out += [f"  {name}:{line}" for name, line in sites]
    if not found:
        out += ["", part_table(edges) or "the parts import each other"]
    return "\n".join(out)


def walk(root):
    """(visits, returns) of ``npuarray.asarray(ndarray)`` through the package's modules:
    every change of module in call order (calls, returns to the caller, calls into the
    compiled modules: the C fast path and the binding's library), and how many of those
    visits come back to a module already left."""
    sys.path.insert(0, str(root))
    import numpy as np
    import npuarray

    host = np.arange(6.0).reshape(2, 3)
    npuarray.asarray(host)  # first call: caches filled, modules loaded
    visits = []

    def module_of(frame, event, arg):
        if event == "return":
            frame = frame.f_back
        elif event == "c_call":
            return getattr(arg, "__module__", None) or ""
        return frame.f_globals.get("__name__", "") if frame else ""

    def trace(frame, event, arg):
        module = module_of(frame, event, arg)
        if module.startswith("npuarray") and (not visits or visits[-1] != module):
            visits.append(module)

    sys.setprofile(trace)
    try:
        npuarray.asarray(host)
    finally:
        sys.setprofile(None)
    left, returns = set(), 0
    for previous, module in zip(visits, visits[1:]):
        left.add(previous)
        returns += module in left
    return visits, returns


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=pathlib.Path, default=HERE,
                        help="the checkout holding the npuarray package")
    parser.add_argument("--walk", action="store_true",
                        help="trace npuarray.asarray's module visits (imports the package)")
    args = parser.parse_args()
    print(report(args.root))
    if args.walk:
        visits, returns = walk(args.root)
        print(f"\nnpuarray.asarray(ndarray): {len(visits)} module visits, "
              f"{returns} back in a module already left")
        print("  " + " -> ".join(visits))


if __name__ == "__main__":
    main()
