"""The operator table kernels/aclnn_dtypes.tsv: one row per parameter of every aclnn operator
npusim implements, with the dtypes CANN 9.1.0 documents for it, the document, and npusim's
set where it differs (with the reason). npusim's first-phase dtype checks
(kernels/ops/aclnn_dtypes.h) and npuarray's casting tables (npuarray/_core/_operator_table.py)
are generated from it by kernels/tools/gen_operator_table.py.

These tests check that the table is well formed, covers every operator npuarray calls with the
signature the cdef declares, cites documents of CANN's operator list (docs/cann-operators.txt),
that the generated files are current, and that npusim's behaviour is the table's: called through
the ABI with each dtype for each tensor parameter, npusim's first phase refuses (161002,
ACLNN_ERR_PARAM_INVALID) every dtype outside the parameter's set and never refuses a dtype of
the set as one it does not support."""
import importlib.util
import re
import shutil
import subprocess
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import npuarray as npx
from npuarray._acl import _cdef_aclnn, ffi, lib
from npuarray._core import _operator_table, _ops
from npuarray._core._data_type import to_acl_dtype

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("gen_operator_table",
                                               ROOT / "kernels" / "tools" / "gen_operator_table.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)

ACLNN_ERR_PARAM_INVALID = 161002
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
OUT_DTYPES = ["same", "bool", "int64", "float32"]   # the outputs operators commonly fix
OUT_SHAPES = [(2, 3), (3,), (1, 3), ()]           # element-wise, reduced over dim 0, all
# Operators whose tensors need their own shapes: the shape of each tensor parameter in order.
TENSOR_SHAPES = {"aclnnMatmul": [(2, 3), (3, 2), (2, 2)], "aclnnInverse": [(2, 2), (2, 2)],
                 "aclnnLinalgCholesky": [(2, 2), (2, 2)], "aclnnSlogdet": [(2, 2), (), ()],
                 "aclnnLinalgQr": [(2, 2), (2, 2), (2, 2)],
                 "aclnnSvd": [(2, 2), (2,), (2, 2), (2, 2)],
                 "aclnnLinalgCross": [(3, 2), (3, 2), (3, 2)], "aclnnNonzero": [(2, 3), (6, 2)],
                 "aclnnUnique2": [(2, 3), (6,), (2, 3), (6,)],
                 "aclnnBincount": [(3,), (3,), (2,)], "aclnnIndexSelect": [(2, 3), (2,), (2, 3)],
                 "aclnnKthvalue": [(2, 3), (3,), (3,)], "aclnnMultinomial": [(2, 3), (2, 1)],
                 "aclnnRandperm": [(6,)]}
TENSOR_SHAPES.update({"aclnnHistc": [(2, 3), (2,)]})
# Integer parameters whose generic value 0 is out of range: (operator, parameter) -> value.
INT_ARGS = {("aclnnKthvalue", "k"): 1, ("aclnnMultinomial", "numsamples"): 1,
            ("aclnnRandperm", "n"): 6}
INT_ARGS.update({("aclnnHistc", "bins"): 2})
# A tensor parameter whose set lacks the generic dtype takes the first of these it has.
PREFERRED = ["int64", "int32", "float32", "bool"]
# Parameters whose dtype, within the table's set, another argument chooses (as in CANN).
SET_BY_ANOTHER_ARGUMENT = {("aclnnSearchSorted", "out")}   # int32 when outInt32, else int64
# Parameters the generic arguments leave unused, so unchecked (aclnnSvd's computeUV is false).
UNUSED = {("aclnnSvd", "u"), ("aclnnSvd", "v")}
ROWS = gen.read_table()


def _by_operator():
    ops = {}
    for row in ROWS:
        ops.setdefault(row.op, []).append(row)
    return ops


OPERATORS = _by_operator()


def _cdef_signature(op):
    """(name, C type) of each parameter of op's first phase in the cdef, or None."""
    match = re.search(r"\b%sGetWorkspaceSize\s*\(([^;]*?)\)\s*;" % op, _cdef_aclnn.CDEF)
    if match is None:
        return None
    params = []
    for text in match.group(1).split(",")[:-2]:   # no workspaceSize, executor
        text = " ".join(text.replace("*", " * ").split())
        name = re.search(r"(\w+)$", text).group(1)
        params.append((name, text[:-len(name)].strip().replace(" *", "*")))
    return params


def _called_operators():
    """aclnn operators declared in the cdef that npuarray's sources name."""
    declared = set(re.findall(r"\b(aclnn\w+)GetWorkspaceSize\s*\(", _cdef_aclnn.CDEF))
    named = set()
    for path in (ROOT / "npuarray").rglob("*"):
        if path.suffix in (".py", ".c", ".h") and not path.name.startswith("_cdef_") \
                and path.name != "_operator_table.py":
            named.update(re.findall(r"\b(aclnn[A-Z]\w*?)(?:GetWorkspaceSize)?\b", path.read_text()))
    return sorted(declared & named)


# ----------------------------------------------------------------------------------------
# The table itself


def test_the_table_parses_into_rows_of_known_dtypes():
    assert len(OPERATORS) >= 130
    for row in ROWS:
        assert row.role in ("input", "output"), (row.op, row.param)
        assert set(row.cann) <= set(gen.ACL_NAMES) and set(row.npusim) <= set(gen.ACL_NAMES)
        if row.npusim != row.cann:
            assert row.why, (row.op, row.param)


def test_a_malformed_row_is_refused(tmp_path):
    table = tmp_path / "t.tsv"
    table.write_text("aclnnX\tself\tinput\tconst aclTensor*\tfloat32,float33\tdoc\t=\t\n")
    with pytest.raises(ValueError, match="unknown dtypes"):
        gen.read_table(table)
    table.write_text("aclnnX\tself\tinput\tconst aclTensor*\tfloat32\tdoc\tint8\t\n")
    with pytest.raises(ValueError, match="without a reason"):
        gen.read_table(table)
    table.write_text("aclnnX\tself\tinput\n")
    with pytest.raises(ValueError, match="3 fields"):
        gen.read_table(table)


def test_every_operator_npuarray_calls_has_its_cdef_signature_in_the_table():
    called = _called_operators()
    assert len(called) >= 130
    missing = [op for op in called if op not in OPERATORS]
    assert not missing
    for op in called:
        table = [(row.param, row.ctype) for row in OPERATORS[op]]
        assert table == _cdef_signature(op), op


def test_every_row_cites_a_document_of_cann_s_operator_list():
    """The document of each operator is a docs/aclnn*.md of hicann/ops-math or ops-nn at the
    release, in the folder of a header that docs/cann-operators.txt lists (the header of the
    operator or of the operator family that document covers)."""
    headers = {line.strip() for line in (ROOT / "docs" / "cann-operators.txt").read_text().splitlines()
               if line.startswith("aclnn_")}
    for op, rows in OPERATORS.items():
        document = rows[0].document
        match = re.fullmatch(r"hicann/(ops-math|ops-nn):([\w/]+)/docs/([\w&]+)\.md@v9\.1\.0", document)
        assert match, (op, document)
        assert op in match.group(3).split("&"), (op, document)
        header = "aclnn_" + re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", op[len("aclnn"):]).lower() + ".h"
        assert header in headers or any(h in headers for h in _family_headers(op)), (op, header)
        assert {row.document for row in rows} == {document}


def _family_headers(op):
    """The headers an operator may be declared in: its own, or (aclnnAdds, aclnnInplaceAdd,
    aclnnEqScalar...) the one of its family, as kernels/include/aclnnop mirrors CANN's."""
    return [path.name for path in (ROOT / "kernels" / "include" / "aclnnop").glob("*.h")
            if re.search(r"\b%sGetWorkspaceSize\b" % op, path.read_text())]


def test_the_generated_c_checks_and_python_table_are_current():
    assert gen.stale() == []


def test_the_python_table_reads_the_rows():
    f32 = np.dtype(np.float32)
    assert _operator_table.operator_dtypes("aclnnMatmul") == {f32, np.dtype(np.float16),
                                                              np.dtype(ml_dtypes.bfloat16)}
    assert _operator_table.operator_dtypes("aclnnReduceSum") == \
        _operator_table.operator_dtypes("aclnnReduceSum", "self")
    assert _operator_table.operator_dtypes("aclnnReduceSum", "keepDims") == frozenset()
    with pytest.raises(KeyError):
        _operator_table.operator_dtypes("aclnnNoSuchOperator")
    for row in ROWS:   # both providers' set: CANN's documented within npusim's
        names = {str(d) for d in _operator_table.operator_dtypes(row.op, row.param)}
        expected = set(row.npusim) & set(row.cann) if row.cann else set(row.npusim)
        assert names == expected - {"complex32"}, (row.op, row.param)


# ----------------------------------------------------------------------------------------
# npusim behaves as the table says


def _np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


class _Call:
    """One first-phase call of ``op`` with generic arguments: every tensor of ``base``
    dtype (outputs of ``out_dtype``, shaped ``out_shape``) but ``override`` {param: dtype}."""

    def __init__(self, op, base, out_dtype, out_shape, override=None):
        self.op, self.keep, self.args = op, [], []
        shapes = iter(TENSOR_SHAPES.get(op, []))
        override = override or {}
        for name, ctype in _cdef_signature(op):
            ctype = ctype[len("const "):] if ctype in ("const bool", "const int64_t") else ctype
            role = next(row.role for row in OPERATORS[op] if row.param == name)
            if ctype in ("const aclTensor*", "aclTensor*"):
                out = role == "output"
                dtype = override.get(name) or self._generic(op, name, out_dtype
                                                            if out and out_dtype != "same" else base)
                x = npx.asarray(np.ones(next(shapes, out_shape if out else (2, 3)), _np_dtype(dtype)))
                self.keep.append(x)
                self.args.append(_ops.acl_tensor(x))
            elif ctype == "const aclScalar*":
                self.args.append(_ops.acl_scalar(1, _np_dtype("int64" if base == "bool" else base)))
            elif ctype == "const aclIntArray*":
                dims = ffi.new("int64_t[1]", [0])
                array = ffi.gc(lib.aclCreateIntArray(dims, 1), lib.aclDestroyIntArray)
                self.keep += [dims, array]
                self.args.append(array)
            elif ctype in ("int64_t", "int32_t", "int8_t", "uint64_t", "int", "double", "float"):
                self.args.append(INT_ARGS.get((op, name), 0))
            elif ctype in ("aclDataType", "const aclDataType"):
                self.args.append(to_acl_dtype(_np_dtype(out_dtype if out_dtype != "same" else base)))
            elif ctype == "bool":
                self.args.append(False)
            else:
                raise LookupError(ctype)

    @staticmethod
    def _generic(op, param, dtype):
        """``dtype``, or a dtype of the parameter's set when it lacks ``dtype``."""
        allowed = next(row.npusim for row in OPERATORS[op] if row.param == param)
        if not allowed or dtype in allowed:
            return dtype
        return next((d for d in PREFERRED if d in allowed), allowed[0])

    def run(self):
        """(status, error message) of the first phase."""
        workspace, executor = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        status = getattr(lib, self.op + "GetWorkspaceSize")(*self.args, workspace, executor)
        if status == 0:
            lib.aclDestroyAclOpExecutor(executor[0])
            return 0, ""
        return status, ffi.string(lib.aclGetRecentErrMsg()).decode()


def _baseline(op):
    """Generic arguments op's first phase accepts, or None."""
    for base in DTYPES[::-1]:
        for out_shape in OUT_SHAPES:
            for out_dtype in OUT_DTYPES:
                try:
                    call = _Call(op, base, out_dtype, out_shape)
                except LookupError:
                    return None
                if call.run()[0] == 0:
                    return base, out_dtype, out_shape
    return None


def _walkable():
    ops = []
    for op, rows in sorted(OPERATORS.items()):
        if _cdef_signature(op) is None:
            continue
        checked = [row for row in rows if row.ctype in ("const aclTensor*", "aclTensor*")
                   and row.npusim and (op, row.param) not in UNUSED]
        if checked:
            ops.append(pytest.param(op, checked, id=op))
    return ops


WALKABLE = _walkable()


@pytest.mark.parametrize("op,rows", WALKABLE)
def test_npusim_checks_each_tensor_parameter_against_the_table(op, rows):
    baseline = _baseline(op)
    if baseline is None:
        pytest.skip("%s accepted none of the generic arguments: it needs its own" % op)
    for row in rows:
        for dtype in DTYPES:
            status, message = _Call(op, *baseline, override={row.param: dtype}).run()
            if dtype in row.npusim:
                assert not (status and _names_dtype(message, op, row.param, dtype)) \
                    or (op, row.param) in SET_BY_ANOTHER_ARGUMENT, \
                    "%s refuses %s %s, which the table lists: %s" % (op, row.param, dtype, message)
            else:
                assert status == ACLNN_ERR_PARAM_INVALID, \
                    "%s accepts %s %s, which the table does not list (%s)" % (
                        op, row.param, dtype, status)


_ACL_WORDS = {"float32": "FLOAT", "float16": "FLOAT16", "bfloat16": "BFLOAT16",
              "float64": "DOUBLE"}


def _names_dtype(message, op, param, dtype):
    """Whether npusim's message refuses param's dtype as one the operator does not support."""
    word = _ACL_WORDS.get(dtype, dtype.upper())
    return ": %s has dtype %s, which %s does not support" % (param, word, op) in message


def test_the_walk_covers_most_operators():
    # Counted here, not from the walk's own tests: pytest-xdist spreads those over workers.
    walked = [param.values[0] for param in WALKABLE if _baseline(param.values[0]) is not None]
    assert len(walked) >= 80


def test_the_makefile_regenerates_the_checks_from_the_table(tmp_path):
    """``make`` in kernels/ writes the generated files from the table before compiling (a copy
    of the table, the generator and the Makefile, without the generated files)."""
    kernels = tmp_path / "kernels"
    (kernels / "tools").mkdir(parents=True)
    (kernels / "ops").mkdir()
    (tmp_path / "npuarray" / "_core").mkdir(parents=True)
    for name in ("Makefile", "aclnn_dtypes.tsv", "tools/gen_operator_table.py"):
        shutil.copy(ROOT / "kernels" / name, kernels / name)
    subprocess.run(["make", "-s", "-C", str(kernels), "ops/aclnn_dtypes.h"], check=True)
    assert (kernels / "ops" / "aclnn_dtypes.h").read_text() == gen.C_HEADER.read_text()
    assert (tmp_path / "npuarray" / "_core" / "_operator_table.py").read_text() == \
        gen.PY_MODULE.read_text()
