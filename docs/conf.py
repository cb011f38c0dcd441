"""Sphinx configuration of npuarray's documentation site.

Build it from the checkout (after building npusim in place, or with npuarray
installed): ``python -m sphinx -W docs docs/_build/html``. The API reference pages
(``docs/api/``) and NumPy's link inventory are written here from the code itself,
at every build: nothing in them is kept by hand.
"""
import pathlib
import sys
import zlib

DOCS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS))  # _apipages

import _apipages  # noqa: E402
import npuarray  # noqa: E402

project = "npuarray"
author = "the npuarray developers"
copyright = "the npuarray developers"
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.autosummary",
              "sphinx.ext.intersphinx", "numpydoc"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "seeds", "README.md"]
templates_path = ["_templates"]
html_theme = "alabaster"
html_title = "npuarray"
html_static_path = ["_static"]
html_favicon = "_static/favicon.svg"  # also spares browsers a request for /favicon.ico

autosummary_generate = True
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False
numpydoc_validation_checks = set()
myst_heading_anchors = 3

# NumPy's reference pages, linked from every npuarray function that mirrors one. The
# inventory is written from NumPy's own names (the build needs no network); its
# addresses are those of numpy.org's generated reference pages.
NUMPY_DOCS = "https://numpy.org/doc/stable/"
NUMPY_NAMES = _apipages.numpy_function_names()


def _numpy_inventory(path, names):
    lines = "".join(f"{name} py:function 1 reference/generated/{name}.html -\n"
                    for name in sorted(names))
    header = ("# Sphinx inventory version 2\n# Project: NumPy\n# Version: stable\n"
              "# The remainder of this file is compressed using zlib.\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(header.encode() + zlib.compress(lines.encode()))
    return str(path)


intersphinx_mapping = {"numpy": (NUMPY_DOCS, _numpy_inventory(DOCS / "_build" / "numpy.inv",
                                                            NUMPY_NAMES))}
autosummary_context = {"numpy_names": NUMPY_NAMES}

_apipages.write_reference(DOCS / "api")


def _numpy_objects(app, what, name, obj, options, lines):
    """NumPy's own objects that npuarray re-exports (dtype, errstate, printing options,
    SeedSequence...), as CuPy does: their pages point to NumPy's, whose docstrings cite
    labels of NumPy's own site."""
    if name.startswith("npuarray.") and _numpy_owned(name):
        numpy_name = "numpy" + name[len("npuarray"):]
        lines[:] = [f"NumPy's own object, which npuarray re-exports: see :obj:`{numpy_name}`."]


def _numpy_owned(name):
    """Whether the object ``name`` names, or an object it is a member of, is NumPy's."""
    current = npuarray
    for part in name.split(".")[1:]:
        current = getattr(current, part, None)
        module = getattr(current, "__module__", None)
        if isinstance(module, str) and module.startswith("numpy"):
            return True
    return False


def setup(app):
    app.connect("autodoc-process-docstring", _numpy_objects)
