"""kernels/include is used the way CANN's headers are, and the cffi cdef agrees with it.

1. Every program in tests/c compiles (-fsyntax-only) against kernels/include alone: C
   programs as C11, programs using aclnn as C++17 (CANN's aclnn headers are C++ only), and
   a C program including an aclnn header is refused as it would be with CANN's headers.
2. Every declaration of the cdef (npuarray/_acl/_cdef_*.py) is checked mechanically against
   the headers: both are parsed by one parser (pycparser, cffi's own), and each function,
   struct, enum and typedef the cdef declares must be declared identically in the headers
   (parameter names aside)."""
import importlib.util
import shutil
import subprocess
from pathlib import Path

import pytest
from cffi.cparser import _r_comment   # how cffi itself drops the cdef's comments
from pycparser import c_ast, c_generator, c_parser

from npuarray._acl import _loader

ROOT = Path(__file__).resolve().parents[2]


def _checkout_build_module():
    """The checkout's npuarray/_acl/_build_npusim.py, loaded by path: it reads kernels/
    beside it, which an installed npuarray (the one under test in CI) does not have."""
    path = ROOT / "npuarray" / "_acl" / "_build_npusim.py"
    spec = importlib.util.spec_from_file_location("_checkout_build_npusim", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_build_npusim = _checkout_build_module()
INCLUDE = ROOT / "kernels" / "include"
C_DIR = ROOT / "tests" / "npusim" / "c"
PROGRAMS = sorted(C_DIR.glob("*.c")) + sorted(C_DIR.glob("*.cpp"))

GCC, GXX = shutil.which("gcc"), shutil.which("g++")
needs_compilers = pytest.mark.skipif(not (GCC and GXX), reason="gcc and g++ are needed")

# The C standard headers the ABI headers use, reduced to the typedefs pycparser must know.
FAKE_LIBC = {
    "stdint.h": "typedef signed char int8_t; typedef short int16_t; typedef int int32_t;"
                "typedef long int64_t; typedef unsigned char uint8_t; typedef unsigned short"
                " uint16_t; typedef unsigned int uint32_t; typedef unsigned long uint64_t;"
                "typedef unsigned long uintptr_t; typedef long intptr_t;",
    "stddef.h": "typedef unsigned long size_t; typedef long ptrdiff_t;",
    "stdbool.h": "typedef _Bool bool;",
    "stdlib.h": "",
}


def _compile(path, *flags):
    compiler, std = (GXX, "-std=c++17") if path.suffix == ".cpp" else (GCC, "-std=c11")
    return subprocess.run([compiler, std, "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                           "-Wno-unused-variable", f"-I{INCLUDE}", *flags, str(path)],
                          capture_output=True, text=True, timeout=120)


@needs_compilers
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.name for p in PROGRAMS])
def test_program_compiles_against_the_headers_alone(program):
    result = _compile(program)
    assert result.returncode == 0, result.stderr


@needs_compilers
@pytest.mark.parametrize("program", [p for p in PROGRAMS if p.suffix == ".c"],
                         ids=lambda p: p.name)
def test_c_programs_do_not_use_aclnn(program):
    assert "aclnn" not in program.read_text(), (
        "%s uses aclnn: CANN's aclnn headers are C++, make it a .cpp program" % program.name)


@needs_compilers
def test_a_c_program_including_aclnn_is_refused(tmp_path):
    source = tmp_path / "uses_aclnn.c"
    source.write_text('#include "aclnnop/aclnn_add.h"\nint main(void) { return 0; }\n')
    result = _compile(source)
    assert result.returncode != 0
    assert "compile this program as C++" in result.stderr


@needs_compilers
def test_every_operator_header_compiles_alone_as_cxx(tmp_path):
    failures = []
    for header in sorted((INCLUDE / "aclnnop").glob("*.h")):
        source = tmp_path / (header.stem + ".cpp")
        source.write_text('#include "aclnnop/%s"\n' % header.name)
        result = _compile(source)
        if result.returncode:
            failures.append(result.stderr)
    assert not failures, "\n".join(failures)


# ---- the cdef against the headers ---------------------------------------------------------

def _parse(text):
    prelude = " ".join(FAKE_LIBC.values())
    return c_parser.CParser().parse(prelude + "\n" + text)


def _normalise(node):
    """What does not change the ABI is dropped: parameter names, top-level qualifiers of
    parameters (C11 6.7.6.3p15), ``()`` against ``(void)``, and the tag of a typedef'd
    struct or enum."""
    class Normalise(c_ast.NodeVisitor):
        def visit_FuncDecl(self, func):
            params = func.args.params if func.args else []
            if not params:
                void = c_ast.TypeDecl(None, [], None, c_ast.IdentifierType(["void"]))
                func.args = c_ast.ParamList([c_ast.Typename(None, [], None, void)])
            for param in params:
                if isinstance(param, (c_ast.Decl, c_ast.Typename)):
                    param.name = None
                    if isinstance(param.type, c_ast.TypeDecl):
                        param.type.quals = []
                    inner = param.type
                    while not isinstance(inner, c_ast.TypeDecl) and hasattr(inner, "type"):
                        inner = inner.type
                    if isinstance(inner, c_ast.TypeDecl):
                        inner.declname = None
            self.generic_visit(func)

        def visit_Typedef(self, typedef):
            inner = typedef.type.type if isinstance(typedef.type, c_ast.TypeDecl) else None
            if isinstance(inner, (c_ast.Struct, c_ast.Enum)) and inner.values is not None \
                    if isinstance(inner, c_ast.Enum) else isinstance(inner, c_ast.Struct) \
                    and inner.decls is not None:
                inner.name = None
            self.generic_visit(typedef)
    Normalise().visit(node)
    return node


def _enum_of(node):
    if isinstance(node, c_ast.Typedef) and isinstance(node.type, c_ast.TypeDecl) \
            and isinstance(node.type.type, c_ast.Enum) and node.type.type.values is not None:
        return node.type.type
    return None


class _Enumerators(dict):
    """An enum's {name: value}. The cdef may declare a subset of a header's enumerators
    (the ones npuarray uses); each must have the header's value."""

    def matches(self, header):
        return isinstance(header, dict) and all(header.get(k) == v for k, v in self.items())


def _enumerators(enum):
    values, next_value = _Enumerators(), 0
    for item in enum.values.enumerators:
        if item.value is not None:
            next_value = int(c_generator.CGenerator().visit(item.value), 0)
        values[item.name] = next_value
        next_value += 1
    return values


def _same(cdef, header):
    return cdef.matches(header) if isinstance(cdef, _Enumerators) else cdef == header


def _declarations(ast):
    """name -> normalised C text of each top-level declaration (functions, typedefs, and
    struct/enum definitions), as pycparser prints it."""
    generator = c_generator.CGenerator()
    result = {}
    for node in ast.ext:
        node = _normalise(node)
        enum = _enum_of(node)
        if enum is not None:
            result["typedef " + node.name] = _enumerators(enum)
        elif isinstance(node, c_ast.Typedef):
            result["typedef " + node.name] = generator.visit(node)
        elif isinstance(node, c_ast.Decl):
            if node.name:
                node.funcspec, node.storage = [], []
                result[node.name] = generator.visit(node)
            elif isinstance(node.type, (c_ast.Struct, c_ast.Enum)) and node.type.name:
                result["tag " + node.type.name] = generator.visit(node)
    return result


@pytest.fixture(scope="module")
def header_declarations(tmp_path_factory):
    if not GCC:
        pytest.skip("gcc is needed to preprocess the headers")
    fake = tmp_path_factory.mktemp("fake_libc")
    for name, text in FAKE_LIBC.items():
        (fake / name).write_text("")   # the typedefs come from the parse prelude
    everything = fake / "all.c"
    everything.write_text(_build_npusim.preamble())
    result = subprocess.run(
        [GCC, "-E", "-P", "-nostdinc", f"-I{fake}", f"-I{INCLUDE}", "-DNPUSIM_IMPLEMENTATION",
         "-DACL_FUNC_VISIBILITY=", "-D__attribute__(x)=", str(everything)],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return _declarations(_parse(result.stdout))


def test_every_cdef_declaration_is_identical_in_the_headers(header_declarations):
    cdef = _declarations(_parse(_r_comment.sub(" ", _loader._full_cdef())))
    assert len(cdef) > 300
    missing = sorted(name for name in cdef if name not in header_declarations
                     and name != "free")   # free is libc's
    different = sorted("cdef:    %s\nheaders: %s" % (cdef[name], header_declarations[name])
                       for name in cdef if name in header_declarations
                       and not _same(cdef[name], header_declarations[name]))
    assert not missing, "declared in the cdef, not in kernels/include: %s" % missing
    assert not different, "\n".join(different)


def test_the_check_sees_a_changed_parameter_or_value(header_declarations):
    """The comparison is not vacuous: a wrong parameter type, a dropped const, a missing
    function and a wrong enumerator value are each reported."""
    cdef_text = _r_comment.sub(" ", _loader._full_cdef())
    assert "aclError aclrtMalloc(void **devPtr, size_t size" in cdef_text
    mutations = [
        ("aclError aclrtMalloc(void **devPtr, size_t size", "aclError aclrtMalloc(void **devPtr, int size"),
        ("aclnnStatus aclDestroyTensor(const aclTensor*", "aclnnStatus aclDestroyTensor(aclTensor*"),
        ("ACL_FLOAT = 0", "ACL_FLOAT = 7"),
    ]
    for old, new in mutations:
        assert old in cdef_text, old
        mutated = _declarations(_parse(cdef_text.replace(old, new, 1)))
        assert any(name in header_declarations and not _same(mutated[name], header_declarations[name])
                   for name in mutated), new
    extra = _declarations(_parse(cdef_text + "\nint aclrtNoSuchFunction(int x);\n"))
    assert "aclrtNoSuchFunction" in extra and "aclrtNoSuchFunction" not in header_declarations


def test_npusim_reports_the_release_the_headers_mirror():
    """acl.h names CANN 9.1.0 (ACL 1.17.0); aclrtGetVersion reports the same numbers."""
    import re as _re
    import npuarray as npx
    text = (INCLUDE / "acl" / "acl.h").read_text()
    assert "CANN 9.1.0" in text
    version = tuple(int(_re.search(r"#define ACL_%s_VERSION (\d+)" % part, text).group(1))
                    for part in ("MAJOR", "MINOR", "PATCH"))
    assert version == (1, 17, 0)
    assert npx.backend().version == version
