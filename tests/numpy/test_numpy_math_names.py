"""NumPy's arithmetic, exponent, complex-part and calculus names of the math chapter
(fmod ... unwrap in npuarray._math) against NumPy: values, dtypes and exceptions."""
import math

import numpy as np
import pytest

import npuarray as npx
from npuarray._core import _ops  # the raw operators, below the public API
from _numpy_names_helpers import REAL_DTYPES, assert_matches, sample, up, views

INTEGER_DTYPES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]


def _tolerance(dtype):
    return {"float16": 1e-3, "float32": 1e-5}.get(np.dtype(dtype).name, 1e-12)


def _signed(rng, shape, dtype):
    """Values of ``dtype`` with both signs where the dtype has them, no zeros."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape).astype(dtype)
    if dtype.kind == "u":
        return rng.integers(1, 60, shape).astype(dtype)
    values = rng.integers(1, 60, shape) * rng.choice([-1, 1], shape)
    return values.astype(dtype) if dtype.kind == "i" else (values / 7).astype(dtype)


def assert_pairs_match(result, expected, rtol):
    assert isinstance(result, tuple) and len(result) == len(expected)
    for r, e in zip(result, expected):
        assert_matches(r, e, rtol=rtol, atol=rtol)


# -- fmod, divmod, float_power --------------------------------------------------------------

@pytest.mark.parametrize("dtype", REAL_DTYPES + ["float16"])
def test_fmod_matches_numpy(dtype, rng):
    a, b = _signed(rng, (4, 5), dtype), _signed(rng, (4, 5), dtype)
    if np.dtype(dtype).kind == "b":
        b = np.ones_like(b)
    for (host_a, x), (host_b, y) in zip(views(a), views(b)):
        assert_matches(npx.fmod(x, y), np.fmod(host_a, host_b), rtol=_tolerance(dtype))
    assert_matches(npx.fmod(up(a), up(b[0])), np.fmod(a, b[0]), rtol=_tolerance(dtype))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES + ["float16", "float32", "float64", "bool"])
def test_fmod_gives_numpys_bits_at_the_extremes(dtype, rng):
    # One aclnnFmodTensor (int16/uint16/uint32 widened for it; uint64 as a remainder):
    # minimum % -1, division by zero, infinities, NaN and -0.0 as NumPy, broadcast.
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        a = rng.integers(info.min, info.max, (9, 7), dtype=dtype, endpoint=True)
        b = rng.integers(info.min, info.max, (7,), dtype=dtype, endpoint=True)
        a[0], b[:2], b[2], b[3] = info.min, 0, -1 if info.min else 1, 3
    elif dtype.kind == "b":
        a, b = rng.integers(0, 2, (9, 7)).astype(bool), rng.integers(0, 2, 7).astype(bool)
    else:
        a = (rng.standard_normal((9, 7)) * 100).astype(dtype)
        b = (rng.standard_normal(7) * 3).astype(dtype)
        a[0, :4], b[:2] = [np.inf, -np.inf, np.nan, -0.0], [0, np.inf]
    for x, y in ((a, b), (a[::-2, ::3], b[::3]), (a, 3)):
        with np.errstate(all="ignore"):
            expected = np.fmod(x, y)
        got = npx.fmod(up(x), y if np.isscalar(y) else up(y)).to_host()
        assert got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
        assert np.array_equal(np.signbit(got), np.signbit(expected))


@pytest.mark.parametrize("dtype, good", [(np.int16, False), (np.uint32, False), (np.bool_, False),
                                         (np.complex64, False), (np.int8, True), (np.uint8, True),
                                         (np.float16, True), (np.float64, True)])
def test_npusim_fmod_tensor_and_scalar_keep_canns_dtypes(dtype, good):
    # hicann/ops-math math/mod/docs/aclnnFmodTensor&aclnnInplaceFmodTensor.md and
    # aclnnFmodScalar&aclnnInplaceFmodScalar.md: DOUBLE, BFLOAT16, FLOAT16, FLOAT, INT32, INT64,
    # INT8, UINT8.
    x = npx.asarray(np.array([7, -7, 5, 0]).astype(dtype))
    divisor = npx.asarray(np.array([3, 3, -2, 4]).astype(dtype))
    out = npx.zeros(4, dtype=dtype)
    scalar = _ops.acl_scalar(3, np.dtype(np.int32))
    if not good:
        for op, other in (("aclnnFmodTensor", divisor), ("aclnnFmodScalar", scalar)):
            with pytest.raises(npx.InvalidValueError) as info:
                _ops.launch(op, x, other, out)
            assert info.value.code == 161002
        return
    _ops.launch("aclnnFmodTensor", x, divisor, out)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(out.to_host(), np.fmod(x.to_host(), divisor.to_host()))
    _ops.launch("aclnnFmodScalar", x, scalar, out)
    np.testing.assert_array_equal(out.to_host(), np.fmod(x.to_host(), np.array(3, dtype)))


def test_fmod_special_values_and_scalars():
    a = np.array([5.0, -5.0, np.inf, -np.inf, np.nan, 7.5, -0.0, 1e300, -3.0])
    b = np.array([np.inf, -np.inf, 2.0, 3.0, 1.0, 0.0, 2.0, 7.0, -2.0])
    with np.errstate(all="ignore"):
        assert_matches(npx.fmod(up(a), up(b)), np.fmod(a, b))
    ints = np.array([-128, 127, -7, 7, 5], dtype=np.int8)
    divisors = np.array([3, -3, 0, 2, -1], dtype=np.int8)
    with np.errstate(all="ignore"):
        assert_matches(npx.fmod(up(ints), up(divisors)), np.fmod(ints, divisors))
    assert_matches(npx.fmod(up(ints), 3), np.fmod(ints, 3))
    assert_matches(npx.fmod(7, -3), np.fmod(7, -3))
    assert_matches(npx.fmod(up(np.float32([7.5])), 2.0), np.fmod(np.float32([7.5]), 2.0))


@pytest.mark.parametrize("name", ["fmod", "divmod", "logaddexp2", "gcd", "lcm"])
def test_binary_names_refuse_what_numpy_refuses(name):
    z = up(np.array([1 + 2j, 3j]))
    bad = z if name in ("fmod", "divmod", "logaddexp2") else up(np.array([1.5, 2.0]))
    with pytest.raises(TypeError):
        getattr(npx, name)(bad, bad)
    with pytest.raises(TypeError):
        getattr(np, name)(bad.to_host(), bad.to_host())


@pytest.mark.parametrize("dtype", REAL_DTYPES + ["float16"])
def test_divmod_matches_numpy(dtype, rng):
    a, b = _signed(rng, (3, 6), dtype), _signed(rng, (3, 6), dtype)
    if np.dtype(dtype).kind == "b":
        b = np.ones_like(b)
    assert_pairs_match(npx.divmod(up(a), up(b)), np.divmod(a, b), _tolerance(dtype))


def test_divmod_infinite_dividend_and_zero_divisor():
    a = np.array([np.inf, -np.inf, 1.0, -1.0, 0.0, 7.0])
    b = np.array([3.0, 3.0, 0.0, 0.0, 0.0, -2.0])
    with np.errstate(all="ignore"):
        assert_pairs_match(npx.divmod(up(a), up(b)), np.divmod(a, b), 1e-12)


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint16", "float32", "float64",
                                   "complex64", "complex128", "bool"])
def test_float_power_matches_numpy(dtype, rng):
    a = np.abs(sample(rng, (3, 4), dtype)) + (0 if np.dtype(dtype).kind == "b" else 1)
    kind = np.dtype(dtype).kind
    b = sample(rng, (4,), dtype) if kind == "c" else np.array(
        [-2, 0, 1, 3] if kind in "if" else [0, 1, 1, 0] if kind == "b" else [0, 1, 2, 3],
        dtype=dtype)
    expected = np.float_power(a, b)
    assert_matches(npx.float_power(up(a), up(b)), expected, rtol=1e-6)
    with np.errstate(divide="ignore"):
        expected = np.float_power(a, -1)
    assert_matches(npx.float_power(up(a), -1), expected, rtol=1e-6)


# -- modf, frexp, ldexp, spacing --------------------------------------------------------------

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, 0.75, -3.25, 1023.999, 2.0 ** -1022, 1e-310, 5e-324,
           1.7e308, np.inf, -np.inf, np.nan, 12345.678]


@pytest.mark.parametrize("dtype", FLOATS)
def test_modf_matches_numpy(dtype, rng):
    with np.errstate(over="ignore"):
        a = np.array(SPECIAL + list(rng.normal(0, 100, 8)), dtype=dtype)
    assert_pairs_match(npx.modf(up(a)), np.modf(a), 0)
    for host, x in views(a.reshape(4, 6)):
        assert_pairs_match(npx.modf(x), np.modf(host), 0)


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "uint8", "bool"])
def test_modf_of_integers_gives_numpys_float(dtype, rng):
    a = sample(rng, (7,), dtype)
    assert_pairs_match(npx.modf(up(a)), np.modf(a), 0)


@pytest.mark.parametrize("dtype", FLOATS + ["int16", "int32", "uint8"])
def test_frexp_is_exact(dtype, rng):
    with np.errstate(over="ignore"):
        a = np.array(SPECIAL + list(rng.normal(0, 1e3, 8)) + list(rng.uniform(-1e-30, 1e-30, 4)),
                     dtype=np.float64).astype(dtype) if np.dtype(dtype).kind == "f" else \
            sample(rng, (12,), dtype)
    assert_pairs_match(npx.frexp(up(a)), np.frexp(a), 0)


@pytest.mark.parametrize("dtype", FLOATS)
def test_ldexp_is_exact_across_the_range(dtype, rng):
    info = np.finfo(dtype)
    exponents = np.array([0, 1, -1, info.maxexp - 1, info.maxexp, -info.minexp, info.minexp - 5,
                          info.minexp - info.nmant, 5000, -5000, 7, -3], dtype=np.int32)
    mantissas = np.array([1.0, -1.5, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 3.0, np.inf, np.nan],
                         dtype=dtype)
    with np.errstate(all="ignore"):
        expected = np.ldexp(mantissas, exponents)
    assert_matches(npx.ldexp(up(mantissas), up(exponents)), expected, rtol=0)
    assert_matches(npx.ldexp(up(mantissas), 3), np.ldexp(mantissas, 3), rtol=0)


def test_ldexp_of_integers_and_refusals():
    a = np.array([1, -3, 7], dtype=np.int32)
    e = np.array([2, 3, -1], dtype=np.int64)
    assert_matches(npx.ldexp(up(a), up(e)), np.ldexp(a, e))
    with pytest.raises(TypeError):
        npx.ldexp(up(np.ones(3)), up(np.ones(3)))
    with pytest.raises(TypeError):
        npx.ldexp(up(np.ones(3, np.complex64)), 2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_spacing_matches_numpy(dtype):
    with np.errstate(over="ignore"):
        a = np.array(SPECIAL, dtype=dtype)
    with np.errstate(invalid="ignore"):
        expected = np.spacing(a)
    assert_matches(npx.spacing(up(a)), expected, rtol=0)


def test_spacing_of_integers_and_complex():
    a = np.array([0, 1, -5, 100], dtype=np.int16)
    assert_matches(npx.spacing(up(a)), np.spacing(a), rtol=0)
    with pytest.raises(TypeError):
        npx.spacing(up(np.ones(2, np.complex64)))


# -- gcd, lcm ------------------------------------------------------------------------------

def test_gcd_lcm_refuse_bool_as_numpy():
    flags = np.array([True, False])
    for name in ("gcd", "lcm"):
        with pytest.raises(TypeError):
            getattr(np, name)(flags, flags)
        with pytest.raises(TypeError):
            getattr(npx, name)(up(flags), up(flags))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_gcd_lcm_match_numpy(dtype, rng):
    dtype = np.dtype(dtype)
    high = 12 if dtype.itemsize == 1 else 1000
    a = rng.integers(0, high, (5, 6)).astype(dtype)
    b = rng.integers(0, high, (6,)).astype(dtype)
    if dtype.kind == "i":
        a = (a * rng.choice([-1, 1], a.shape)).astype(dtype)
    a[0, 0], b[0] = 0, 0
    assert_matches(npx.gcd(up(a), up(b)), np.gcd(a, b))
    assert_matches(npx.lcm(up(a), up(b)), np.lcm(a, b))


def test_gcd_lcm_scalars():
    assert_matches(npx.gcd(12, 18), np.gcd(12, 18))
    assert_matches(npx.lcm(up(np.array([4, 6, 0])), 10), np.lcm(np.array([4, 6, 0]), 10))
    big = np.array([2 ** 40 * 3, 2 ** 52 + 1], dtype=np.int64)
    assert_matches(npx.gcd(up(big), up(big[::-1])), np.gcd(big, big[::-1]))


@pytest.mark.parametrize("dtype", INTEGER_DTYPES)
def test_gcd_lcm_at_the_extremes_broadcast_and_strided(dtype, rng):
    # aclnnGcd on widened inputs (or Euclid's steps for uint64): the minimum's magnitude
    # wraps back to the minimum as NumPy's does; zeros; full-range values; views.
    dtype = np.dtype(dtype)
    info = np.iinfo(dtype)
    a = rng.integers(info.min, info.max, (9, 8), dtype=dtype, endpoint=True)
    b = rng.integers(info.min, info.max, (8,), dtype=dtype, endpoint=True)
    a[0, :3], a[1, :3], b[:2], b[2] = info.min, 0, 0, info.min
    a[2] //= 64
    for x, y in ((a, b), (a[::-2, 1::2], b[::2]), (a.T[:, :1], a[:, 0])):
        with np.errstate(over="ignore"):
            expected_gcd, expected_lcm = np.gcd(x, y), np.lcm(x, y)
        np.testing.assert_array_equal(npx.gcd(up(x), up(y)).to_host(), expected_gcd)
        np.testing.assert_array_equal(npx.lcm(up(x), up(y)).to_host(), expected_lcm)


@pytest.mark.parametrize("self_dtype, other_dtype", [
    (np.bool_, np.bool_), (np.int8, np.int8), (np.uint8, np.uint8), (np.float32, np.float32),
    (np.int32, np.float32)])
def test_npusim_gcd_refuses_promotions_outside_int16_to_int64(self_dtype, other_dtype):
    # hicann/ops-math math/gcd/docs/aclnnGcd.md: the promoted dtype is INT16, INT32 or INT64.
    x = npx.asarray(np.arange(3).astype(self_dtype))
    y = npx.asarray(np.arange(3).astype(other_dtype))
    out = npx.zeros(3, dtype=npx.int32)
    with pytest.raises(npx.InvalidValueError) as info:
        _ops.launch("aclnnGcd", x, y, out)
    assert info.value.code == 161002 and info.value.api == "aclnnGcdGetWorkspaceSize"
    good = npx.asarray(np.array([12, -18, 0], np.int16))
    _ops.launch("aclnnGcd", good, npx.asarray(np.array([8, 8, 0], np.uint8)), out)
    np.testing.assert_array_equal(out.to_host(), [4, 2, 0])


# -- angle, conjugate, logaddexp2, real_if_close -------------------------------------------------

@pytest.mark.parametrize("dtype", ["complex64", "complex128", "float32", "float64", "int32",
                                   "bool"])
@pytest.mark.parametrize("deg", [False, True])
def test_angle_matches_numpy(dtype, deg, rng):
    a = sample(rng, (3, 4), dtype)
    if np.dtype(dtype).kind == "f":
        a[0, 0] = -2.0
    assert_matches(npx.angle(up(a), deg=deg), np.angle(a, deg=deg), rtol=1e-5)


def test_conjugate_is_conj():
    a = np.array([1 + 2j, -3j], dtype=np.complex64)
    assert_matches(npx.conjugate(up(a)), np.conjugate(a))


@pytest.mark.parametrize("dtype", FLOATS + ["int32"])
def test_logaddexp2_matches_numpy(dtype, rng):
    a = sample(rng, (3, 5), dtype)
    b = sample(rng, (5,), dtype)
    assert_matches(npx.logaddexp2(up(a), up(b)), np.logaddexp2(a, b), rtol=_tolerance(dtype))
    special = np.array([np.inf, -np.inf, np.inf, 1.0, -np.inf, 1e300])
    other = np.array([np.inf, -np.inf, -np.inf, 1.0, 2.0, 1e300])
    assert_matches(npx.logaddexp2(up(special), up(other)), np.logaddexp2(special, other))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_real_if_close(dtype):
    eps = np.finfo(np.dtype(dtype).char.lower()).eps
    close = np.array([1 + 10 * eps * 1j, 2 - 5 * eps * 1j], dtype=dtype)
    far = np.array([1 + 1e-3j, 2], dtype=dtype)
    assert_matches(npx.real_if_close(up(close)), np.real_if_close(close))
    assert_matches(npx.real_if_close(up(far)), np.real_if_close(far))
    assert_matches(npx.real_if_close(up(far), tol=1e-2), np.real_if_close(far, tol=1e-2))
    real = np.array([1.0, 2.0], dtype=np.float32)
    assert_matches(npx.real_if_close(up(real)), np.real_if_close(real))


# -- ediff1d, cross ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in REAL_DTYPES if d != "bool"])
def test_ediff1d_matches_numpy(dtype, rng):
    a = sample(rng, (3, 4), dtype)
    assert_matches(npx.ediff1d(up(a)), np.ediff1d(a))
    edge = np.array([1, 2], dtype=dtype)
    assert_matches(npx.ediff1d(up(a), to_end=up(edge), to_begin=up(edge[:1])),
                   np.ediff1d(a, to_end=edge, to_begin=edge[:1]))
    if np.dtype(dtype).kind == "u":  # a Python int is int64: not same_kind castable
        with pytest.raises(TypeError):
            np.ediff1d(a, to_begin=5)
        with pytest.raises(TypeError):
            npx.ediff1d(up(a), to_begin=5)
    else:
        assert_matches(npx.ediff1d(up(a), to_begin=5), np.ediff1d(a, to_begin=5))


def test_ediff1d_refusals():
    with pytest.raises(TypeError):
        npx.ediff1d(up(np.array([1, 2, 3], np.int32)), to_begin=up(np.array([0.5])))
    with pytest.raises(TypeError):
        np.ediff1d(np.array([1, 2, 3], np.int32), to_begin=np.array([0.5]))
    with pytest.raises(TypeError):
        npx.ediff1d(up(np.array([True, False])))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "complex64"])
def test_cross_matches_numpy(dtype, rng):
    a, b = sample(rng, (4, 3), dtype), sample(rng, (4, 3), dtype)
    assert_matches(npx.cross(up(a), up(b)), np.cross(a, b), rtol=1e-5)
    a2 = sample(rng, (3, 5), dtype)
    b2 = sample(rng, (5, 2), dtype)
    with pytest.warns(DeprecationWarning):
        expected = np.cross(a2, b2, axisa=0, axisc=0)
    with pytest.warns(DeprecationWarning):
        assert_matches(npx.cross(up(a2), up(b2), axisa=0, axisc=0), expected, rtol=1e-5)
    c = sample(rng, (3, 2, 3), dtype)
    assert_matches(npx.cross(up(c), up(c[::-1]), axis=0), np.cross(c, c[::-1], axis=0),
                   rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int8", "int64", "uint8", "uint16",
                                   "float16", "complex64"])
@pytest.mark.parametrize("layout", ["packed", "broadcast", "strided", "moved-axes"])
def test_cross_gives_numpys_bits(dtype, layout, rng):
    # One aclnnLinalgCross (float32/64, int8-int64, uint8) or the composition: either way the
    # same bits as NumPy's, in the packed (n, 3) kernel path and the general strided one.
    a = (rng.standard_normal((40, 3)) * 50).astype(dtype)
    b = (rng.standard_normal((40, 3)) * 50).astype(dtype)
    kwargs = {}
    if layout == "broadcast":
        b = b[:1]
    elif layout == "strided":
        a, b = a[::-2], b[1::2]
    elif layout == "moved-axes":
        a, b, kwargs = a.T.reshape(3, 5, 8), b.reshape(5, 8, 3), {"axisa": 0, "axisc": 1}
    with np.errstate(over="ignore"):
        expected = np.cross(a, b, **kwargs)
    got = npx.cross(up(a), up(b), **kwargs)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got.to_host(), expected)


def test_cross_of_2_vectors_and_errors(rng):
    a, b = rng.normal(size=(5, 2)), rng.normal(size=(5, 2))
    with pytest.warns(DeprecationWarning):
        expected = np.cross(a, b)
    with pytest.warns(DeprecationWarning):
        assert_matches(npx.cross(up(a), up(b)), expected)
    with pytest.raises(ValueError, match="dimension must be 2 or 3"):
        npx.cross(up(np.ones((2, 4))), up(np.ones((2, 3))))
    with pytest.raises(np.exceptions.AxisError):
        npx.cross(up(np.ones((2, 3))), up(np.ones((2, 3))), axisa=3)


# -- trapezoid, gradient, unwrap -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "int64", "bool", "uint8"])
def test_trapezoid_matches_numpy(dtype, rng):
    y = sample(rng, (4, 7), dtype)
    rtol = 1e-5 if dtype == "float32" else 1e-12
    assert_matches(npx.trapezoid(up(y)), np.trapezoid(y), rtol=rtol)
    assert_matches(npx.trapezoid(up(y), dx=0.25, axis=0), np.trapezoid(y, dx=0.25, axis=0),
                   rtol=rtol)
    x = np.sort(rng.uniform(0, 3, 7))
    assert_matches(npx.trapezoid(up(y), up(x)), np.trapezoid(y, x), rtol=rtol)
    x2 = np.sort(rng.uniform(0, 3, (4, 7)), axis=1)
    assert_matches(npx.trapezoid(up(y), up(x2), axis=1), np.trapezoid(y, x2, axis=1), rtol=rtol)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8"])
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_matches_numpy(dtype, edge_order, rng):
    f = sample(rng, (5, 6), dtype)
    rtol = 1e-4 if dtype == "float32" else 1e-10
    got = npx.gradient(up(f), edge_order=edge_order)
    expected = np.gradient(f, edge_order=edge_order)
    assert isinstance(got, tuple) and len(got) == 2
    for g, e in zip(got, expected):
        assert_matches(g, e, rtol=rtol, atol=rtol)
    assert_matches(npx.gradient(up(f), 0.5, axis=1, edge_order=edge_order),
                   np.gradient(f, 0.5, axis=1, edge_order=edge_order), rtol=rtol, atol=rtol)
    x = np.cumsum(rng.uniform(0.1, 1.0, 6))
    assert_matches(npx.gradient(up(f), up(x), axis=-1, edge_order=edge_order),
                   np.gradient(f, x, axis=-1, edge_order=edge_order), rtol=rtol, atol=rtol)
    got = npx.gradient(up(f), 2.0, up(x), edge_order=edge_order)
    for g, e in zip(got, np.gradient(f, 2.0, x, edge_order=edge_order)):
        assert_matches(g, e, rtol=rtol, atol=rtol)


def test_gradient_of_uniform_coordinates_is_the_scalar_formula(rng):
    f = rng.normal(size=(4, 9))
    x = np.linspace(0.0, 2.0, 9)
    for edge_order in (1, 2):
        assert_matches(npx.gradient(up(f), up(x), axis=1, edge_order=edge_order),
                       np.gradient(f, x, axis=1, edge_order=edge_order), rtol=0, atol=0)


def test_gradient_errors():
    with pytest.raises(TypeError):
        np.gradient(np.array([True, False, True]))
    with pytest.raises(TypeError):
        npx.gradient(up(np.array([True, False, True])))
    with pytest.raises(ValueError):
        npx.gradient(up(np.ones(2)), edge_order=2)
    with pytest.raises(ValueError):
        np.gradient(np.ones(2), edge_order=2)
    with pytest.raises(ValueError):
        npx.gradient(up(np.ones(4)), edge_order=3)
    with pytest.raises(TypeError):
        npx.gradient(up(np.ones((3, 3))), 1.0, 2.0, 3.0)
    with pytest.raises(ValueError):
        npx.gradient(up(np.ones(4)), up(np.arange(3.0)))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_unwrap_matches_numpy(dtype, rng):
    p = (np.cumsum(rng.normal(0, 2, (3, 40)), axis=1) % (2 * math.pi)).astype(dtype) \
        if dtype != "int64" else rng.integers(-10, 10, (3, 40))
    rtol = 1e-4 if dtype == "float32" else 1e-10
    assert_matches(npx.unwrap(up(p)), np.unwrap(p), rtol=rtol, atol=rtol)
    assert_matches(npx.unwrap(up(p), axis=0), np.unwrap(p, axis=0), rtol=rtol, atol=rtol)
    if dtype != "int64":
        assert_matches(npx.unwrap(up(p), discont=4.0, period=5.0),
                       np.unwrap(p, discont=4.0, period=5.0), rtol=rtol, atol=rtol)


def test_ufunc_names_take_out(rng):
    a = rng.uniform(1, 9, (3, 4))
    b = rng.uniform(1, 3, (3, 4))
    out = npx.empty((3, 4), dtype=np.float64)
    assert npx.fmod(up(a), up(b), out=out) is out
    assert_matches(out, np.fmod(a, b))
    assert npx.logaddexp2(up(a), up(b), out=(out,)) is out
    assert_matches(out, np.logaddexp2(a, b))
    mantissa, exponent = npx.empty((3, 4)), npx.empty((3, 4), dtype=np.int32)
    got = npx.frexp(up(a), out=(mantissa, exponent))
    assert got[0] is mantissa and got[1] is exponent
    expected = np.frexp(a)
    assert_matches(mantissa, expected[0])
    assert_matches(exponent, expected[1])
    fraction = npx.empty((3, 4))
    got = npx.modf(up(a), out=(fraction, None))
    assert got[0] is fraction
    assert_matches(got[1], np.modf(a)[1])
    with pytest.raises(ValueError):
        npx.divmod(up(a), up(b), out=(out,))
    with pytest.raises(ValueError):
        npx.gcd(up(np.arange(3)), 2, out=npx.empty((4,), dtype=np.int64))


@pytest.mark.parametrize("dtype", ["int32", "uint8", "int64", "bool"])
@pytest.mark.parametrize("options", [{"period": 360}, {"period": 361},
                                     {"period": 360, "discont": 200}, {}])
def test_unwrap_of_integers_as_numpy(dtype, options, rng):
    p = rng.integers(0, 2 if dtype == "bool" else 250, 30).astype(dtype)
    if dtype == "uint8" and "period" in options:  # NEP 50: the period does not fit uint8
        with pytest.raises(OverflowError):
            np.unwrap(p, **options)
        with pytest.raises(OverflowError):
            npx.unwrap(up(p), **options)
        return
    assert_matches(npx.unwrap(up(p), **options), np.unwrap(p, **options))


@pytest.mark.parametrize("dtype", ["int8", "int16", "uint16", "int64", "bool"])
def test_angle_of_integers_follows_arctan2(dtype, rng):
    a = sample(rng, (5,), dtype)
    assert_matches(npx.angle(up(a)), np.angle(a), rtol=1e-3)


BITS = {"float16": np.uint16, "float32": np.uint32, "float64": np.uint64}


def _every_kind_of_float(rng, dtype, n=2000):
    """Random bit patterns of ``dtype``: subnormals, huge values, infinities, NaNs."""
    return rng.integers(0, np.iinfo(BITS[dtype]).max, n, dtype=BITS[dtype]).view(dtype)


def _identical(result, expected):
    host = result.to_host()
    assert host.dtype == expected.dtype
    same = (host == expected) | (np.isnan(host) & np.isnan(expected))
    assert same.all(), (host[~same][:5], expected[~same][:5])


@pytest.mark.parametrize("dtype", FLOATS)
def test_exact_functions_on_random_bit_patterns(dtype, rng):
    a, b = _every_kind_of_float(rng, dtype), _every_kind_of_float(rng, dtype)
    exponents = rng.integers(-2300, 2300, a.shape[0])
    with np.errstate(all="ignore"):
        _identical(npx.fmod(up(a), up(b)), np.fmod(a, b))
        for got, want in zip(npx.divmod(up(a), up(b)), np.divmod(a, b)):
            _identical(got, want)
        for name in ("frexp", "modf"):
            for got, want in zip(getattr(npx, name)(up(a)), getattr(np, name)(a)):
                _identical(got, want)
        _identical(npx.spacing(up(a)), np.spacing(a))
        _identical(npx.ldexp(up(a), up(exponents)), np.ldexp(a, exponents))
        assert_matches(npx.logaddexp2(up(a), up(b)), np.logaddexp2(a, b),
                       rtol=_tolerance(dtype))


@pytest.mark.parametrize("name", ["fmod", "float_power", "logaddexp2"])
def test_numpy_ufuncs_of_npuarrays_run_on_the_device(name, rng):
    """``numpy.fmod(x, y)`` ... of NPUArrays reach npuarray's (``__array_ufunc__``)."""
    a, b = rng.uniform(1, 9, 6), rng.uniform(1, 3, 6)
    assert_matches(getattr(np, name)(up(a), up(b)), getattr(np, name)(a, b), rtol=1e-12)
    ints = np.array([12, 18, 0, 7])
    assert_matches(np.gcd(up(ints), 6), np.gcd(ints, 6))
    assert_matches(np.lcm(up(ints), up(ints[::-1])), np.lcm(ints, ints[::-1]))
    assert_matches(np.bitwise_count(up(ints)), np.bitwise_count(ints))
    assert_matches(np.ldexp(up(a), up(ints[:1])), np.ldexp(a, ints[:1]))
    assert_matches(np.spacing(up(a)), np.spacing(a))
    m = rng.normal(size=(2, 6))
    assert_matches(np.matvec(up(m), up(a)), np.matvec(m, a))
    assert_matches(np.vecmat(up(a), up(m.T)), np.vecmat(a, m.T))
