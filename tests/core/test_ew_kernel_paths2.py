"""Round-2 fast paths of npusim's element-wise engine (kernels/ops/ew.c, ew_kernels.c) against
NumPy, bit for bit:

* kernels reading a repeated operand (stride 0: a broadcast column, a row broadcast to an inner
  dimension of length 1, a Python scalar) in place as one element, on either side of the
  operator, for every arithmetic / comparison / maximum-minimum kind that has them (int32,
  int64, float32, float64), with NaN, mixed dtypes (the repeated value converted once per run),
  strided, transposed and negative-step views, 0-d and empty operands and aclnnAdd's alpha;
* contiguous casts converted by vectorisable loops (float32 <-> float64, integers -> float64,
  int32 -> int64) against strided ones and NumPy's astype.
"""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import npuarray as npx
from npuarray._core import _ops

ARITH = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
         "maximum": np.maximum, "minimum": np.minimum}
COMPARE = {"equal": np.equal, "not_equal": np.not_equal, "greater": np.greater,
           "greater_equal": np.greater_equal, "less": np.less, "less_equal": np.less_equal}
KERNEL_DTYPES = ["int32", "int64", "float32", "float64"]


def sample(rng, shape, dtype):
    """Values of dtype with repeats (so comparisons see equal pairs), NaN and signed zeros
    in the floating ones."""
    if np.dtype(dtype).kind == "f":
        a = rng.choice(np.array([-2.5, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, np.nan, np.inf, -np.inf]),
                       size=shape).astype(dtype)
        return np.where(rng.random(shape) < 0.5, rng.standard_normal(shape).astype(dtype), a)
    info = np.iinfo(dtype)
    edges = np.array([info.min, info.max, 0, 1, 2] + ([-1] if info.min else []), dtype=dtype)
    return np.where(rng.random(shape) < 0.3, rng.choice(edges, size=shape),
                    rng.integers(max(info.min, -5), 5, size=shape, dtype=dtype)).astype(dtype)


def assert_bits_equal(got, want):
    """The same bits, -0.0 included, except which NaN: IEEE 754 leaves the NaN of an
    operation on two NaNs to the implementation, and NumPy's own differs between its SIMD
    paths (x86 keeps the first register operand's, whichever the compiler put first)."""
    got = got.to_host() if hasattr(got, "to_host") else np.asarray(got)
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape
    if got.dtype.kind == "f":
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        got, want = np.where(np.isnan(got), 0, got), np.where(np.isnan(want), 0, want)
        got, want = got.view(np.uint8), want.view(np.uint8)
    np.testing.assert_array_equal(got, want)


def numpy_op(name):
    return ARITH.get(name) or COMPARE.get(name)


@pytest.mark.parametrize("name", list(ARITH) + list(COMPARE))
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_column_broadcast_on_either_side(name, dtype, rng):
    """(n, m) op (n, 1) and (n, 1) op (n, m): the column is read as one element per row."""
    a, col = sample(rng, (37, 29), dtype), sample(rng, (37, 1), dtype)
    f, g = getattr(npx, name), numpy_op(name)
    with np.errstate(all="ignore"):
        assert_bits_equal(f(npx.asarray(a), npx.asarray(col)), g(a, col))
        assert_bits_equal(f(npx.asarray(col), npx.asarray(a)), g(col, a))


@pytest.mark.parametrize("name", list(ARITH) + list(COMPARE))
@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_python_scalar_on_either_side(name, dtype, rng):
    """x op s and s op x (aclnnAdds / aclnnMuls / ...EqScalar or a 0-d operand)."""
    a = sample(rng, (3, 700), dtype)
    s = 2.5 if np.dtype(dtype).kind == "f" else 3
    f, g = getattr(npx, name), numpy_op(name)
    x = npx.asarray(a)
    with np.errstate(all="ignore"):
        assert_bits_equal(f(x, s), g(a, np.asarray(s, dtype)))
        assert_bits_equal(f(s, x), g(np.asarray(s, dtype), a))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_divide_by_a_column_and_a_scalar(dtype, rng):
    a, col = sample(rng, (50, 33), dtype), sample(rng, (50, 1), dtype)
    with np.errstate(all="ignore"):
        assert_bits_equal(npx.asarray(a) / npx.asarray(col), a / col)
        assert_bits_equal(npx.asarray(col) / npx.asarray(a), col / a)
        assert_bits_equal(npx.asarray(a) / 3.0, a / np.asarray(3.0, dtype))
        assert_bits_equal(7.0 / npx.asarray(a), np.asarray(7.0, dtype) / a)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_and_signed_zero_in_the_repeated_operand(dtype):
    """maximum / minimum propagate a NaN on either side; -0.0 repeated keeps its sign."""
    a = np.array([[1.0, np.nan, -0.0, 0.0, -np.inf, 2.0]] * 3, dtype=dtype)
    for c in (np.nan, -0.0, 0.0, 1.5):
        col = np.full((3, 1), c, dtype=dtype)
        for name in ("maximum", "minimum", "add", "multiply", "subtract", "less", "equal"):
            f, g = getattr(npx, name), numpy_op(name)
            with np.errstate(all="ignore"):
                assert_bits_equal(f(npx.asarray(a), npx.asarray(col)), g(a, col))
                assert_bits_equal(f(npx.asarray(col), npx.asarray(a)), g(col, a))


@pytest.mark.parametrize("small,big", [("int8", "int32"), ("int16", "int64"), ("int32", "float64"),
                                       ("float32", "float64"), ("uint8", "int32"), ("bool", "float32")])
def test_repeated_operand_of_another_dtype_is_converted_once_per_run(small, big, rng):
    """The column's dtype differs from the computation kind (promoted): converted, then read."""
    a = sample(rng, (40, 20), big)
    col = (rng.random((40, 1)) < 0.5) if small == "bool" else sample(rng, (40, 1), small)
    for name in ("add", "subtract", "multiply", "greater", "equal", "maximum"):
        f, g = getattr(npx, name), numpy_op(name)
        with np.errstate(all="ignore"):
            if small == "bool" and name == "subtract":
                continue  # NumPy refuses bool subtraction too: not this path's business
            assert_bits_equal(f(npx.asarray(a), npx.asarray(col)), g(a, col))
            assert_bits_equal(f(npx.asarray(col), npx.asarray(a)), g(col, a))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_one_hot_and_strided_outputs(dtype, rng):
    """(n, 1) == (k,) swaps its short inner runs for the long one (strided bool output)."""
    labels = rng.integers(0, 10, 1797).astype(dtype)
    classes = np.arange(10, dtype=dtype)
    assert_bits_equal(npx.reshape(npx.asarray(labels), (-1, 1)) == npx.asarray(classes),
          labels.reshape(-1, 1) == classes)
    assert_bits_equal(npx.asarray(classes) < npx.reshape(npx.asarray(labels), (-1, 1)),
          classes < labels.reshape(-1, 1))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_strided_transposed_and_negative_step_operands(dtype, rng):
    a, col = sample(rng, (30, 40), dtype), sample(rng, (30, 1), dtype)
    x, c = npx.asarray(a), npx.asarray(col)
    with np.errstate(all="ignore"):
        assert_bits_equal(x[::2, ::-3] - c[::2], a[::2, ::-3] - col[::2])
        assert_bits_equal(npx.matrix_transpose(x) * npx.matrix_transpose(c), a.T * col.T)
        assert_bits_equal(x[::-1] + c, a[::-1] + col)
        assert_bits_equal(npx.maximum(x[:, 1::2], c[::-1]), np.maximum(a[:, 1::2], col[::-1]))


@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_zero_d_and_empty(dtype, rng):
    z, a = sample(rng, (), dtype), sample(rng, (5, 0), dtype)
    col = sample(rng, (5, 1), dtype)
    with np.errstate(all="ignore"):
        assert_bits_equal(npx.asarray(z) * npx.asarray(col), z * col)
        assert_bits_equal(npx.asarray(col) - npx.asarray(z), col - z)
        assert_bits_equal(npx.asarray(a) + npx.asarray(col), a + col)
        assert_bits_equal(npx.asarray(a) > npx.asarray(col), a > col)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64"])
@pytest.mark.parametrize("alpha", [1, 3, -2])
def test_add_alpha_with_a_repeated_operand(dtype, alpha, rng):
    """aclnnAdd out = self + alpha * other with other (or self) a broadcast column."""
    a, col = sample(rng, (25, 19), dtype), sample(rng, (25, 1), dtype)
    x, c = npx.asarray(a), npx.asarray(col)
    stream = _ops.stream_of(x)
    scalar = _ops.acl_scalar(alpha, np.dtype(dtype))
    al = np.asarray(alpha, dtype)
    with np.errstate(all="ignore"):
        for self_, other, want in ((x, c, a + al * col), (c, x, col + al * a)):
            out = _ops.empty((25, 19), np.dtype(dtype), x.device, stream)
            _ops.launch("aclnnAdd", self_, other, scalar, out, stream=stream)
            assert_bits_equal(out, want)
            out = _ops.empty((25, 19), np.dtype(dtype), x.device, stream)
            _ops.launch("aclnnSub", self_, other, scalar, out, stream=stream)
            assert_bits_equal(out, (a - al * col) if self_ is x else (col - al * a))


@settings(max_examples=40, deadline=None)
@given(rows=st.integers(1, 300), cols=st.integers(1, 70), side=st.booleans(),
       name=st.sampled_from(["add", "subtract", "multiply", "less", "maximum"]),
       dtype=st.sampled_from(KERNEL_DTYPES))
def test_shapes_around_block_and_short_run_limits(rows, cols, side, name, dtype):
    rng = np.random.default_rng(rows * 1000 + cols)
    a, col = sample(rng, (rows, cols), dtype), sample(rng, (rows, 1), dtype)
    f, g = getattr(npx, name), numpy_op(name)
    with np.errstate(all="ignore"):
        if side:
            assert_bits_equal(f(npx.asarray(a), npx.asarray(col)), g(a, col))
        else:
            assert_bits_equal(f(npx.asarray(col), npx.asarray(a)), g(col, a))


def test_large_scalar_operand_runs_split_across_threads_and_streamed(rng):
    """2^22 float32 (thread split) and 2^23 float64 (non-temporal stores) with a scalar."""
    a = rng.standard_normal(1 << 22).astype(np.float32)
    assert_bits_equal(npx.asarray(a) * 2.5, a * np.float32(2.5))
    b = rng.standard_normal(1 << 23)
    assert_bits_equal(3.0 - npx.asarray(b), 3.0 - b)


def test_bad_inputs_raise_and_the_engine_keeps_working(rng):
    a = sample(rng, (4, 3), "float32")
    x = npx.asarray(a)
    with pytest.raises(ValueError):
        x + npx.asarray(np.ones((5, 1), np.float32))
    with pytest.raises(TypeError):
        npx.asarray(np.ones((4, 3), bool)) - npx.asarray(np.ones((4, 1), bool))
    with pytest.raises(TypeError):
        x * "2"
    assert_bits_equal(x * npx.asarray(a[:, :1]), a * a[:, :1])


CASTS = [("float32", "float64"), ("float64", "float32"), ("int32", "int64"), ("int64", "int32"),
         ("int32", "float64"), ("int64", "float64"), ("bool", "float32"), ("bool", "float64")]


def cast_sample(rng, shape, dtype):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype == "float64":  # beyond float32's range and precision: overflow and rounding
        specials = [np.nan, -np.inf, 1e300, -0.0, 1 + 2.0 ** -30, 2.0 ** -140]
        values = rng.standard_normal(shape) * 1e40 ** rng.random(shape)
        values[:len(specials)] = specials[:shape[0]]
        return values
    return sample(rng, shape, dtype)


@pytest.mark.parametrize("src,dst", CASTS)
@pytest.mark.parametrize("n", [1, 7, 511, 512, 513, 70001, 300001])
def test_contiguous_casts_match_astype(src, dst, n, rng):
    """Sizes around the block (512) and the thread split (2^18) of memory-bound ops."""
    a = cast_sample(rng, (n,), src)
    with np.errstate(over="ignore"):
        want = a.astype(dst)
    assert_bits_equal(npx.asarray(a).astype(getattr(npx, dst)), want)


@pytest.mark.parametrize("src,dst", CASTS)
def test_strided_casts_still_take_the_general_path(src, dst, rng):
    a = cast_sample(rng, (600,), src).reshape(20, 30)
    x = npx.asarray(a)
    with np.errstate(over="ignore"):
        assert_bits_equal(x[:, ::2].astype(getattr(npx, dst)), a[:, ::2].astype(dst))
        assert_bits_equal(npx.matrix_transpose(x).astype(getattr(npx, dst)), a.T.astype(dst))
        assert_bits_equal(x[::-1, ::-1].astype(getattr(npx, dst)), a[::-1, ::-1].astype(dst))
        assert_bits_equal(npx.asarray(a[0, 0]).astype(getattr(npx, dst)), a[0, 0].astype(dst))
        assert_bits_equal(npx.asarray(a[:0]).astype(getattr(npx, dst)), a[:0].astype(dst))


@pytest.mark.parametrize("src,dst", [c for c in CASTS if "bool" not in c])
def test_mixed_dtype_arithmetic_promotes_through_the_casts(src, dst, rng):
    """int32 + int64, float32 * float64, ...: the promoted operand converted, then computed."""
    a, b = cast_sample(rng, (1000,), src), cast_sample(rng, (1000,), dst)
    with np.errstate(all="ignore"):
        assert_bits_equal(npx.asarray(a) + npx.asarray(b), a + b)


@pytest.mark.parametrize("dtype", KERNEL_DTYPES)
def test_in_place_with_a_repeated_column_of_itself(dtype, rng):
    """x -= x[:, :1]: the column is overwritten by the operation that reads it repeatedly; the
    result is NumPy's, which reads the original values (overlap is computed apart)."""
    a = sample(rng, (33, 21), dtype)
    x, want = npx.asarray(a), a.copy()
    with np.errstate(all="ignore"):
        x -= x[:, :1]
        want -= want[:, :1]
        assert_bits_equal(x, want)
        x *= x[:, 3:4]
        want *= want[:, 3:4]
        assert_bits_equal(x, want)
