"""npusim accepts no dtype that CANN's documentation does not list for an operator.

kernels/aclnn_dtypes.tsv (written by kernels/tools/aclnn_dtype_table.py from the CANN 9.1.0
documents it names) gives, per operator, the dtypes documented for its first tensor
parameter. This test walks every operator of that table whose first phase it can call with
generic arguments x every dtype npuarray knows: when ``aclnnXxxGetWorkspaceSize`` accepts
a first tensor of some dtype (with any of a few output dtypes), that dtype must be in the
table. (A checked table, not yet the source npusim's checks are derived from.)"""
import re
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops
from npuarray._acl import _cdef_aclnn, ffi, lib
from npuarray._core._data_type import to_acl_dtype

ROOT = Path(__file__).resolve().parent.parent
TABLE = ROOT / "kernels" / "aclnn_dtypes.tsv"
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
OUT_DTYPES = ["same", "bool", "int64", "float32"]   # the outputs operators commonly fix
OUT_SHAPES = [(2, 3), (3,), (1, 3), ()]           # element-wise, reduced over dim 0, all
# Operators whose tensors need their own shapes: the shape of each tensor parameter in order.
TENSOR_SHAPES = {"aclnnMatmul": [(2, 3), (3, 2), (2, 2)]}
# Known violations, kept visible (strict: the test fails once they are fixed, to be removed).
KNOWN = {}  # operator -> why npusim knowingly accepts more than CANN documents (none)


def _table():
    rows = {}
    for line in TABLE.read_text().splitlines():
        if line and not line.startswith("#"):
            op, dtypes, document = line.split("\t")
            rows[op] = (set(dtypes.split(",")), document)
    return rows


def _parameters(op):
    """The parameter types of op's first phase, as the cdef spells them (const kept)."""
    match = re.search(r"\b%sGetWorkspaceSize\s*\(([^;]*?)\)\s*;" % op, _cdef_aclnn.CDEF)
    if match is None:
        return None
    return [" ".join(re.sub(r"\b\w+$", "", p.strip()).replace("*", " * ").split())
            for p in match.group(1).split(",")]


def _np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _array(dtype, shape=(2, 3)):
    return npx.asarray(np.ones(shape, dtype=_np_dtype(dtype)))


def _arguments(op, params, dtype, out_dtype, out_shape, keep):
    """Generic arguments for a first phase, or None when a parameter has no generic value."""
    args, first_tensor = [], True
    shapes = iter(TENSOR_SHAPES.get(op, []))
    for param in params[:-2]:   # the last two are workspaceSize and executor
        if param in ("const aclTensor *", "aclTensor *"):
            is_output = param == "aclTensor *" and not first_tensor
            chosen = out_dtype if is_output and out_dtype != "same" else dtype
            x = _array(chosen, next(shapes, out_shape if is_output else (2, 3)))
            keep.append(x)
            args.append(_ops.acl_tensor(x))
            first_tensor = False
        elif param == "const aclScalar *":
            args.append(_ops.acl_scalar(1, _np_dtype("int64") if dtype == "bool" else _np_dtype(dtype)))
        elif param == "const aclIntArray *":
            dims = ffi.new("int64_t[1]", [0])
            keep.append(dims)
            array = lib.aclCreateIntArray(dims, 1)
            keep.append(ffi.gc(array, lib.aclDestroyIntArray))
            args.append(array)
        elif param in ("int64_t", "int32_t", "int8_t", "uint64_t", "int", "double", "float"):
            args.append(0)
        elif param == "aclDataType":   # the result dtype of a reduction or scan
            args.append(to_acl_dtype(_np_dtype(out_dtype if out_dtype != "same" else dtype)))
        elif param == "bool":
            args.append(False)
        else:
            return None
    return args


def _accepts(op, params, dtype):
    first_phase = getattr(lib, op + "GetWorkspaceSize")
    for out_dtype, out_shape in ((d, s) for s in OUT_SHAPES for d in OUT_DTYPES):
        keep = []
        args = _arguments(op, params, dtype, out_dtype, out_shape, keep)
        if args is None:
            return None
        workspace, executor = ffi.new("uint64_t *"), ffi.new("aclOpExecutor **")
        if first_phase(*args, workspace, executor) == 0:
            lib.aclDestroyAclOpExecutor(executor[0])
            return True
        lib.aclGetRecentErrMsg()   # clear the message of the refusal
    return False


def _walkable():
    ops = []
    for op, (documented, document) in sorted(_table().items()):
        params = _parameters(op)
        if params and params[0] == "const aclTensor *":
            marks = [pytest.mark.xfail(strict=True, reason=KNOWN[op])] if op in KNOWN else []
            ops.append(pytest.param(op, params, documented, document, marks=marks, id=op))
    return ops


WALKABLE = _walkable()


def test_the_table_names_a_document_for_each_operator():
    rows = _table()
    assert len(rows) >= 45
    for op, (dtypes, document) in rows.items():
        assert dtypes and document.startswith("hicann/ops-") and "@v9.1.0" in document, op


def test_the_walk_covers_most_operators_of_the_table():
    assert len(WALKABLE) >= 30


@pytest.mark.parametrize("op,params,documented,document", WALKABLE)
def test_npusim_accepts_only_documented_dtypes(op, params, documented, document):
    accepted = set()
    for dtype in DTYPES:
        result = _accepts(op, params, dtype)
        if result is None:
            pytest.skip("%s has a parameter without a generic value" % op)
        if result:
            accepted.add(dtype)
    if not accepted:
        pytest.skip("%s accepted no dtype: its arguments need more than the generic values" % op)
    extra = accepted - documented
    assert not extra, "%s accepts %s, which %s does not list" % (op, sorted(extra), document)
