"""Data-type routines and scalar-type names (npuarray/_dtype_routines.py) against NumPy."""
import itertools

import numpy as np
import pytest

import npuarray as npx
from _numpy_names_helpers import up

SCALAR_NAMES = ["bool_", "byte", "ubyte", "short", "ushort", "intc", "uintc", "int_", "uint",
                "long", "ulong", "longlong", "ulonglong", "intp", "uintp", "half", "single",
                "double", "csingle", "cdouble", "generic", "number", "integer",
                "signedinteger", "unsignedinteger", "inexact", "floating", "complexfloating",
                "character", "flexible"]
DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


@pytest.mark.parametrize("name", SCALAR_NAMES + ["dtype", "True_", "False_"])
def test_names_are_numpys_objects(name):
    assert getattr(npx, name) is getattr(np, name)
    assert name in npx.__all__


def test_names_numpy_2_lacks_are_absent():
    for name in ("float_", "complex_", "unicode_", "longfloat"):
        assert not hasattr(np, name) and not hasattr(npx, name)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scalar_types_describe_device_arrays(rng, dtype):
    x = up(np.ones(3, dtype=dtype))
    assert npx.dtype(dtype) == x.dtype
    assert npx.issubdtype(x.dtype, npx.generic)
    for abstract in ("number", "integer", "signedinteger", "unsignedinteger", "inexact",
                     "floating", "complexfloating"):
        assert npx.issubdtype(x.dtype, getattr(npx, abstract)) == \
            np.issubdtype(np.dtype(dtype), getattr(np, abstract))


@pytest.mark.parametrize("a,b", itertools.combinations_with_replacement(DTYPES, 2))
def test_promote_types_matches_numpy(a, b):
    assert npx.promote_types(a, b) == np.promote_types(a, b)
    assert npx.promote_types(np.dtype(b), getattr(np, a if a != "bool" else "bool_")) == \
        np.promote_types(b, a)


def test_promote_types_bfloat16_and_errors():
    assert npx.promote_types(npx.bfloat16, npx.float16) == np.float32
    assert npx.promote_types(npx.bfloat16, np.int8) == npx.bfloat16
    assert npx.promote_types(npx.float32, npx.bfloat16) == np.float32
    assert npx.promote_types("S3", "S5") == np.promote_types("S3", "S5")
    with pytest.raises(TypeError):
        np.promote_types("S3", np.datetime64)
    with pytest.raises(TypeError):
        npx.promote_types("S3", np.datetime64)
    with pytest.raises(TypeError):
        npx.promote_types("not-a-type", np.int8)


def test_issubdtype_matches_numpy():
    cases = [(np.float32, np.floating), (np.int8, np.unsignedinteger), ("i4", np.signedinteger),
             ("f8", "f8"), (np.float64, np.float32), (np.complex64, np.inexact),
             (np.bool_, np.integer), (np.uint8, np.integer)]
    for a, b in cases:
        assert npx.issubdtype(a, b) == np.issubdtype(a, b), (a, b)
    assert npx.issubdtype(npx.bfloat16, npx.floating)
    assert npx.issubdtype(npx.bfloat16, npx.number)
    assert not npx.issubdtype(npx.bfloat16, npx.integer)


@pytest.mark.parametrize("value", [0, 1, 255, 256, -1, -129, 2 ** 40, 1.5, 1e300, 1j, True,
                                   np.float32(2.0), np.int64(7)])
def test_min_scalar_type_of_scalars(value):
    assert npx.min_scalar_type(value) == np.min_scalar_type(value)


@pytest.mark.parametrize("dtype", DTYPES)
def test_min_scalar_type_of_arrays(rng, dtype):
    a = (rng.uniform(0, 300, 4)).astype(dtype)
    assert npx.min_scalar_type(up(a)) == np.min_scalar_type(a)
    zero_d = a[1]
    assert npx.min_scalar_type(up(np.asarray(zero_d))) == np.min_scalar_type(np.asarray(zero_d))


@pytest.mark.parametrize("dtypes", [("int32",), ("float16",), ("float32", "int8"),
                                    ("float32",), ("complex64", "float64"), ("uint8", "int64"),
                                    ("complex64", "float16")])
def test_common_type_matches_numpy(dtypes):
    hosts = [np.ones(2, dtype=d) for d in dtypes]
    assert npx.common_type(*map(up, hosts)) is np.common_type(*hosts)
    assert npx.common_type() is np.common_type()


def test_common_type_rejects_bool():
    a = np.ones(2, dtype=bool)
    with pytest.raises(TypeError):
        np.common_type(a)
    with pytest.raises(TypeError, match="non-numeric"):
        npx.common_type(up(a))


@pytest.mark.parametrize("chars,typeset,default", [
    (["d", "f", "S"], "GDFgdf", "d"), ("abceh", "GDFgdf", "G"), (["F", "d"], "GDFgdf", "d"),
    (["f", "i"], "GDFgdf", "d"), (["i", "h"], "ihB", "d"), ([], "GDFgdf", "q")])
def test_mintypecode_matches_numpy(chars, typeset, default):
    assert npx.mintypecode(chars, typeset, default) == np.mintypecode(chars, typeset, default)


def test_mintypecode_reads_device_dtypes_without_transfer():
    x = up(np.array([1.5, 2 - 3j]))
    with npx.transfer_guard("disallow"):
        assert npx.mintypecode([x]) == np.mintypecode([np.array([1.5, 2 - 3j])]) == "D"


@pytest.mark.parametrize("char", ["d", "f", "b", "?", "F", "q", "S1"])
def test_typename_matches_numpy(char):
    assert npx.typename(char) == np.typename(char)


def test_typename_unknown_raises_keyerror():
    with pytest.raises(KeyError):
        np.typename("@")
    with pytest.raises(KeyError):
        npx.typename("@")
