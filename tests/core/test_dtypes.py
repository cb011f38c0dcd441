"""Dtypes: the supported set, aclDataType codes, array API promotion, Python scalars."""
import itertools

import ml_dtypes
import numpy as np
import pytest

from npuarray._core import _data_type as d

BF16 = np.dtype(ml_dtypes.bfloat16)
STANDARD = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                                  "uint16", "uint32", "uint64", "float32", "float64",
                                  "complex64", "complex128")]
ALL = STANDARD + [np.dtype("float16"), BF16]


def test_acl_codes_match_reference_section_2_2():
    expected = {"float32": 0, "float16": 1, "int8": 2, "int32": 3, "uint8": 4, "int16": 6,
                "uint16": 7, "uint32": 8, "int64": 9, "uint64": 10, "float64": 11,
                "bool": 12, "complex64": 16, "complex128": 17}
    for name, code in expected.items():
        assert d.to_acl_dtype(np.dtype(name)) == code
        assert d.to_acl_dtype(name) == code
        assert d.from_acl_dtype(code) == np.dtype(name)
    assert d.to_acl_dtype(BF16) == 27 and d.to_acl_dtype("bfloat16") == 27
    assert d.from_acl_dtype(27) == BF16
    with pytest.raises(TypeError):
        d.from_acl_dtype(13)  # ACL_STRING


@pytest.mark.parametrize("spec, expected", [
    (float, "float64"), (int, "int64"), (bool, "bool"), (complex, "complex128"),
    ("f4", "float32"), (np.float16, "float16"), (ml_dtypes.bfloat16, BF16),
    (">i4", "int32"), (np.dtype("<u2"), "uint16"),
])
def test_normalize_dtype(spec, expected):
    assert d.normalize_dtype(spec) == np.dtype(expected)


@pytest.mark.parametrize("spec", [None, object, str, "U3", "datetime64[s]", np.longdouble,
                                  "i4,f4", "not a dtype", ml_dtypes.int4, [1, 2]])
def test_normalize_dtype_rejects_unsupported(spec):
    with pytest.raises(TypeError):
        d.normalize_dtype(spec)


def test_public_names_compare_equal_to_array_dtypes():
    for name in ("bool", "int8", "uint64", "float16", "float32", "complex128"):
        assert np.dtype(name) == getattr(d, name)
    assert BF16 == d.bfloat16
    assert d.default_int == np.int64 and d.default_float == np.float64


def _array_api_promotion(a, b):
    """The array API standard's tables (2023.12) for dtypes of one kind."""
    ints = ["int8", "int16", "int32", "int64"]
    uints = ["uint8", "uint16", "uint32", "uint64"]
    a, b = str(a), str(b)
    if a in ints and b in ints or a in uints and b in uints:
        order = ints if a in ints else uints
        return max(a, b, key=order.index)
    if {a, b} <= set(ints + uints):
        signed, unsigned = (a, b) if a in ints else (b, a)
        width = max(int(signed[3:]), 2 * int(unsigned[4:]))
        return None if width > 64 else f"int{width}"
    floats = ["float32", "float64"]
    complexes = ["complex64", "complex128"]
    if {a, b} <= set(floats + complexes):
        precision = max(floats.index(a) if a in floats else complexes.index(a),
                        floats.index(b) if b in floats else complexes.index(b))
        return (complexes if a in complexes or b in complexes else floats)[precision]
    if a == b == "bool":
        return "bool"
    return None  # mixed kinds: implementation-defined


def test_within_kind_promotion_is_the_array_api_table():
    for a, b in itertools.product(STANDARD, repeat=2):
        expected = _array_api_promotion(a, b)
        if expected is not None:
            assert d.result_type(a, b) == np.dtype(expected), (a, b)
            assert d.result_type(b, a) == np.dtype(expected), (b, a)


def test_mixed_kinds_follow_numpy():
    for a, b in itertools.product(STANDARD, repeat=2):
        assert d.result_type(a, b) == np.promote_types(a, b), (a, b)


@pytest.mark.parametrize("other, expected", [
    ("bfloat16", BF16), ("float16", "float32"), ("float32", "float32"),
    ("float64", "float64"), ("complex64", "complex64"), ("complex128", "complex128"),
    ("bool", BF16), ("int8", BF16), ("uint8", BF16), ("int16", "float32"),
    ("uint16", "float32"), ("int32", "float64"), ("int64", "float64"),
])
def test_bfloat16_promotion(other, expected):
    assert d.result_type(BF16, other) == np.dtype(expected)
    assert d.result_type(other, BF16) == np.dtype(expected)


def test_promotion_is_commutative_and_associative_enough():
    rng = np.random.default_rng(7)
    for _ in range(200):
        a, b, c = (ALL[i] for i in rng.integers(0, len(ALL), 3))
        assert d.result_type(a, b) == d.result_type(b, a)
        assert d.result_type(a, b, c) in ALL


@pytest.mark.parametrize("dtype, scalar, expected", [
    ("int8", 1, "int8"), ("uint16", 7, "uint16"), ("float16", 1, "float16"),
    ("bool", 1, "int64"), ("bool", True, "bool"), ("int32", True, "int32"),
    ("int32", 1.5, "float64"), ("float32", 1.5, "float32"), (BF16, 2.0, BF16),
    ("float32", 1j, "complex64"), ("float64", 1j, "complex128"), ("int8", 1j, "complex128"),
    ("complex64", 2.0, "complex64"), ("float16", 1j, "complex64"),
])
def test_python_scalars_are_weak(dtype, scalar, expected):
    assert d.result_type(np.dtype(dtype), scalar) == np.dtype(expected)
    if dtype != BF16:  # NumPy 2 (NEP 50) agrees
        assert d.result_type(np.dtype(dtype), scalar) == \
            np.result_type(np.empty(1, dtype), scalar)


def test_only_scalars_give_default_dtypes():
    assert d.result_type(1) == np.int64
    assert d.result_type(1, 2.0) == np.float64
    assert d.result_type(True) == np.bool_
    assert d.result_type(1, 1j) == np.complex128
    with pytest.raises(TypeError):
        d.result_type()


def test_check_scalar_fits():
    d.check_scalar_fits(127, np.dtype("int8"))
    d.check_scalar_fits(-128, np.dtype("int8"))
    d.check_scalar_fits(2**64 - 1, np.dtype("uint64"))
    d.check_scalar_fits(1e300, np.dtype("float16"))  # floats overflow to inf, as NumPy
    for value, dtype in ((128, "int8"), (-1, "uint8"), (2**63, "int64")):
        with pytest.raises(OverflowError):
            d.check_scalar_fits(value, np.dtype(dtype))


def test_can_cast():
    assert d.can_cast("int8", "int16")
    assert not d.can_cast("int16", "int8")
    assert d.can_cast("float32", "complex64")
    assert not d.can_cast("float64", "float32")
    assert d.can_cast(BF16, "float32")
    assert not d.can_cast("float16", BF16)


def test_finfo_iinfo():
    assert d.finfo("float32").eps == np.finfo(np.float32).eps
    assert d.finfo(BF16).eps == 2.0 ** -7
    assert d.iinfo("int16").max == 32767
    with pytest.raises(TypeError):
        d.finfo("int32")
    with pytest.raises(TypeError):
        d.iinfo("float32")


@pytest.mark.parametrize("dtype, kind, expected", [
    ("bool", "bool", True), ("int8", "signed integer", True), ("uint8", "integral", True),
    ("uint8", "signed integer", False), (BF16, "real floating", True),
    ("float16", "numeric", True), ("complex64", "complex floating", True),
    ("bool", "numeric", False), ("float32", ("integral", "real floating"), True),
    ("float32", np.float32, True), ("float32", np.float64, False),
])
def test_isdtype(dtype, kind, expected):
    assert d.isdtype(dtype, kind) is expected


def test_isdtype_unknown_kind():
    with pytest.raises(ValueError):
        d.isdtype("float32", "floating")
