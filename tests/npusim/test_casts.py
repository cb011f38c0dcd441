"""aclnnCast / aclnnInplaceCopy between every pair of dtypes, and element-wise operators on
operands of mixed dtypes, against NumPy bit for bit: contiguous runs take the vectorised casts
(kernels/ops/ew_cast.c), strided and broadcast ones the per-element conversions, and both must
give what NumPy gives, around the vector widths and the sizes where work is split across
threads. Floats outside the integer range (and NaN) convert as x86 truncates them to int64, the
result then wrapped to the narrower integer."""
import itertools
import warnings

import ml_dtypes
import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops

BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(d) for d in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                "float16", "float32", "float64")] + [BF16]
FLOATS = {np.dtype("float16"), np.dtype("float32"), np.dtype("float64"), BF16}
# Around vector widths (8, 16, 64 lanes), the 512-element blocks and the thread split (chunks
# of 96 KiB of traffic: 8 K elements of int32 -> float64).
SIZES = [1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 511, 513, 8_193, 16_385, 100_003]


def special_values(dtype):
    """Edge values of a float dtype: signed zeros, infinities, NaNs with payloads, the
    smallest subnormal and normal, the largest finite, ties of the narrower formats."""
    if dtype == BF16:
        return np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 1.0, -1.5, 3.0e38, 1e-40],
                        dtype=np.float32).astype(BF16)
    info = np.finfo(dtype)
    values = [0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, info.tiny, -info.tiny,
              info.smallest_subnormal, -info.smallest_subnormal, info.max, -info.max, 0.5, -0.5,
              1.5, 2.5, -2.5, 127.5, 128.0, -129.0, 255.5, 32767.5, 65504.0, 65519.99, 65520.0,
              2.0 ** 31, -2.0 ** 31, 2.0 ** 31 - 1, 2.0 ** 32, 2.0 ** 63, -2.0 ** 63, 1e20, -1e20,
              1 + 2.0 ** -11, 1 + 2.0 ** -24, 1 + 3 * 2.0 ** -24, 5.960464477539063e-08,
              2.9802322387695312e-08, 8.940696716308594e-08, 1e-45, 3e-39]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        x = np.array(values, dtype=np.float64).astype(dtype)
    if dtype.itemsize >= 4:  # NaNs with payloads, both signs
        bits = {4: [0x7FC01234, 0xFFC00001, 0x7FFFE000], 8: [0x7FF8123456789ABC, 0xFFF8000000000001]}
        x = np.concatenate([x, np.array(bits[dtype.itemsize], dtype=f"u{dtype.itemsize}").view(dtype)])
    return x


def sample(rng, dtype, n):
    """n values of dtype: random over its range, the special values spread through them."""
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(bool)
    if dtype.kind == "c":
        return sample(rng, np.dtype(np.float64), n) + 1j * sample(rng, np.dtype(np.float64), n)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        x[: min(n, 4)] = np.array([info.min, info.max, 0, -1 if dtype.kind == "i" else 1],
                                  dtype=dtype)[: min(n, 4)]
        return x
    wide = rng.standard_normal(n) * rng.choice([1e-6, 1.0, 300.0, 7e4, 3e9, 1e19], n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (float16 overflows to inf)
        x = wide.astype(np.float32).astype(dtype) if dtype == BF16 else wide.astype(dtype)
    specials = special_values(dtype)
    at = rng.integers(0, n, min(n, len(specials)))
    x[at] = specials[: len(at)]
    return x


def expected_cast(x, dtype):
    """What the cast gives: NumPy's (ml_dtypes' for bfloat16), except floats to integers,
    which go through x86's truncation to int64 (INT64_MIN outside it) and then wrap."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if x.dtype in FLOATS and dtype.kind in "iu":
            wide = x.astype(np.float32) if x.dtype in (BF16, np.dtype("float16")) else x
            return wide.astype(np.int64).astype(dtype)
        return x.astype(dtype)


def assert_same_bits(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    got, want = np.ascontiguousarray(got), np.ascontiguousarray(want)
    g, w = got.view(np.uint8), want.view(np.uint8)
    if not np.array_equal(g, w):
        size = want.dtype.itemsize
        bad = np.nonzero((g != w).reshape(-1, size).any(axis=1))[0][:5]
        raise AssertionError(f"{len(bad)}+ elements differ at {bad}: got {got.ravel()[bad]}, "
                             f"want {want.ravel()[bad]}")


@pytest.mark.parametrize("source, target", [p for p in itertools.permutations(DTYPES, 2)],
                         ids=lambda d: str(d))
def test_cast_of_contiguous_arrays(source, target):
    rng = np.random.default_rng(source.num * 31 + target.num)
    for n in SIZES:
        x = sample(rng, source, n)
        assert_same_bits(npx.asarray(x).astype(target).to_host(), expected_cast(x, target))


@pytest.mark.parametrize("source", sorted(FLOATS, key=str), ids=str)
@pytest.mark.parametrize("target", DTYPES, ids=str)
def test_cast_of_special_values(source, target):
    x = np.resize(special_values(source), 1000)
    for shift in (0, 3):  # each value in every lane position
        y = np.roll(x, shift)
        assert_same_bits(npx.asarray(y).astype(target).to_host(), expected_cast(y, target))


def test_int64_to_float32_rounds_once():
    # Through float64 the first rounding makes a tie the second rounds to even.
    x = np.array([2 ** 60 + 2 ** 36 + 1, -(2 ** 60 + 2 ** 36 + 1), 2 ** 62 + 2 ** 38 + 3] * 40, dtype=np.int64)
    want = x.astype(np.float32)
    assert_same_bits(npx.asarray(x).astype(np.float32).to_host(), want)
    assert_same_bits(npx.asarray(x)[::2].astype(np.float32).to_host(), want[::2])


@pytest.mark.parametrize("source, target", [("int32", "float64"), ("float64", "int32"), ("float32", "int8"),
                                            ("int8", "float32"), ("float64", "float16"), ("float16", "float64"),
                                            ("bool", "float32"), ("float32", "bfloat16"), ("int64", "float32")])
def test_cast_of_strided_transposed_and_broadcast_views(source, target):
    source, target = (BF16 if d == "bfloat16" else np.dtype(d) for d in (source, target))
    rng = np.random.default_rng(3)
    host = sample(rng, source, 300 * 70).reshape(300, 70)
    x = npx.asarray(host)
    for view, want in [(x[::3, 1:], host[::3, 1:]), (x.T, host.T), (x[:, 5], host[:, 5]),
                       (x[::-2], host[::-2])]:
        assert_same_bits(view.astype(target).to_host(), expected_cast(np.ascontiguousarray(want), target))
    row = npx.broadcast_to(x[7], (50, 70))
    assert_same_bits(row.astype(target).to_host(), expected_cast(np.broadcast_to(host[7], (50, 70)).copy(), target))


@pytest.mark.parametrize("source, target", [("int32", "float64"), ("float64", "int32"), ("float32", "float16"),
                                            ("int8", "float32")])
def test_copy_into_views_of_another_dtype(source, target):
    # aclnnInplaceCopy: strided destination, contiguous or strided source, cast on the way.
    source, target = np.dtype(source), np.dtype(target)
    rng = np.random.default_rng(5)
    src = sample(rng, source, 40_000).reshape(200, 200)
    out_host = np.zeros((200, 400), dtype=target)
    out = npx.asarray(out_host)
    _ops.copy_(out[:, ::2], npx.asarray(src))
    _ops.copy_(out[:, 1::2], npx.asarray(src)[::-1])
    out_host[:, ::2] = expected_cast(src, target)
    out_host[:, 1::2] = expected_cast(src[::-1], target)
    assert_same_bits(out.to_host(), out_host)


def test_large_cast_is_streamed_and_exact():
    # 16 MiB and more of output: written with non-temporal stores.
    x = np.arange(-(1 << 21), 1 << 21, dtype=np.int32) * 513
    assert_same_bits(npx.asarray(x).astype(np.float64).to_host(), x.astype(np.float64))
    y = x.astype(np.float64) * 1.25
    assert_same_bits(npx.asarray(y).astype(np.int32).to_host(), y.astype(np.int32))


# ---------------------------------------------------------------------------------------------
# Operators on mixed dtypes: the input of another dtype converted block by block.

MIXED = [("float64", "int32"), ("int32", "float64"), ("float64", "float32"), ("float32", "int8"),
         ("float32", "int16"), ("int64", "int32"), ("int8", "uint8"), ("complex128", "float64"),
         ("float64", "bool"), ("float16", "int8")]


@pytest.mark.parametrize("left, right", MIXED)
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "maximum", "less", "equal"])
def test_binary_on_mixed_dtypes_matches_numpy(left, right, name):
    rng = np.random.default_rng(11)
    for shape_a, shape_b in [((1,), (1,)), ((17,), (17,)), ((513,), (513,)), ((300, 301), (300, 301)),
                             ((300, 301), (301,)), ((300, 1), (1, 301))]:
        a = sample(rng, np.dtype(left), int(np.prod(shape_a))).reshape(shape_a)
        b = sample(rng, np.dtype(right), int(np.prod(shape_b))).reshape(shape_b)
        if "complex128" in (left, right) and name not in ("add", "subtract", "equal"):
            continue  # (no complex order; complex products and quotients are tested elsewhere)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = getattr(np, name)(a, b)
        got = getattr(npx, name)(npx.asarray(a), npx.asarray(b)).to_host()
        if name == "maximum":  # (which zero of maximum(-0.0, 0.0) is NumPy's SIMD's choice)
            np.testing.assert_array_equal(got, want)
        else:
            assert_same_bits(got, want)


@pytest.mark.parametrize("left, right", [("float64", "int32"), ("int32", "float64"), ("float64", "float32"),
                                         ("int64", "int32"), ("float32", "int8")])
def test_mixed_dtypes_launch_the_operator_once(left, right):
    a = npx.asarray(np.arange(1000).astype(left))
    b = npx.asarray(np.arange(1000).astype(right))
    for _ in range(2):  # the Python path, then the C fast path
        with npx.profile() as prof:
            got = a - b
        assert [r.name for r in prof.records] == ["aclnnSub"]
        assert_same_bits(got.to_host(), np.arange(1000).astype(left) - np.arange(1000).astype(right))


def test_float32_with_int32_keeps_the_cast():
    # NumPy computes float32 - int32 in float64; CANN's own promotion would give float32, so
    # npuarray casts both to float64 first rather than give the operator mixed dtypes.
    a, b = np.arange(1000, dtype=np.float32) + 0.25, np.arange(1000, dtype=np.int32) * 16_777_217
    x, y = npx.asarray(a), npx.asarray(b)
    with npx.profile() as prof:
        got = x - y
    assert [r.name for r in prof.records] == ["aclnnCast", "aclnnCast", "aclnnSub"]
    assert_same_bits(got.to_host(), a - b)


def test_inplace_operators_with_an_int32_other():
    rng = np.random.default_rng(2)
    host = rng.standard_normal((256, 256))
    other = rng.integers(-1000, 1000, (256, 256)).astype(np.int32)
    x, y = npx.asarray(host), npx.asarray(other)
    _ops.launch("aclnnInplaceSub", x, y, _ops.acl_scalar(1.0, np.dtype(np.float64)))
    _ops.launch("aclnnInplaceAdd", x[:, ::2], y[:, :128], _ops.acl_scalar(1.0, np.dtype(np.float64)))
    want = host - other
    want[:, ::2] += other[:, :128]
    assert_same_bits(x.to_host(), want)


def test_muls_of_int32_into_float64():
    x = np.arange(-100_000, 100_000, dtype=np.int32) * 7
    out = npx.empty(x.shape, dtype=np.float64)
    _ops.launch("aclnnMuls", npx.asarray(x), _ops.acl_scalar(2.5, np.dtype(np.float64)), out)
    assert_same_bits(out.to_host(), x * 2.5)
