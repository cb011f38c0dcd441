"""The array object's operators against NumPy's: arithmetic, comparison,
bitwise and matmul dunders with their reflected and in-place forms, Python and
NumPy scalars on either side, and the in-place rules of the standard (the left
operand keeps its dtype and shape; a result that would need another kind or a
broadcast shape raises and leaves it unchanged)."""
import operator

import numpy as np
import pytest

import npuarray as npx

ARITHMETIC = [("+", operator.add), ("-", operator.sub), ("*", operator.mul),
              ("/", operator.truediv), ("//", operator.floordiv), ("%", operator.mod),
              ("**", operator.pow)]
COMPARISON = [("==", operator.eq), ("!=", operator.ne), ("<", operator.lt),
              ("<=", operator.le), (">", operator.gt), (">=", operator.ge)]
BITWISE = [("&", operator.and_), ("|", operator.or_), ("^", operator.xor),
           ("<<", operator.lshift), (">>", operator.rshift)]
IN_PLACE = {"+": operator.iadd, "-": operator.isub, "*": operator.imul,
            "/": operator.itruediv, "//": operator.ifloordiv, "%": operator.imod,
            "**": operator.ipow, "&": operator.iand, "|": operator.ior, "^": operator.ixor,
            "<<": operator.ilshift, ">>": operator.irshift}


def operands(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        return rng.integers(1, 7, size=shape).astype(dtype)   # positive: valid for ** and //
    return (rng.random(shape) * 4 + 0.5).astype(dtype)


def assert_matches(result, expected):
    expected = np.asarray(expected)
    assert isinstance(result, npx.NPUArray)
    assert (result.shape, result.dtype) == (expected.shape, expected.dtype), \
        ((result.shape, result.dtype), (expected.shape, expected.dtype))
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(result.to_host(), expected, rtol=1e-6)
    else:
        np.testing.assert_array_equal(result.to_host(), expected)


@pytest.mark.parametrize("symbol,fn", ARITHMETIC + COMPARISON)
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int32", "uint64", "float32", "float64"])
def test_arithmetic_and_comparison_operators(rng, symbol, fn, dtype):
    a, b = operands(rng, dtype, (3, 4)), operands(rng, dtype, (4,))
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(fn(x, y), fn(a, b))
    assert_matches(fn(x, 2), fn(a, np.array(2, a.dtype)))       # Python scalar: weak
    assert_matches(fn(3, y), fn(np.array(3, b.dtype), b))       # reflected
    assert_matches(fn(x.T, y[:3]), fn(a.T, b[:3]))             # non-contiguous


@pytest.mark.parametrize("symbol,fn", BITWISE)
@pytest.mark.parametrize("dtype", ["int8", "uint8", "int64", "uint32"])
def test_bitwise_operators(rng, symbol, fn, dtype):
    a, b = operands(rng, dtype, (2, 5)), operands(rng, dtype, (5,))
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(fn(x, y), fn(a, b))
    assert_matches(fn(x, 1), fn(a, np.array(1, a.dtype)))
    assert_matches(fn(1, y), fn(np.array(1, b.dtype), b))


def test_unary_operators(rng):
    a = operands(rng, "int16", (4,)) - 3
    x = npx.asarray(a)
    assert_matches(-x, -a)
    assert_matches(+x, +a)
    assert_matches(abs(x), abs(a))
    assert_matches(~x, ~a)
    f = npx.asarray(a.astype(np.float32))
    assert_matches(-f, -a.astype(np.float32))
    with pytest.raises(TypeError):
        ~f


def test_numpy_scalars_are_strong(rng):
    a = operands(rng, "int8", (4,))
    x = npx.asarray(a)
    assert_matches(x + np.int16(3), a + np.int16(3))
    assert_matches(x * np.float32(2), a * np.float32(2))
    assert_matches(x & np.int64(5), a & np.int64(5))


def test_python_int_out_of_range_overflows():
    x = npx.asarray(np.arange(3, dtype=np.int8))
    for fn in (operator.add, operator.mul, operator.and_, operator.or_):
        with pytest.raises(OverflowError):
            fn(x, 1000)
    comparison = x < 1000    # comparisons widen instead, as NumPy 2
    assert_matches(comparison, np.ones(3, bool))


def test_matmul_operators(rng):
    a, b = operands(rng, "float32", (3, 4)), operands(rng, "float32", (4, 2))
    x, y = npx.asarray(a), npx.asarray(b)
    assert_matches(x @ y, a @ b)
    assert_matches(operator.matmul(x, y), a @ b)
    s = npx.asarray(operands(rng, "float32", (3, 3)))
    before = s
    s @= npx.asarray(np.eye(3, dtype=np.float32))
    assert s is before


@pytest.mark.parametrize("symbol", sorted(IN_PLACE))
def test_in_place_operators_mutate_the_left_operand(rng, symbol):
    dtype = "float64" if symbol == "/" else "int32"
    a, b = operands(rng, dtype, (3, 4)), operands(rng, dtype, (4,))
    if symbol in ("<<", ">>"):
        b = b % 5
    x = npx.asarray(a)
    view = x[1:]
    result = IN_PLACE[symbol](x, npx.asarray(b))
    assert result is x
    expected = IN_PLACE[symbol](a.copy(), b)
    assert_matches(x, expected)
    assert_matches(view, expected[1:])            # the same memory was written
    y = npx.asarray(a)
    IN_PLACE[symbol](y, 2)
    assert_matches(y, IN_PLACE[symbol](a.copy(), np.array(2, a.dtype)))


def test_in_place_keeps_dtype_and_shape():
    x = npx.asarray(np.arange(4, dtype=np.int32))
    with pytest.raises(TypeError):
        x += 1.5                          # float result into an integer array
    with pytest.raises(TypeError):
        x /= 2                            # true division gives float
    with pytest.raises(ValueError):
        x += npx.asarray(np.ones((2, 4), np.int32))   # result would broadcast x
    b = npx.asarray(np.array([True, False]))
    with pytest.raises(TypeError):
        b += npx.asarray(np.array([1, 2], np.int8))
    assert_matches(x, np.arange(4, dtype=np.int32))            # unchanged by the failures
    f = npx.asarray(np.ones(3, np.float32))
    f += npx.asarray(np.ones(3, np.float64))          # same kind: kept float32
    assert_matches(f, np.full(3, 2, np.float32))
    x += 1
    assert_matches(x, np.arange(1, 5, dtype=np.int32))


def test_in_place_on_a_broadcast_view_raises():
    base = npx.asarray(np.arange(3, dtype=np.int32))
    view = npx.broadcast_to(base, (2, 3))
    with pytest.raises(ValueError):
        view += 1
    assert_matches(base, np.arange(3, dtype=np.int32))


def test_operators_with_unsupported_operands_raise_type_error():
    x = npx.asarray(np.arange(3, dtype=np.float32))
    for fn in (operator.add, operator.and_, operator.lt, operator.lshift):
        with pytest.raises(TypeError):
            fn(x, "a")
    with pytest.raises(TypeError):
        x & x
    with pytest.raises(TypeError):
        npx.asarray(np.array([True])) - npx.asarray(np.array([False]))
    assert_matches(x + x, np.arange(3, dtype=np.float32) * 2)
