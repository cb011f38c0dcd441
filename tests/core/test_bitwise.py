"""Bitwise functions, shifts and logical_xor against NumPy on fresh random data of
the whole value range: every integer dtype and bool, broadcasting, scalars on
either side, 0-d, empty and non-contiguous inputs, the operators (&, |, ^, ~, <<,
>> with reflected and in-place forms) and bad input."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import npuarray as npx

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
LOGIC = {"bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
         "bitwise_xor": np.bitwise_xor}
SHIFTS = {"bitwise_left_shift": np.left_shift, "bitwise_right_shift": np.right_shift}


def full_range(rng, shape, dtype):
    """Random values over the whole range of an integer dtype (or random bools)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, endpoint=True, dtype=dtype)


def counts(rng, shape, dtype, width):
    """Shift counts in [-3, width + 3] (negative ones only for signed dtypes)."""
    low = -3 if np.dtype(dtype).kind == "i" else 0
    return rng.integers(low, min(width + 3, np.iinfo(dtype).max), size=shape,
                        endpoint=True).astype(dtype)


def assert_matches(result, expected):
    expected = np.asarray(expected)
    assert isinstance(result, npx.NPUArray)
    assert (result.shape, result.dtype) == (expected.shape, expected.dtype)
    np.testing.assert_array_equal(result.to_host(), expected)


@pytest.mark.parametrize("name", sorted(LOGIC))
@pytest.mark.parametrize("dtype", ["bool"] + INTS)
def test_logic_every_dtype(rng, name, dtype):
    a, b = full_range(rng, (5, 7), dtype), full_range(rng, (5, 7), dtype)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), LOGIC[name](a, b))


@pytest.mark.parametrize("name", sorted(LOGIC))
@pytest.mark.parametrize("dtype", ["bool"] + INTS)
def test_logic_with_python_scalars(rng, name, dtype):
    a = full_range(rng, (9,), dtype)
    scalar = True if dtype == "bool" else int(full_range(rng, (), dtype))
    x = npx.asarray(a)
    assert_matches(getattr(npx, name)(x, scalar), LOGIC[name](a, scalar))
    assert_matches(getattr(npx, name)(scalar, x), LOGIC[name](scalar, a))


@pytest.mark.parametrize("a_dtype,b_dtype", [("uint8", "int8"), ("int16", "uint16"),
                                             ("uint32", "int32"), ("bool", "int8"),
                                             ("uint32", "uint64"), ("int8", "int64")])
def test_logic_mixed_dtypes_promote(rng, a_dtype, b_dtype):
    a, b = full_range(rng, (4, 3), a_dtype), full_range(rng, (3,), b_dtype)
    for name, fn in LOGIC.items():
        assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), fn(a, b))


def test_logic_numpy_scalars_are_strong(rng):
    a = full_range(rng, (6,), "int8")
    x = npx.asarray(a)
    assert_matches(npx.bitwise_and(x, np.int16(0x1FF)), np.bitwise_and(a, np.int16(0x1FF)))
    assert_matches(npx.bitwise_or(np.uint64(2**63), npx.asarray(a.astype(np.uint8))),
          np.bitwise_or(np.uint64(2**63), a.astype(np.uint8)))


def test_unsigned_64_bit_patterns_survive():
    a = np.array([2**64 - 1, 2**63, 2**63 + 5, 0, 1], np.uint64)
    b = np.array([2**63 + 1, 2**63, 7, 2**64 - 1, 3], np.uint64)
    x, y = npx.asarray(a), npx.asarray(b)
    for name, fn in LOGIC.items():
        assert_matches(getattr(npx, name)(x, y), fn(a, b))
        assert_matches(getattr(npx, name)(x, 2**64 - 2), fn(a, np.uint64(2**64 - 2)))
    assert_matches(npx.bitwise_invert(x), ~a)


@pytest.mark.parametrize("dtype", ["bool"] + INTS)
def test_invert_every_dtype(rng, dtype):
    a = full_range(rng, (3, 4), dtype)
    x = npx.asarray(a)
    assert_matches(npx.bitwise_invert(x), np.invert(a))
    assert_matches(~x, ~a)
    assert_matches(~x.T, ~a.T)


@pytest.mark.parametrize("name", sorted(SHIFTS))
@pytest.mark.parametrize("dtype", INTS)
def test_shift_every_dtype_with_bad_counts(rng, name, dtype):
    """Counts that are negative or >= the bit width give NumPy's results (0 / -1)."""
    width = 8 * np.dtype(dtype).itemsize
    a, b = full_range(rng, (6, 8), dtype), counts(rng, (6, 8), dtype, width)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), SHIFTS[name](a, b))


@pytest.mark.parametrize("name", sorted(SHIFTS))
@pytest.mark.parametrize("dtype", INTS)
def test_shift_by_python_int(rng, name, dtype):
    width = 8 * np.dtype(dtype).itemsize
    a = full_range(rng, (10,), dtype)
    x = npx.asarray(a)
    for count in (0, 1, width - 1, width, width + 5, 1000 if width > 8 else 100):
        assert_matches(getattr(npx, name)(x, count), SHIFTS[name](a, np.array(count, a.dtype)))
    if np.dtype(dtype).kind == "i":
        assert_matches(getattr(npx, name)(x, -1), SHIFTS[name](a, np.array(-1, a.dtype)))
    small = counts(rng, (10,), dtype, width)
    assert_matches(getattr(npx, name)(1, npx.asarray(small)), SHIFTS[name](np.array(1, a.dtype), small))


@pytest.mark.parametrize("a_dtype,b_dtype", [("int8", "uint8"), ("uint8", "int16"),
                                             ("int64", "int8"), ("uint16", "uint32")])
def test_shift_mixed_dtypes(rng, a_dtype, b_dtype):
    width = 8 * np.promote_types(a_dtype, b_dtype).itemsize
    a, b = full_range(rng, (3, 5), a_dtype), counts(rng, (5,), b_dtype, width)
    for name, fn in SHIFTS.items():
        assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), fn(a, b))


def test_shift_reflected_scalar_base_right_shift_fills_sign(rng):
    b = counts(rng, (12,), "int32", 32)
    y = npx.asarray(b)
    assert_matches(npx.bitwise_right_shift(-5, y), np.right_shift(np.int32(-5), b))
    assert_matches(-5 >> y, np.right_shift(np.int32(-5), b))
    assert_matches(3 << y, np.left_shift(np.int32(3), b))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "int32", "int64", "uint8",
                                   "uint16", "uint32", "uint64", "float16", "float32",
                                   "float64", "complex64", "complex128"])
def test_logical_xor_every_dtype(rng, dtype):
    if np.dtype(dtype).kind in "fc":
        a = rng.integers(-1, 2, size=(4, 5)).astype(dtype)
        b = rng.integers(-1, 2, size=(5,)).astype(dtype)
        a[0, 0] = np.nan
    else:
        a, b = full_range(rng, (4, 5), dtype), full_range(rng, (5,), dtype)
        a[a.flat[:3].nonzero()] = 0 if dtype != "bool" else False
    assert_matches(npx.logical_xor(npx.asarray(a), npx.asarray(b)), np.logical_xor(a, b))
    assert_matches(npx.logical_xor(npx.asarray(a), 0), np.logical_xor(a, 0))


def test_logical_xor_uint64_truthiness():
    a = np.array([0, 2**63, 1, 2**64 - 1], np.uint64)
    b = np.array([0, 0, 2**63, 2**64 - 1], np.uint64)
    assert_matches(npx.logical_xor(npx.asarray(a), npx.asarray(b)), np.logical_xor(a, b))


# -- shapes ----------------------------------------------------------------------------------

ALL_BINARY = {**LOGIC, **SHIFTS}


@pytest.mark.parametrize("name", sorted(ALL_BINARY))
def test_broadcast_zero_d_and_empty(rng, name):
    fn = ALL_BINARY[name]
    a = full_range(rng, (4, 1, 3), "int16")
    b = counts(rng, (5, 1), "int16", 16)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), fn(a, b))
    zero_a, zero_b = np.array(-7, np.int16), np.array(3, np.int16)
    assert_matches(getattr(npx, name)(npx.asarray(zero_a), npx.asarray(zero_b)), fn(zero_a, zero_b))
    assert_matches(getattr(npx, name)(npx.asarray(zero_a), npx.asarray(b)), fn(zero_a, b))
    empty = np.zeros((0, 3), np.int16)
    assert_matches(getattr(npx, name)(npx.asarray(empty), npx.asarray(a[0])), fn(empty, a[0]))


@pytest.mark.parametrize("name", sorted(ALL_BINARY))
def test_non_contiguous_inputs(rng, name):
    fn = ALL_BINARY[name]
    a = full_range(rng, (6, 8), "int32")
    b = counts(rng, (8, 6), "int32", 32)
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(getattr(npx, name)(x.T, y), fn(a.T, b))                    # transposed
    assert_matches(getattr(npx, name)(x[::2, 1::3], y[1::3, ::2].T),          # strided
          fn(a[::2, 1::3], b[1::3, ::2].T))
    assert_matches(getattr(npx, name)(x[::-1, ::-2], y.T[:, ::-2]),          # negative steps
          fn(a[::-1, ::-2], b.T[:, ::-2]))
    assert_matches(npx.bitwise_invert(x[::-1, ::2]), ~a[::-1, ::2])


@settings(max_examples=25, deadline=None)
@given(shapes=hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=4, max_side=4),
       dtype=st.sampled_from(INTS), name=st.sampled_from(sorted(ALL_BINARY)),
       seed=st.integers(0, 2**32 - 1))
def test_hypothesis_shapes(shapes, dtype, name, seed):
    rng = np.random.default_rng(seed)
    width = 8 * np.dtype(dtype).itemsize
    a = full_range(rng, shapes.input_shapes[0], dtype)
    b = counts(rng, shapes.input_shapes[1], dtype, width) if name in SHIFTS else \
        full_range(rng, shapes.input_shapes[1], dtype)
    assert_matches(getattr(npx, name)(npx.asarray(a), npx.asarray(b)), ALL_BINARY[name](a, b))


# -- operators -------------------------------------------------------------------------------

OPERATORS = [("&", np.bitwise_and), ("|", np.bitwise_or), ("^", np.bitwise_xor),
             ("<<", np.left_shift), (">>", np.right_shift)]


@pytest.mark.parametrize("symbol,fn", OPERATORS)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "uint64"])
def test_operators_forward_reflected_in_place(rng, symbol, fn, dtype):
    width = 8 * np.dtype(dtype).itemsize
    a = full_range(rng, (3, 4), dtype)
    b = counts(rng, (4,), dtype, width)
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(eval(f"x {symbol} y"), fn(a, b))
    assert_matches(eval(f"x {symbol} 2"), fn(a, np.array(2, a.dtype)))
    assert_matches(eval(f"2 {symbol} y"), fn(np.array(2, a.dtype), b))
    before = x
    namespace = {"x": x, "y": y}
    exec(f"x {symbol}= y", namespace)
    assert namespace["x"] is before
    assert_matches(x, fn(a, b))


def test_bool_operators(rng):
    a, b = full_range(rng, (7,), "bool"), full_range(rng, (7,), "bool")
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(x & y, a & b)
    assert_matches(x | True, a | True)
    assert_matches(False ^ y, False ^ b)
    assert_matches(~x, ~a)
    x &= y
    assert_matches(x, a & b)


def test_in_place_keeps_left_operand_shape_and_dtype(rng):
    a = full_range(rng, (3,), "int8")
    x = npx.asarray(a)
    with pytest.raises(ValueError):
        x &= npx.asarray(full_range(rng, (2, 3), "int8"))     # would broadcast x
    with pytest.raises(TypeError):
        b = npx.asarray(full_range(rng, (3,), "bool"))
        b |= x                                                 # int8 result into bool
    assert_matches(x, a)                                                # x unchanged by the errors
    x <<= 1
    assert_matches(x, np.left_shift(a, np.int8(1)))


# -- bad input -------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL_BINARY) + ["bitwise_invert"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "float16"])
def test_non_integer_dtypes_raise_type_error(rng, name, dtype):
    x = npx.asarray(rng.standard_normal(4).astype(dtype))
    with pytest.raises(TypeError):
        getattr(npx, name)(*([x] if name == "bitwise_invert" else [x, x]))
    i = npx.asarray(np.arange(4, dtype=np.int32))
    assert_matches(npx.bitwise_xor(i, 1), np.arange(4, dtype=np.int32) ^ 1)   # the next call works


def test_shifts_reject_bool_and_float_counts():
    x = npx.asarray(np.array([True, False]))
    with pytest.raises(TypeError):
        npx.bitwise_left_shift(x, x)
    i = npx.asarray(np.arange(3, dtype=np.int16))
    with pytest.raises(TypeError):
        npx.bitwise_left_shift(i, 1.5)
    with pytest.raises(TypeError):
        i >> 2.0
    assert npx.bitwise_left_shift(3, 4).item() == np.left_shift(3, 4)  # scalars: 0-d


def test_out_of_range_python_int_overflows():
    x = npx.asarray(np.arange(3, dtype=np.int8))
    for fn in (npx.bitwise_and, npx.bitwise_or, npx.bitwise_xor, npx.bitwise_left_shift):
        with pytest.raises(OverflowError):
            fn(x, 300)
    with pytest.raises(OverflowError):
        npx.bitwise_and(npx.asarray(np.arange(3, dtype=np.uint8)), -1)
    assert_matches(x & 1, np.arange(3, dtype=np.int8) & 1)


def test_mixed_signed_uint64_has_no_common_dtype():
    with pytest.raises(TypeError):
        npx.bitwise_and(npx.asarray(np.arange(3, dtype=np.uint64)),
                        npx.asarray(np.arange(3, dtype=np.int64)))


def test_host_arrays_are_rejected():
    x = npx.asarray(np.arange(3, dtype=np.int32))
    with npx.transfer_guard("disallow"), pytest.raises(npx.ImplicitTransferError):
        npx.bitwise_and(x, np.arange(3, dtype=np.int32))  # an implicit upload


def test_runs_on_the_current_stream(rng):
    a, b = full_range(rng, (64,), "int32"), full_range(rng, (64,), "int32")
    with npx.Stream() as stream:
        x, y = npx.asarray(a), npx.asarray(b)
        r = (x ^ y) >> 3
        assert r.to_host(stream=stream).tolist() == ((a ^ b) >> 3).tolist()


# -- npusim keeps CANN's documented dtype sets -----------------------------------------------

from npuarray._core import _ops  # noqa: E402  (the raw operators, below the public API)


def raw(dtype, shape=(3,)):
    return npx.asarray(np.arange(int(np.prod(shape))).astype(dtype).reshape(shape))


@pytest.mark.parametrize("op,dtype", [
    ("aclnnBitwiseAndTensor", np.uint32), ("aclnnBitwiseAndTensor", np.uint64),
    ("aclnnBitwiseAndTensor", np.float32), ("aclnnBitwiseOrTensor", np.float64),
    ("aclnnBitwiseXorTensor", np.float16), ("aclnnLeftShift", np.bool_),
    ("aclnnRightShift", np.float32), ("aclnnLogicalXor", np.uint16)])
def test_npusim_rejects_undocumented_dtypes(op, dtype):
    x = raw(dtype)
    out = raw(np.bool_ if op == "aclnnLogicalXor" else dtype)
    with pytest.raises(npx.InvalidValueError) as info:
        _ops.launch(op, x, x, out)
    assert info.value.code == 161002
    assert info.value.api == op + "GetWorkspaceSize"


@pytest.mark.parametrize("dtype", [np.uint16, np.uint32, np.uint64])
def test_npusim_bitwise_not_lacks_wide_unsigned(dtype):
    with pytest.raises(npx.InvalidValueError):
        _ops.launch("aclnnBitwiseNot", raw(dtype), raw(dtype))
    assert_matches(npx.bitwise_invert(raw(dtype)), ~np.arange(3, dtype=dtype))


def test_npusim_scalar_operand_dtype_is_checked():
    x = raw(np.int32)
    with pytest.raises(npx.InvalidValueError):
        _ops.launch("aclnnBitwiseAndScalar", x, _ops.acl_scalar(1.0, np.dtype(np.float32)), x)
    out = raw(np.int32)
    _ops.launch("aclnnBitwiseAndScalar", x, _ops.acl_scalar(6, np.dtype(np.int32)), out)
    assert_matches(out, np.arange(3, dtype=np.int32) & 6)


def test_logical_and_or_on_uint64_bits():
    """aclnnLogicalAnd/Or lack uint64: the same bits, read as int64, have the same truth."""
    a = np.array([0, 2**63, 1, 2**64 - 1, 0], np.uint64)
    b = np.array([0, 0, 2**63, 1, 2**63], np.uint64)
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(npx.logical_and(x, y), np.logical_and(a, b))
    assert_matches(npx.logical_or(x, y), np.logical_or(a, b))
    assert_matches(npx.logical_or(x, 0), np.logical_or(a, 0))
